package interp

import (
	"crypto/sha256"
	"encoding/asn1"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/ledger-cli/ledger/daml/value"
)

// The secp256k1 builtins, as Speedy's SBSECP256K1Bool,
// SBSECP256K1WithEcdsaBool and SBSECP256K1ValidateKey: arguments are
// lower-case hex; the public key is an X.509 SubjectPublicKeyInfo (DER) of
// an EC key on secp256k1, the signature a DER ECDSA signature, verified as
// BouncyCastle's NONEwithECDSA does (the message is the digest, truncated
// to 32 bytes). SECP256K1_BOOL hashes its message with SHA-256 first.
// The curve arithmetic is github.com/decred/dcrd/dcrec/secp256k1/v4 (pure
// Go).

var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidSecp256k1   = asn1.ObjectIdentifier{1, 3, 132, 0, 10}
)

type subjectPublicKeyInfo struct {
	Algorithm struct {
		Algorithm  asn1.ObjectIdentifier
		Parameters asn1.ObjectIdentifier
	}
	PublicKey asn1.BitString
}

// parsePublicKey reads a DER SubjectPublicKeyInfo of a secp256k1 key.
func parsePublicKey(der []byte) (*secp256k1.PublicKey, error) {
	var spki subjectPublicKeyInfo
	rest, err := asn1.Unmarshal(der, &spki)
	switch {
	case err != nil:
		return nil, fmt.Errorf("encoded key spec not recognized: %v", err)
	case len(rest) > 0:
		return nil, fmt.Errorf("encoded key spec not recognized: trailing data")
	case !spki.Algorithm.Algorithm.Equal(oidECPublicKey):
		return nil, fmt.Errorf("encoded key spec not recognized: not an EC key")
	case !spki.Algorithm.Parameters.Equal(oidSecp256k1):
		return nil, fmt.Errorf("encoded key spec not recognized: not a key on secp256k1")
	}
	pk, err := secp256k1.ParsePubKey(spki.PublicKey.RightAlign())
	if err != nil {
		return nil, fmt.Errorf("invalid point: not an encoding of a point of secp256k1")
	}
	return pk, nil
}

// secp256k1Verify is SECP256K1_BOOL (hash true) and
// SECP256K1_WITH_ECDSA_BOOL: signature, message, public key.
func (m *Machine) secp256k1Verify(args []value.Value, hash bool) {
	sigHex, msgHex, keyHex := string(args[0].(value.Text)), string(args[1].(value.Text)), string(args[2].(value.Text))
	msg, ok := decodeHex(msgHex)
	if !ok {
		m.fail(m.cryptoEncoding(msgHex, "can not parse message hex string"))
		return
	}
	if hash {
		sum := sha256.Sum256(msg)
		msg = sum[:]
	}
	sig, ok := decodeHex(sigHex)
	if !ok {
		m.fail(m.cryptoEncoding(sigHex, "can not parse signature hex string"))
		return
	}
	key, ok := m.publicKey(keyHex)
	if !ok {
		return
	}
	s, err := ecdsa.ParseDERSignature(sig)
	if err != nil {
		m.fail(m.newError(errCryptoSignature, fmt.Sprintf("%sMalformed signature for %s :\n%v", interpretationError, sigHex, err)))
		return
	}
	m.val = value.Bool(s.Verify(msg, key))
}

// secp256k1ValidateKey is SECP256K1_VALIDATE_KEY: whether a public key is
// a point of the curve (a key that does not parse is an error).
func (m *Machine) secp256k1ValidateKey(keyHex string) {
	if _, ok := m.publicKey(keyHex); ok {
		m.val = value.Bool(true)
	}
}

func (m *Machine) publicKey(keyHex string) (*secp256k1.PublicKey, bool) {
	der, ok := decodeHex(keyHex)
	if !ok {
		m.fail(m.cryptoEncoding(keyHex, "can not parse DER encoded public key hex string"))
		return nil, false
	}
	key, err := parsePublicKey(der)
	if err != nil {
		m.fail(m.newError(errCryptoKey, fmt.Sprintf("%sMalformed public key for %s :\n%v", interpretationError, keyHex, err)))
		return nil, false
	}
	return key, true
}

func (m *Machine) cryptoEncoding(s, cause string) *Error {
	return m.newError(errCryptoEncoding, interpretationError+"Invalid byte encoding format for "+s+" :\n"+cause)
}
