package wallet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
)

// The use cases of a prepared transaction share one pipeline:
//
//	read → recompute → review → check (hash, deadline, policy) → party → key → confirm → sign
//
// show stops after the review (Open), verify after the recomputation
// (Verify), sign --verify-only checks the signatures where sign would add
// one (Open, then VerifySignatures), and sign runs it all (Sign). The
// re-interpretation is in Open, so show, sign and sign --verify-only run
// it alike; Verify runs it once the hashes match.

// Source is where an envelope is read from: the file Path, or Stdin when
// Path is "-".
type Source struct {
	Path  string
	Stdin io.Reader
}

// Name is how the source is named in messages.
func (s Source) Name() string { return displayName(s.Path) }

// Read is the pipeline's first step: the envelope, in any of its forms.
func (s Source) Read() (*Envelope, error) { return ReadEnvelope(s.Path, s.Stdin) }

// OpenOptions steer Open.
type OpenOptions struct {
	// Now is when the review is made (time left to sign, deadlines).
	Now time.Time
	// Scheme is the scheme the caller was told to hash under (0: none). It
	// is used for a bare transaction, which names no scheme; an input that
	// names another is refused with a *SchemeConflictError.
	Scheme hashing.Scheme
	// RefuseBare refuses a bare base64 transaction (a *BareTransactionError):
	// without the node's hash there is nothing to sign against.
	RefuseBare bool
	// Dars are DAR files, directories of them, or package payload files
	// whose packages, with those the envelope carries, re-run the
	// transaction's Daml code (LoadPackages). With no package at all, the
	// review warns that its effects are the preparing node's word.
	Dars []string
}

// SchemeConflictError is Open's refusal of an input that names a scheme
// other than the one the caller was told to use.
type SchemeConflictError struct {
	Source       string
	Given, Named hashing.Scheme
}

func (e *SchemeConflictError) Error() string {
	return fmt.Sprintf("%s names %s, not %s", e.Source, e.Named, e.Given)
}

// BareTransactionError is the refusal to sign a bare base64 transaction.
type BareTransactionError struct{ Source string }

func (e *BareTransactionError) Error() string {
	return fmt.Sprintf("%s is a bare prepared transaction: sign needs the node's preparedTransactionHash and hashingSchemeVersion; give it the prepare response or the envelope from ledger prepare", e.Source)
}

// Open reads the envelope at src, recomputes its hash and reviews it at
// o.Now: what show displays and what sign decides on.
func Open(src Source, o OpenOptions) (*Reviewed, error) {
	name := src.Name()
	env, err := src.Read()
	if err != nil {
		return nil, err
	}
	if o.RefuseBare && env.Form == FormBase64 {
		return nil, &BareTransactionError{Source: src.Path}
	}
	scheme, err := schemeFor(env, name, o.Scheme)
	if err != nil {
		return nil, err
	}
	rv, err := ReviewEnvelope(env, scheme, o.Now)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rv.Name = name
	if err := rv.CheckDamlCode(o.Dars, o.Now); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rv, nil
}

// notReinterpreted is the review's warning when no package was at hand.
const notReinterpreted = "not re-interpreted: the effects shown are the preparing node's word, not checked against the Daml code; " +
	"give the transaction's Daml packages (its DARs, or an envelope prepared with its packages) to re-run the code before signing"

// CheckDamlCode is the pipeline's re-interpretation step (Open runs it;
// prepare --show too, once the packages are in the envelope): with the
// packages of the envelope and of dars, re-run the Daml code; when it makes
// exactly this transaction, with the hash to sign, the review is rebuilt
// from what it made (at now); either way the review says what was found,
// and Reinterpretation holds it. Without any package the review warns that
// its effects are the preparing node's word.
func (rv *Reviewed) CheckDamlCode(dars []string, now time.Time) error {
	ps, err := LoadPackages(rv.Envelope, dars)
	if err != nil {
		return err
	}
	if ps.Empty() {
		rv.Review.Warnings = append(rv.Review.Warnings, notReinterpreted)
		return nil
	}
	r, err := Reinterpret(context.Background(), rv.Transaction, ps, rv.Scheme)
	if err != nil {
		return err
	}
	if rv.Result != nil {
		r.checkHash(rv.Result.Hash)
	}
	rv.Reinterpretation = r
	if r.Matches() && rv.Result != nil {
		if err := rv.summarize(r.Transaction, now); err != nil {
			return err
		}
	}
	rv.Review.Reinterpreted = r.reviewOf()
	if w := r.fromThePreparingNode(); w != "" {
		rv.Review.Warnings = append(rv.Review.Warnings, w)
	}
	return nil
}

