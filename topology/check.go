package topology

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/ledger-cli/ledger/signer"
)

// CheckExternalPartyOnboarding checks, before anything is signed, that the
// transactions a node returned from generate-topology onboard the party we
// asked for with our key and nothing else: every transaction decodes and adds
// (ADD_REPLACE); the party is partyHint::fingerprint(expectedPublicKey) (any
// hint when partyHint is empty); a namespace delegation, if any, is the root
// delegation of our key; the party's signing keys, in the PartyToParticipant
// or in a PartyToKeyMapping, are exactly our key with threshold 1; no
// participant gets Submission permission and at least one confirms. Both
// Canton layouts pass. It returns the party id.
func CheckExternalPartyOnboarding(txs [][]byte, expectedPublicKey []byte, partyHint string) (string, error) {
	if len(expectedPublicKey) != ed25519.PublicKeySize {
		return "", fmt.Errorf("expected public key: a raw Ed25519 key has %d bytes, got %d", ed25519.PublicKeySize, len(expectedPublicKey))
	}
	if len(txs) == 0 {
		return "", fmt.Errorf("no topology transactions to check")
	}
	fp := signer.Fingerprint(expectedPublicKey)
	var partyID string
	if partyHint != "" {
		if err := ValidatePartyHint(partyHint); err != nil {
			return "", err
		}
		partyID = partyHint + uidDelimiter + fp
	}
	checkParty := func(i int, party string) error {
		if partyID == "" {
			hint, ns, err := SplitUID(party)
			if err != nil {
				return fmt.Errorf("transaction %d: party: %w", i, err)
			}
			if ns != fp {
				return fmt.Errorf("transaction %d: party %s is in namespace %s, not in the namespace of your key (%s)", i, party, ns, fp)
			}
			partyID = hint + uidDelimiter + fp
		}
		if party != partyID {
			return fmt.Errorf("transaction %d: party is %s, want %s (hint::fingerprint of your key)", i, party, partyID)
		}
		return nil
	}
	checkKeys := func(i int, what string, keys []SigningKey, threshold uint32) error {
		if len(keys) != 1 {
			return fmt.Errorf("transaction %d: %s has %d signing keys, want exactly your key", i, what, len(keys))
		}
		if !keys[0].Ed25519.Equal(ed25519.PublicKey(expectedPublicKey)) {
			return fmt.Errorf("transaction %d: %s signing key %s is not your key %s", i, what, keys[0].Fingerprint, fp)
		}
		if threshold != 1 {
			return fmt.Errorf("transaction %d: %s signing threshold is %d, want 1", i, what, threshold)
		}
		return nil
	}

	var keySets, p2ps int
	for i, b := range txs {
		tx, err := Decode(b)
		if err != nil {
			return "", fmt.Errorf("transaction %d: %w", i, err)
		}
		if tx.Operation != OpAddReplace {
			return "", fmt.Errorf("transaction %d: operation is %s, want %s", i, tx.Operation, OpAddReplace)
		}
		m := tx.Mapping
		switch m.Kind {
		case KindNamespaceDelegation:
			d := m.NamespaceDelegation
			if d.Namespace != fp {
				return "", fmt.Errorf("transaction %d: namespace delegation is for namespace %s, not for your key's %s", i, d.Namespace, fp)
			}
			if !d.Target.Ed25519.Equal(ed25519.PublicKey(expectedPublicKey)) {
				return "", fmt.Errorf("transaction %d: namespace delegation hands your namespace to key %s, which is not your key", i, d.Target.Fingerprint)
			}
		case KindPartyToKeyMapping:
			k := m.PartyToKeyMapping
			if err := checkParty(i, k.Party); err != nil {
				return "", err
			}
			if err := checkKeys(i, "party-to-key mapping", k.Keys, k.Threshold); err != nil {
				return "", err
			}
			keySets++
		case KindPartyToParticipant:
			p := m.PartyToParticipant
			if err := checkParty(i, p.Party); err != nil {
				return "", err
			}
			if err := checkHosting(p); err != nil {
				return "", fmt.Errorf("transaction %d: %w", i, err)
			}
			if p.HasSigningKeys {
				if err := checkKeys(i, "party-to-participant", p.SigningKeys, p.SigningThreshold); err != nil {
					return "", err
				}
				keySets++
			}
			p2ps++
		default:
			return "", fmt.Errorf("transaction %d: a %s mapping has no place in onboarding an external party", i, m.Kind)
		}
	}
	if p2ps != 1 {
		return "", fmt.Errorf("found %d party-to-participant transactions, want exactly 1", p2ps)
	}
	if keySets != 1 {
		return "", fmt.Errorf("the party's signing keys are set %d times, want exactly once (in the party-to-participant or in a party-to-key mapping)", keySets)
	}
	return partyID, nil
}

// checkHosting applies Canton's rules for an external party's hosting.
func checkHosting(p *PartyToParticipant) error {
	confirmers := 0
	seen := map[string]bool{}
	for _, h := range p.Participants {
		if seen[h.ParticipantUID] {
			return fmt.Errorf("participant %s is listed twice", h.ParticipantUID)
		}
		seen[h.ParticipantUID] = true
		switch h.Permission {
		case PermissionSubmission:
			return fmt.Errorf("participant %s would get Submission permission, which an external party must not give", h.ParticipantUID)
		case PermissionConfirmation:
			confirmers++
		}
	}
	if confirmers == 0 {
		return fmt.Errorf("no hosting participant has Confirmation permission")
	}
	if p.Threshold < 1 || int(p.Threshold) > confirmers {
		return fmt.Errorf("confirmation threshold is %d with %d confirming participant(s)", p.Threshold, confirmers)
	}
	return nil
}

// VerifyMultiHash recomputes the multi-hash of serialized transactions and
// compares it with the one a node returned.
func VerifyMultiHash(txs [][]byte, multiHash []byte) error {
	hashes := make([][]byte, len(txs))
	for i, tx := range txs {
		hashes[i] = TransactionHash(tx)
	}
	if got := MultiHash(hashes); !bytes.Equal(got, multiHash) {
		return fmt.Errorf("multi-hash mismatch: the node sent %x, the transactions hash to %x", multiHash, got)
	}
	return nil
}
