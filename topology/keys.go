package topology

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"

	pb "github.com/ledger-cli/ledger/topology/topologypb"
)

// ed25519SPKIPrefix is the DER SubjectPublicKeyInfo header of an Ed25519 key
// (algorithm OID 1.3.101.112, 33-byte bit string); the raw key follows it.
var ed25519SPKIPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// Ed25519SPKI returns the DER SubjectPublicKeyInfo encoding of a raw Ed25519
// public key: the form Canton stores keys in (CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO).
func Ed25519SPKI(raw []byte) []byte {
	return append(bytes.Clone(ed25519SPKIPrefix), raw...)
}

// Ed25519FromSPKI returns the raw 32-byte key inside a DER SubjectPublicKeyInfo
// of an Ed25519 key, or an error if spki is anything else.
func Ed25519FromSPKI(spki []byte) (ed25519.PublicKey, error) {
	if len(spki) != len(ed25519SPKIPrefix)+ed25519.PublicKeySize || !bytes.HasPrefix(spki, ed25519SPKIPrefix) {
		return nil, fmt.Errorf("not a DER SubjectPublicKeyInfo of an Ed25519 key (want %d bytes starting %x, got %d bytes)",
			len(ed25519SPKIPrefix)+ed25519.PublicKeySize, ed25519SPKIPrefix, len(spki))
	}
	return ed25519.PublicKey(bytes.Clone(spki[len(ed25519SPKIPrefix):])), nil
}

// Ed25519FromAPI turns the publicKey of a JSON API request ({format, keyData,
// keySpec}, enum names with or without their CRYPTO_KEY_FORMAT_ /
// SIGNING_KEY_SPEC_ prefix) into a raw Ed25519 key. Canton accepts both the
// raw and the DER SubjectPublicKeyInfo format for Ed25519 and stores the
// latter; other key specs are not supported here.
func Ed25519FromAPI(format string, keyData []byte, keySpec string) (ed25519.PublicKey, error) {
	switch strings.TrimPrefix(keySpec, "SIGNING_KEY_SPEC_") {
	case "EC_CURVE25519":
	case "":
		return nil, fmt.Errorf("publicKey.keySpec is missing: set it to SIGNING_KEY_SPEC_EC_CURVE25519")
	default:
		return nil, fmt.Errorf("publicKey.keySpec %q is not supported: only SIGNING_KEY_SPEC_EC_CURVE25519 (Ed25519) keys are", keySpec)
	}
	switch strings.TrimPrefix(format, "CRYPTO_KEY_FORMAT_") {
	case "DER_X509_SUBJECT_PUBLIC_KEY_INFO":
		k, err := Ed25519FromSPKI(keyData)
		if err != nil {
			return nil, fmt.Errorf("publicKey.keyData: %w", err)
		}
		return k, nil
	case "RAW":
		if len(keyData) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("publicKey.keyData: a raw Ed25519 key has %d bytes, got %d", ed25519.PublicKeySize, len(keyData))
		}
		return ed25519.PublicKey(bytes.Clone(keyData)), nil
	case "":
		return nil, fmt.Errorf("publicKey.format is missing: use CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO or CRYPTO_KEY_FORMAT_RAW")
	default:
		return nil, fmt.Errorf("publicKey.format %q is not supported for Ed25519: use CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO or CRYPTO_KEY_FORMAT_RAW", format)
	}
}

// KeyFingerprintData returns the bytes Canton hashes for a key's fingerprint:
// the raw key for Ed25519 (also when carried as DER SPKI), the key bytes as
// carried for anything else.
func KeyFingerprintData(format pb.CryptoKeyFormat, spec pb.SigningKeySpec, key []byte) []byte {
	if spec == pb.SigningKeySpec_SIGNING_KEY_SPEC_EC_CURVE25519 && format == pb.CryptoKeyFormat_CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO {
		if raw, err := Ed25519FromSPKI(key); err == nil {
			return raw
		}
	}
	return key
}

// onboardingKey is the SigningPublicKey Canton's generate-topology puts in
// every transaction for the party's one key: DER SPKI, key spec Curve25519,
// usages namespace, proof-of-ownership and protocol in that order, scheme unset.
func onboardingKey(raw ed25519.PublicKey) *pb.SigningPublicKey {
	return &pb.SigningPublicKey{
		Format:    pb.CryptoKeyFormat_CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO,
		PublicKey: Ed25519SPKI(raw),
		Usage: []pb.SigningKeyUsage{
			pb.SigningKeyUsage_SIGNING_KEY_USAGE_NAMESPACE,
			pb.SigningKeyUsage_SIGNING_KEY_USAGE_PROOF_OF_OWNERSHIP,
			pb.SigningKeyUsage_SIGNING_KEY_USAGE_PROTOCOL,
		},
		KeySpec: pb.SigningKeySpec_SIGNING_KEY_SPEC_EC_CURVE25519,
	}
}