// schemeFor is the scheme to hash env under: given for a bare transaction,
// else the one env names, which given may not contradict.
func schemeFor(env *Envelope, name string, given hashing.Scheme) (hashing.Scheme, error) {
	if given != 0 && env.HashingSchemeVersion == "" {
		return given, nil
	}
	scheme, err := env.Scheme()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if given != 0 && given != scheme {
		return 0, &SchemeConflictError{Source: name, Given: given, Named: scheme}
	}
	return scheme, nil
}

// VerifyRequest steers Verify.
type VerifyRequest struct {
	// Scheme hashes under this scheme instead of the one the input names.
	Scheme hashing.Scheme
	// Trace records the preimages, to locate a mismatch.
	Trace bool
	// Dars give packages to re-run the Daml code with, beside the
	// envelope's (OpenOptions.Dars); with none at all, only the hash is
	// checked.
	Dars []string
	// Keys gives the public keys to check the envelope's signatures
	// against. It is asked only when the hashes match and the envelope
	// carries signatures; nil checks none.
	Keys func() ([]signer.PublicKey, error)
}

// Verification is Verify's outcome.
type Verification struct {
	Envelope *Envelope
	Check    *HashCheck
	// Signatures are the checks of every signature against the recomputed
	// hash, when the hashes match and keys were given.
	Signatures []SignatureCheck
	// Reinterpretation is the outcome of re-running the Daml code, when
	// the hashes match and packages were at hand; nil otherwise.
	Reinterpretation *Reinterpretation
}

// Verify reads the envelope at src, recomputes its hash and compares it
// with the node's, then checks its signatures against req.Keys.
func Verify(src Source, req VerifyRequest) (*Verification, error) {
	env, err := src.Read()
	if err != nil {
		return nil, err
	}
	check, err := env.Verify(req.Scheme, req.Trace)
	if errors.Is(err, ErrNoNodeHash) {
		return nil, fmt.Errorf("%s: %w", src.Path, err)
	}
	if err != nil {
		return nil, err
	}
	v := &Verification{Envelope: env, Check: check}
	if check.Match {
		if v.Reinterpretation, err = reinterpretEnvelope(env, req.Dars, check); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Name(), err)
		}
	}
	if check.Match && req.Keys != nil && len(env.PartySignatures.Signatures) > 0 {
		keys, err := req.Keys()
		if err != nil {
			return nil, err
		}
		v.Signatures = env.CheckSignatures(check.Recomputed, keys)
	}
	return v, nil
}

// reinterpretEnvelope re-runs the Daml code of env's transaction with the
// packages of env and dars, its hash to be the one check recomputed; nil
// when there is no package.
func reinterpretEnvelope(env *Envelope, dars []string, check *HashCheck) (*Reinterpretation, error) {
	ps, err := LoadPackages(env, dars)
	if err != nil || ps.Empty() {
		return nil, err
	}
	raw, err := env.Raw()
	if err != nil {
		return nil, err
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		return nil, fmt.Errorf("preparedTransaction does not decode as a PreparedTransaction: %w", err)
	}
	r, err := Reinterpret(context.Background(), &pt, ps, check.Scheme)
	if err != nil {
		return nil, err
	}
	r.checkHash(check.Recomputed)
	return r, nil
}

// CheckHash refuses a review whose hash was not recomputed or differs from
// the node's (a *HashMismatchError): the first refusal of sign.
func (rv *Reviewed) CheckHash() error {
	switch {
	case rv.HashErr != nil:
		return fmt.Errorf("%s: %w", rv.Name, rv.HashErr)
	case rv.NodeHash == nil:
		return fmt.Errorf("%s has no preparedTransactionHash: the node's hash is needed to make sure the file was not changed", rv.Name)
	case !rv.MatchesNode():
		return &HashMismatchError{Scheme: rv.Scheme, Recomputed: rv.Result.Hash, NodeHash: rv.NodeHash, Diagnosis: rv.Mismatch()}
	}
	return nil
}

