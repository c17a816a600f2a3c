package signer

import (
	"crypto/ed25519"
	"errors"
	"fmt"
)

// Values of the signature fields of Canton's JSON API for ed25519.
const (
	SignatureFormatConcat = "SIGNATURE_FORMAT_CONCAT"
	// SignatureFormatRaw is the legacy format name Canton still accepts for
	// ed25519 and treats as CONCAT; VerifyHash accepts it too.
	SignatureFormatRaw          = "SIGNATURE_FORMAT_RAW"
	SigningAlgorithmSpecEd25519 = "SIGNING_ALGORITHM_SPEC_ED25519"
)

// ErrBadSignature is returned by VerifyHash when the signature is well
// formed but does not verify.
var ErrBadSignature = errors.New("signature does not verify")

// Signature is one signature over a hash, its fields named and spelt as
// Canton's JSON API names them, so that it encodes as the wire form. The
// wire type, which checks the enum names it reads, is ledgerapi.Signature
// (ledgerapi.SignatureOf converts); this one keeps the key code standing on
// nothing of ours. Signature holds the 64 bytes R ‖ S.
type Signature struct {
	Format               string `json:"format"`
	Signature            []byte `json:"signature"`
	SignedBy             string `json:"signedBy"`
	SigningAlgorithmSpec string `json:"signingAlgorithmSpec"`
}

// SignHash signs the 32 bytes of a prepared-transaction hash with pure
// ed25519.
func (k *Key) SignHash(hash [32]byte) Signature {
	return Signature{
		Format:               SignatureFormatConcat,
		Signature:            ed25519.Sign(k.priv(), hash[:]),
		SignedBy:             k.Fingerprint(),
		SigningAlgorithmSpec: SigningAlgorithmSpecEd25519,
	}
}

// VerifyHash checks that sig is pub's ed25519 signature of hash and that its
// signedBy is pub's fingerprint.
func VerifyHash(pub PublicKey, hash [32]byte, sig Signature) error {
	switch sig.Format {
	case SignatureFormatConcat, SignatureFormatRaw:
	default:
		return fmt.Errorf("signature format is %q; an ed25519 signature has format %s", sig.Format, SignatureFormatConcat)
	}
	if sig.SigningAlgorithmSpec != SigningAlgorithmSpecEd25519 {
		return fmt.Errorf("signingAlgorithmSpec is %q; want %s", sig.SigningAlgorithmSpec, SigningAlgorithmSpecEd25519)
	}
	if len(sig.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("signature is %d bytes; an ed25519 signature is %d", len(sig.Signature), ed25519.SignatureSize)
	}
	if fp := pub.Fingerprint(); sig.SignedBy != fp {
		return fmt.Errorf("signature is signedBy %q but the public key's fingerprint is %s", sig.SignedBy, fp)
	}
	if !ed25519.Verify(pub.raw[:], hash[:], sig.Signature) {
		return fmt.Errorf("%w with key %s", ErrBadSignature, pub.Fingerprint())
	}
	return nil
}

// SignMultiHash signs a topology multi-hash (34 bytes: the 12 20 multihash
// header and a SHA-256 digest), the bytes an external party signs to onboard
// with generate-topology and allocate. Unlike a prepared-transaction hash,
// the header is signed too.
func (k *Key) SignMultiHash(multiHash []byte) (Signature, error) {
	if len(multiHash) != 34 || multiHash[0] != 0x12 || multiHash[1] != 0x20 {
		return Signature{}, fmt.Errorf("multi-hash must be 34 bytes starting with 12 20, got %d bytes", len(multiHash))
	}
	return Signature{
		Format:               SignatureFormatConcat,
		Signature:            ed25519.Sign(k.priv(), multiHash),
		SignedBy:             k.Fingerprint(),
		SigningAlgorithmSpec: SigningAlgorithmSpecEd25519,
	}, nil
}
