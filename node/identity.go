package node

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/topology"
)

// initIdentity returns the node's identity, creating it (with a fresh
// namespace key) in a new store. Names given for an existing node must
// match what it was created with.
func initIdentity(ctx context.Context, st Store, participant, synchronizer string) (ledger.Identity, bool, error) {
	existing, err := st.Identity(ctx)
	if err == nil {
		name, _, _ := topology.SplitUID(existing.ParticipantID)
		if participant != "" && participant != name && participant != existing.ParticipantID {
			return ledger.Identity{}, false, fmt.Errorf("the node was created as participant %q; restart with --participant-id %s or use another database", name, name)
		}
		if synchronizer != "" && synchronizer != existing.SynchronizerID {
			return ledger.Identity{}, false, fmt.Errorf("the node was created on synchronizer %q; restart with that --synchronizer-id or use another database", existing.SynchronizerID)
		}
		return existing, false, nil
	}
	if !errors.Is(err, ledger.ErrNotFound) {
		return ledger.Identity{}, false, err
	}
	if participant == "" {
		participant = ledger.DefaultParticipantName
	}
	if err := topology.ValidatePartyHint(participant); err != nil {
		return ledger.Identity{}, false, fmt.Errorf("participant id %q: %w", participant, err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return ledger.Identity{}, false, fmt.Errorf("generate namespace key: %w", err)
	}
	fp := signer.Fingerprint(pub)
	if synchronizer == "" {
		synchronizer = "local::" + fp
	}
	if err := ledgerapi.ValidateLedgerString("synchronizer id", synchronizer); err != nil {
		return ledger.Identity{}, false, fmt.Errorf("synchronizer id: %w", err)
	}
	want := ledger.Identity{
		ParticipantID:        participant + "::" + fp,
		NamespaceFingerprint: fp,
		NamespaceKey:         priv.Seed(),
		SynchronizerID:       synchronizer,
	}
	return st.Init(ctx, want)
}