// VerifySignatures checks every signature of the envelope against the hash
// recomputed here, once it is known to be the node's, with keys.
func (rv *Reviewed) VerifySignatures(keys []signer.PublicKey) ([]SignatureCheck, error) {
	if err := rv.CheckHash(); err != nil {
		return nil, err
	}
	return rv.Envelope.CheckSignatures(rv.Result.Hash, keys), nil
}

// SignRequest is what Sign needs beyond the envelope.
type SignRequest struct {
	Now    time.Time
	Policy *Policy // nil: no policy
	// Party is the party to sign for ("": the single act_as party).
	Party string
	// KeyFile is the key file to sign with; its public half is checked
	// before anything is asked.
	KeyFile string
	// AllowForeignKey signs with a key that is not the party's namespace
	// key; Confirm then gets the *ForeignKeyError as a warning.
	AllowForeignKey bool
	// Dars give packages to re-run the Daml code with, beside the
	// envelope's (OpenOptions.Dars).
	Dars []string
	// Confirm is asked once every refusal has passed; an error stops
	// signing. nil confirms.
	Confirm func(*Confirmation) error
	// Passphrase is asked, after Confirm, only when the key file is
	// encrypted.
	Passphrase func() ([]byte, error)
}

// Confirmation is what a person is asked to confirm before signing.
type Confirmation struct {
	Reviewed    *Reviewed
	Party       string
	Fingerprint string
	// KeyWarning is the *ForeignKeyError of a key allowed anyway; nil when
	// the key is the party's namespace key.
	KeyWarning error
}

// Signed is Sign's outcome: the envelope (rv.Envelope) now carries the
// signature.
type Signed struct {
	Reviewed    *Reviewed
	Party       string
	Fingerprint string
	Signature   ledgerapi.Signature
}

// Sign is the signing use case in one call: read the envelope at src,
// recompute its hash, review it, refuse what must not be signed (the hash,
// the deadline, the policy, the party, the key), ask for confirmation,
// open the key and sign the recomputed hash. Refusals are the typed errors
// of this package (*HashMismatchError, *DeadlinePassedError, *PolicyError,
// *PartyError, *ForeignKeyError, *BareTransactionError, *NotDamlCodeError,
// *MissingPackagesError, *PackageError).
func Sign(src Source, req SignRequest) (*Signed, error) {
	rv, err := Open(src, OpenOptions{Now: req.Now, RefuseBare: true, Dars: req.Dars})
	if err != nil {
		return nil, err
	}
	if err := rv.CheckSignable(req.Now, req.Policy); err != nil {
		return nil, err
	}
	party, err := rv.SigningParty(req.Party)
	if err != nil {
		return nil, err
	}
	// The public half is in the clear: the key is checked and named in the
	// question before any passphrase is asked for.
	kf, err := signer.ReadKeyFile(req.KeyFile)
	if err != nil {
		return nil, err
	}
	fingerprint := kf.Public.Fingerprint()
	keyErr := CheckKey(party, fingerprint)
	if keyErr != nil && !req.AllowForeignKey {
		return nil, keyErr
	}
	if req.Confirm != nil {
		if err := req.Confirm(&Confirmation{Reviewed: rv, Party: party, Fingerprint: fingerprint, KeyWarning: keyErr}); err != nil {
			return nil, err
		}
	}
	key, err := openKey(kf, req.KeyFile, req.Passphrase)
	if err != nil {
		return nil, err
	}
	sig := rv.Sign(party, key)
	return &Signed{Reviewed: rv, Party: party, Fingerprint: fingerprint, Signature: sig}, nil
}

// openKey decrypts kf (read from path), asking passphrase when it is
// encrypted, and refuses a private key that is not the public one beside it.
func openKey(kf *signer.KeyFile, path string, passphrase func() ([]byte, error)) (*signer.Key, error) {
	var pass []byte
	if kf.Encrypted {
		if passphrase == nil {
			return nil, fmt.Errorf("%s is encrypted and no passphrase was given", path)
		}
		var err error
		if pass, err = passphrase(); err != nil {
			return nil, err
		}
	}
	key, err := kf.Decrypt(pass)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if key.Fingerprint() != kf.Public.Fingerprint() {
		return nil, fmt.Errorf("%s: the private key does not match the public key stored beside it", path)
	}
	return key, nil
}
