package wallet

import (
	"fmt"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
)

// AddSignature records sig for party. A signature by the same key for the
// same party replaces the earlier one, so signing twice is harmless; other
// parties' and other keys' signatures are kept, so several signers can sign
// in turn.
func (e *Envelope) AddSignature(party string, sig ledgerapi.Signature) {
	for i := range e.PartySignatures.Signatures {
		ps := &e.PartySignatures.Signatures[i]
		if ps.Party != party {
			continue
		}
		for j := range ps.Signatures {
			if ps.Signatures[j].SignedBy == sig.SignedBy {
				ps.Signatures[j] = sig
				return
			}
		}
		ps.Signatures = append(ps.Signatures, sig)
		return
	}
	e.PartySignatures.Add(party, sig)
}

// SignatureCheck is the outcome of checking one signature in an envelope.
type SignatureCheck struct {
	Party    string
	SignedBy string
	// Err is nil when the signature verifies against the recomputed hash.
	Err error
}

// CheckSignatures verifies every signature in the envelope over hash, which
// must be the locally recomputed hash, never the node's. keys are the public
// keys the caller trusts; a signature whose signedBy matches none of them is
// reported as unverifiable.
func (e *Envelope) CheckSignatures(hash [32]byte, keys []signer.PublicKey) []SignatureCheck {
	byFingerprint := make(map[string]signer.PublicKey, len(keys))
	for _, k := range keys {
		byFingerprint[k.Fingerprint()] = k
	}
	var out []SignatureCheck
	for _, ps := range e.PartySignatures.Signatures {
		for _, sig := range ps.Signatures {
			c := SignatureCheck{Party: ps.Party, SignedBy: sig.SignedBy}
			if pub, ok := byFingerprint[sig.SignedBy]; ok {
				c.Err = signer.VerifyHash(pub, hash, sig.Signer())
			} else {
				c.Err = &UnknownKeyError{Fingerprint: sig.SignedBy}
			}
			out = append(out, c)
		}
	}
	return out
}

// UnknownKeyError is a signature made by a key the checker was not given.
type UnknownKeyError struct{ Fingerprint string }

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("no public key with fingerprint %s was given", e.Fingerprint)
}
