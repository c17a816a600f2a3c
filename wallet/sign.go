package wallet

import (
	"fmt"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
)

// HashMismatchError is the refusal to sign a transaction whose bytes do not
// hash to the node's preparedTransactionHash.
type HashMismatchError struct {
	Scheme     hashing.Scheme
	Recomputed [32]byte
	NodeHash   []byte
	// Diagnosis names the likely cause (another scheme, changed bytes).
	Diagnosis string
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("the prepared transaction does not hash to the node's preparedTransactionHash under %s", e.Scheme)
}

// DeadlinePassedError is the refusal to sign a transaction whose
// max_record_time has passed: the node would reject it.
type DeadlinePassedError struct{ MaxRecordTime time.Time }

func (e *DeadlinePassedError) Error() string {
	return fmt.Sprintf("max_record_time %s has passed: the node would reject this transaction", e.MaxRecordTime.Format(time.RFC3339))
}

// PolicyError lists what the transaction does outside a policy.
type PolicyError struct{ Violations []string }

func (e *PolicyError) Error() string {
	return "outside the policy:\n  " + strings.Join(e.Violations, "\n  ")
}

// CheckSignable runs every refusal that needs neither the key nor a person:
// the hash must be recomputed and equal the node's (CheckHash), the
// transaction must be what its Daml code makes when that was re-run (a
// *NotDamlCodeError), max_record_time must not have passed at now, and the
// transaction must keep within policy (nil: no policy).
func (rv *Reviewed) CheckSignable(now time.Time, policy *Policy) error {
	if err := rv.CheckHash(); err != nil {
		return err
	}
	if r := rv.Reinterpretation; r != nil && r.Difference != nil {
		return &NotDamlCodeError{Source: rv.Name, Difference: r.Difference}
	}
	if mrt := rv.Transaction.GetMetadata().MaxRecordTime; mrt != nil {
		deadline := time.UnixMicro(int64(*mrt)).UTC()
		if !now.Before(deadline) {
			return &DeadlinePassedError{MaxRecordTime: deadline}
		}
	}
	if policy != nil {
		v := policy.Check(rv.Review)
		if policy.RequireReinterpretation && rv.Reinterpretation == nil {
			v = append(v, "the policy requires re-running the Daml code before signing (requireReinterpretation), and no Daml packages were given")
		}
		if len(v) > 0 {
			return &PolicyError{Violations: v}
		}
	}
	return nil
}

// PartyError says why no party to sign for could be chosen.
type PartyError struct {
	// Party is the party asked for; "" when none was and act_as has
	// several.
	Party string
	ActAs []string
}

func (e *PartyError) Error() string {
	if e.Party == "" {
		return fmt.Sprintf("the transaction acts as %d parties (%s): choose the one to sign for", len(e.ActAs), strings.Join(e.ActAs, ", "))
	}
	return fmt.Sprintf("%s is not among the act_as parties (%s): the node ignores signatures of other parties", e.Party, strings.Join(e.ActAs, ", "))
}

// SigningParty picks the party to sign for: party, which must act in the
// transaction, or ("") the single act_as party.
func (rv *Reviewed) SigningParty(party string) (string, error) {
	actAs := rv.Transaction.GetMetadata().GetSubmitterInfo().GetActAs()
	if party == "" {
		if len(actAs) == 1 {
			return actAs[0], nil
		}
		return "", &PartyError{ActAs: actAs}
	}
	for _, p := range actAs {
		if p == party {
			return party, nil
		}
	}
	return "", &PartyError{Party: party, ActAs: actAs}
}

// ForeignKeyError says a key is not the namespace key of the party it
// would sign for. The node accepts such a signature only when the key is
// registered for the party (a party with several signing keys); an offline
// signer cannot see that registration, so a person must vouch for it.
type ForeignKeyError struct{ Party, Fingerprint string }

func (e *ForeignKeyError) Error() string {
	return fmt.Sprintf("key %s is not the namespace key of %s: the node rejects its signature unless the key is registered for the party", e.Fingerprint, e.Party)
}

// CheckKey refuses (a *ForeignKeyError) a key whose fingerprint is not the
// namespace of party: signing Alice's transaction with Bob's key yields a
// signature the node rejects at execute.
func CheckKey(party, fingerprint string) error {
	if _, ns, _ := strings.Cut(party, "::"); ns != fingerprint {
		return &ForeignKeyError{Party: party, Fingerprint: fingerprint}
	}
	return nil
}

// Sign signs the hash recomputed here (never the node's) with key and adds
// the signature for party to the envelope, which then names the scheme it
// was signed under.
func (rv *Reviewed) Sign(party string, key *signer.Key) ledgerapi.Signature {
	sig := ledgerapi.SignatureOf(key.SignHash(rv.Result.Hash))
	env := rv.Envelope
	env.AddSignature(party, sig)
	env.HashingSchemeVersion = rv.Scheme.String()
	if env.Info == nil {
		env.Info = &EnvelopeInfo{Format: EnvelopeFormat, Version: EnvelopeVersion}
	}
	return sig
}
