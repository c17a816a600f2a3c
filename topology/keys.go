package topology

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/signer"
	pb "github.com/ledger-cli/ledger/topology/topologypb"
)

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
		k, err := signer.ParseSPKI(keyData)
		if err != nil {
			return nil, fmt.Errorf("publicKey.keyData: %w", err)
		}
		return k.Raw(), nil
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
		if k, err := signer.ParseSPKI(key); err == nil {
			return k.Raw()
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
		PublicKey: spki(raw),
		Usage: []pb.SigningKeyUsage{
			pb.SigningKeyUsage_SIGNING_KEY_USAGE_NAMESPACE,
			pb.SigningKeyUsage_SIGNING_KEY_USAGE_PROOF_OF_OWNERSHIP,
			pb.SigningKeyUsage_SIGNING_KEY_USAGE_PROTOCOL,
		},
		KeySpec: pb.SigningKeySpec_SIGNING_KEY_SPEC_EC_CURVE25519,
	}
}

// spki is the DER SubjectPublicKeyInfo of a raw Ed25519 key.
func spki(raw ed25519.PublicKey) []byte {
	k, err := signer.PublicKeyFromRaw(raw)
	if err != nil {
		panic("topology: an ed25519.PublicKey that is not 32 bytes: " + err.Error())
	}
	return k.SPKIDER()
}
