package wallet

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/topology"
)

// OnboardingNode is the part of a node's JSON API that onboarding an
// external party uses; *client.Client has it.
type OnboardingNode interface {
	ConnectedSynchronizers(ctx context.Context, party, participantID string) (*ledgerapi.GetConnectedSynchronizersResponse, error)
	GenerateExternalPartyTopology(ctx context.Context, req ledgerapi.GenerateExternalPartyTopologyRequest) (*ledgerapi.GenerateExternalPartyTopologyResponse, error)
	AllocateExternalParty(ctx context.Context, req ledgerapi.AllocateExternalPartyRequest) (string, error)
}

// SynchronizerChoiceError says the node is on no synchronizer or on several
// (then one must be named).
type SynchronizerChoiceError struct{ Connected []string }

func (e *SynchronizerChoiceError) Error() string {
	if len(e.Connected) == 0 {
		return "the node is connected to no synchronizer"
	}
	return fmt.Sprintf("the node is on %d synchronizers (%s): choose one", len(e.Connected), strings.Join(e.Connected, ", "))
}

// OnlySynchronizer returns the one synchronizer node is connected to, or a
// *SynchronizerChoiceError.
func OnlySynchronizer(ctx context.Context, node OnboardingNode) (string, error) {
	cs, err := node.ConnectedSynchronizers(ctx, "", "")
	if err != nil {
		return "", err
	}
	if len(cs.ConnectedSynchronizers) == 1 {
		return cs.ConnectedSynchronizers[0].SynchronizerID, nil
	}
	ids := []string{}
	for _, s := range cs.ConnectedSynchronizers {
		ids = append(ids, s.SynchronizerID)
	}
	return "", &SynchronizerChoiceError{Connected: ids}
}

// Onboarding is a node's proposal to onboard an external party, checked:
// the transactions onboard exactly the party of our key, with our key
// alone, and the multi-hash recomputes from them.
type Onboarding struct {
	Synchronizer string
	PartyID      string
	Fingerprint  string
	// MultiHash is what the party signs to authorize the transactions.
	MultiHash    []byte
	Transactions [][]byte
	// Mappings says in one line each what the transactions do.
	Mappings []string
}

// ErrRefusedOnboarding wraps every reason not to sign a node's proposal.
var ErrRefusedOnboarding = errors.New("refusing to sign the node's onboarding transactions")

// ProposeOnboarding asks node for the topology transactions that onboard
// the party hint::<fingerprint of pub> on sync, and checks all of them
// before anything is signed. A failed check wraps ErrRefusedOnboarding.
func ProposeOnboarding(ctx context.Context, node OnboardingNode, sync, hint string, pub signer.PublicKey) (*Onboarding, error) {
	gen, err := node.GenerateExternalPartyTopology(ctx, ledgerapi.GenerateExternalPartyTopologyRequest{
		Synchronizer: sync, PartyHint: hint,
		PublicKey: ledgerapi.SigningPublicKey{Format: ledgerapi.CryptoKeyFormatDERX509SPKI, KeyData: pub.SPKIDER(), KeySpec: ledgerapi.SigningKeySpecCurve25519},
	})
	if err != nil {
		return nil, err
	}
	refuse := func(format string, args ...any) (*Onboarding, error) {
		return nil, fmt.Errorf("%w: %s", ErrRefusedOnboarding, fmt.Sprintf(format, args...))
	}
	txs := make([][]byte, len(gen.TopologyTransactions))
	for i, t := range gen.TopologyTransactions {
		txs[i] = t
	}
	partyID, err := topology.CheckExternalPartyOnboarding(txs, pub.Raw(), hint)
	if err != nil {
		return refuse("they do not onboard %s with this key alone: %v", hint, err)
	}
	if gen.PartyID != partyID {
		return refuse("the node names the party %s, the transactions onboard %s", gen.PartyID, partyID)
	}
	if gen.PublicKeyFingerprint != "" && gen.PublicKeyFingerprint != pub.Fingerprint() {
		return refuse("the node reports fingerprint %s for our key, which is %s", gen.PublicKeyFingerprint, pub.Fingerprint())
	}
	if err := topology.VerifyMultiHash(txs, gen.MultiHash); err != nil {
		return refuse("%v", err)
	}
	o := &Onboarding{Synchronizer: sync, PartyID: partyID, Fingerprint: pub.Fingerprint(), MultiHash: gen.MultiHash, Transactions: txs}
	for _, t := range txs {
		d, err := topology.Decode(t)
		if err != nil {
			return refuse("%v", err)
		}
		o.Mappings = append(o.Mappings, describeMapping(d))
	}
	return o, nil
}

// MultiHashHex is the multi-hash in lower-case hex, as a person compares it.
func (o *Onboarding) MultiHashHex() string { return hex.EncodeToString(o.MultiHash) }

// Allocate signs the multi-hash with key and allocates the party on the
// node; grantUser, when set, gets rights on the new party (Canton 3.5+).
func (o *Onboarding) Allocate(ctx context.Context, node OnboardingNode, key *signer.Key, grantUser string) error {
	sig, err := key.SignMultiHash(o.MultiHash)
	if err != nil {
		return err
	}
	onboarding := make([]ledgerapi.SignedTransaction, len(o.Transactions))
	for i, t := range o.Transactions {
		onboarding[i] = ledgerapi.SignedTransaction{Transaction: t, Signatures: []ledgerapi.Signature{}}
	}
	got, err := node.AllocateExternalParty(ctx, ledgerapi.AllocateExternalPartyRequest{
		Synchronizer: o.Synchronizer, OnboardingTransactions: onboarding, MultiHashSignatures: []ledgerapi.Signature{ledgerapi.SignatureOf(sig)}, UserID: grantUser,
	})
	if err != nil {
		return err
	}
	if got != o.PartyID {
		return fmt.Errorf("the node allocated %s, not the checked %s", got, o.PartyID)
	}
	return nil
}

// describeMapping says in one line what a topology transaction does.
func describeMapping(t *topology.Transaction) string {
	m := t.Mapping
	switch {
	case m.NamespaceDelegation != nil:
		return fmt.Sprintf("%s namespace delegation: namespace %s to key %s (%s)", t.Operation, m.NamespaceDelegation.Namespace,
			m.NamespaceDelegation.Target.Fingerprint, m.NamespaceDelegation.Restriction)
	case m.PartyToKeyMapping != nil:
		return fmt.Sprintf("%s party-to-key: %s signs with %s (threshold %d)", t.Operation, m.PartyToKeyMapping.Party,
			keyList(m.PartyToKeyMapping.Keys), m.PartyToKeyMapping.Threshold)
	case m.PartyToParticipant != nil:
		p := m.PartyToParticipant
		var hosts []string
		for _, h := range p.Participants {
			hosts = append(hosts, fmt.Sprintf("%s (%s)", h.ParticipantUID, strings.ToLower(string(h.Permission))))
		}
		s := fmt.Sprintf("%s party-to-participant: %s hosted by %s, confirmation threshold %d", t.Operation, p.Party, strings.Join(hosts, ", "), p.Threshold)
		if p.HasSigningKeys {
			s += fmt.Sprintf("; signs with %s (threshold %d)", keyList(p.SigningKeys), p.SigningThreshold)
		}
		return s
	}
	return fmt.Sprintf("%s %s", t.Operation, m.Kind)
}

func keyList(ks []topology.SigningKey) string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Fingerprint)
	}
	return strings.Join(out, ", ")
}
