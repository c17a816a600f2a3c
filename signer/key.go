package signer

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// KeySpec is Canton's name for the ed25519 signing key spec.
const KeySpec = "SIGNING_KEY_SPEC_EC_CURVE25519"

// SeedSize is the size of an ed25519 seed, the secret a Key is made from.
const SeedSize = ed25519.SeedSize

// spkiPrefix is the DER SubjectPublicKeyInfo of an ed25519 key up to the
// 32 raw key bytes (RFC 8410).
var spkiPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// fingerprintPurpose is Canton's hash purpose for public key fingerprints.
var fingerprintPurpose = []byte{0, 0, 0, 12}

// Fingerprint returns Canton's fingerprint of key data: "1220" followed by
// the lower-case hex SHA-256 of 00 00 00 0C ‖ data. For ed25519, data is the
// raw 32-byte public key.
func Fingerprint(data []byte) string {
	h := sha256.New()
	h.Write(fingerprintPurpose)
	h.Write(data)
	return "1220" + hex.EncodeToString(h.Sum(nil))
}

// PublicKey is an ed25519 public key.
type PublicKey struct {
	raw [ed25519.PublicKeySize]byte
}

// Raw returns the 32 raw key bytes.
func (p PublicKey) Raw() []byte { return bytes.Clone(p.raw[:]) }

// Base64 returns the raw key in standard padded base64.
func (p PublicKey) Base64() string { return base64.StdEncoding.EncodeToString(p.raw[:]) }

// Hex returns the raw key in lower-case hex.
func (p PublicKey) Hex() string { return hex.EncodeToString(p.raw[:]) }

// SPKIDER returns the key as a DER SubjectPublicKeyInfo (44 bytes).
func (p PublicKey) SPKIDER() []byte { return append(bytes.Clone(spkiPrefix), p.raw[:]...) }

// SPKIPEM returns the key as a "PUBLIC KEY" PEM block.
func (p PublicKey) SPKIPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: p.SPKIDER()}))
}

// Fingerprint returns the key's Canton fingerprint, "1220…".
func (p PublicKey) Fingerprint() string { return Fingerprint(p.raw[:]) }

// String returns the raw key in base64.
func (p PublicKey) String() string { return p.Base64() }

// PublicKeyFromRaw returns the public key with the given 32 raw bytes.
func PublicKeyFromRaw(raw []byte) (PublicKey, error) {
	var p PublicKey
	if len(raw) != ed25519.PublicKeySize {
		return p, fmt.Errorf("public key is %d bytes; an ed25519 public key is %d", len(raw), ed25519.PublicKeySize)
	}
	copy(p.raw[:], raw)
	return p, nil
}

// ParsePublicKey reads an ed25519 public key given as the raw 32 bytes in
// hex or base64, a DER SubjectPublicKeyInfo in hex or base64, or a
// "PUBLIC KEY" PEM block. Surrounding white space is ignored.
func ParsePublicKey(text string) (PublicKey, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "-----BEGIN") {
		block, rest := pem.Decode([]byte(text))
		if block == nil {
			return PublicKey{}, errors.New("public key: malformed PEM block")
		}
		if len(bytes.TrimSpace(rest)) != 0 {
			return PublicKey{}, errors.New("public key: unexpected text after the PEM block")
		}
		if block.Type != "PUBLIC KEY" {
			return PublicKey{}, fmt.Errorf("public key: PEM block is %q; want \"PUBLIC KEY\"", block.Type)
		}
		return ParseSPKI(block.Bytes)
	}
	raw, err := decodeBinary(text)
	if err != nil {
		return PublicKey{}, fmt.Errorf("public key: %w", err)
	}
	switch len(raw) {
	case ed25519.PublicKeySize:
		return PublicKeyFromRaw(raw)
	case len(spkiPrefix) + ed25519.PublicKeySize:
		return ParseSPKI(raw)
	}
	return PublicKey{}, fmt.Errorf("public key is %d bytes; want 32 raw bytes or a 44-byte SubjectPublicKeyInfo", len(raw))
}

// ParseSPKI reads a DER SubjectPublicKeyInfo that must hold an ed25519 key
// (RFC 8410): the form Canton stores keys in
// (CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO).
func ParseSPKI(der []byte) (PublicKey, error) {
	if len(der) == len(spkiPrefix)+ed25519.PublicKeySize && bytes.HasPrefix(der, spkiPrefix) {
		return PublicKeyFromRaw(der[len(spkiPrefix):])
	}
	// Name the algorithm when the input is some other kind of key.
	if k, err := x509.ParsePKIXPublicKey(der); err == nil {
		return PublicKey{}, fmt.Errorf("public key: SubjectPublicKeyInfo holds an %s key, not ed25519", keyKind(k))
	}
	return PublicKey{}, errors.New("public key: not an ed25519 SubjectPublicKeyInfo")
}

// keyKind names the type of a key returned by crypto/x509 without showing it.
func keyKind(k any) string {
	s := fmt.Sprintf("%T", k)
	s = strings.TrimPrefix(s, "*")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	return strings.ToUpper(s)
}

// decodeBinary decodes hex (an even number of hex digits, optional 0x) or
// else base64 (standard or URL alphabet, padded or not). Its errors never quote
// the input, which may be a secret.
func decodeBinary(text string) ([]byte, error) {
	if text == "" {
		return nil, errors.New("empty input")
	}
	// Text of hex digits only is hex: no key-sized base64 looks like that
	// (padded forms end in '=', unpadded 32-byte ones have odd length).
	h := strings.TrimPrefix(strings.TrimPrefix(text, "0x"), "0X")
	if isHex(h) && len(h)%2 == 0 {
		b, err := hex.DecodeString(h)
		if err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(text); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not valid hex or base64")
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Key is an ed25519 private key. Printing it in any way shows only its
// fingerprint. Make one with Generate, FromSeed, FromNaClSecret,
// ParsePKCS8PEM, ParsePrivate or LoadKeyFile; the zero Key cannot sign.
type Key struct {
	// The secret sits behind a pointer because fmt prints an unexported
	// pointer field of an enclosing struct as an address, never following
	// it, while it would print an unexported slice field byte by byte.
	s *secret
}

type secret struct{ priv ed25519.PrivateKey }

func (k Key) priv() ed25519.PrivateKey {
	if k.s == nil {
		return nil
	}
	return k.s.priv
}

// Generate makes a new key from 32 bytes of rand, or of crypto/rand when
// rand is nil.
func Generate(random io.Reader) (*Key, error) {
	if random == nil {
		random = rand.Reader
	}
	seed := make([]byte, SeedSize)
	if _, err := io.ReadFull(random, seed); err != nil {
		return nil, fmt.Errorf("generate key: reading randomness: %w", err)
	}
	return FromSeed(seed)
}

// FromSeed returns the key with the given 32-byte RFC 8032 seed.
func FromSeed(seed []byte) (*Key, error) {
	if len(seed) != SeedSize {
		return nil, fmt.Errorf("seed is %d bytes; an ed25519 seed is %d", len(seed), SeedSize)
	}
	return &Key{s: &secret{priv: ed25519.NewKeyFromSeed(seed)}}, nil
}

// FromNaClSecret returns the key in a 64-byte NaCl secret key, seed ‖
// public key. It fails when the public half does not belong to the seed.
func FromNaClSecret(secret []byte) (*Key, error) {
	if len(secret) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("NaCl secret key is %d bytes; want %d (seed ‖ public key)", len(secret), ed25519.PrivateKeySize)
	}
	k, err := FromSeed(secret[:SeedSize])
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(k.priv()[SeedSize:], secret[SeedSize:]) != 1 {
		return nil, errors.New("NaCl secret key: its public half does not belong to its seed (corrupted, or not an ed25519 secret key)")
	}
	return k, nil
}

// ParsePKCS8PEM reads an unencrypted PKCS#8 "PRIVATE KEY" PEM block holding
// an ed25519 key, as `openssl genpkey -algorithm ed25519` writes it.
func ParsePKCS8PEM(data []byte) (*Key, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, errors.New("private key: no PEM block found")
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, errors.New("private key: unexpected text after the PEM block")
	}
	switch block.Type {
	case "PRIVATE KEY":
	case "ENCRYPTED PRIVATE KEY":
		return nil, errors.New("private key: encrypted PKCS#8 is not supported; decrypt it first (openssl pkey)")
	default:
		return nil, fmt.Errorf("private key: PEM block is %q; want \"PRIVATE KEY\" (PKCS#8)", block.Type)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		// The parser's error describes structure only, never key bytes.
		return nil, fmt.Errorf("private key: not a valid PKCS#8 key: %w", err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("private key: PKCS#8 holds an %s key, not ed25519", keyKind(k))
	}
	return FromSeed(priv.Seed())
}

// ParsePrivate reads a private key given as a PKCS#8 PEM block, or as a
// 32-byte seed or 64-byte NaCl secret key in hex or base64. Text made of
// an even number of hex digits (optionally after 0x) is read as hex, any
// other as base64. Surrounding white space is ignored. Errors never quote
// the input.
func ParsePrivate(text string) (*Key, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "-----BEGIN") {
		return ParsePKCS8PEM([]byte(text))
	}
	raw, err := decodeBinary(text)
	if err != nil {
		return nil, fmt.Errorf("private key: %w; want a PKCS#8 PEM block, or a 32-byte seed or 64-byte NaCl secret key in hex or base64", err)
	}
	switch len(raw) {
	case SeedSize:
		return FromSeed(raw)
	case ed25519.PrivateKeySize:
		return FromNaClSecret(raw)
	}
	return nil, fmt.Errorf("private key is %d bytes; want a 32-byte seed or a 64-byte NaCl secret key", len(raw))
}

// Public returns the key's public half.
func (k *Key) Public() PublicKey {
	var p PublicKey
	copy(p.raw[:], k.priv()[SeedSize:])
	return p
}

// Fingerprint returns the Canton fingerprint of the key's public half.
func (k *Key) Fingerprint() string { return k.Public().Fingerprint() }

// seed returns the secret; only the key-file writer needs it.
func (k *Key) seed() []byte { return k.priv().Seed() }

// String shows the fingerprint only.
func (k Key) String() string {
	if len(k.priv()) != ed25519.PrivateKeySize {
		return "ed25519 key (empty)"
	}
	return "ed25519 key " + Fingerprint(k.priv()[SeedSize:])
}

// GoString shows the fingerprint only.
func (k Key) GoString() string { return "signer.Key{" + k.String() + "}" }

// Format prints the fingerprint only, whatever the verb, so that %x or %#v
// cannot reveal the secret.
func (k Key) Format(s fmt.State, verb rune) {
	if verb == 'v' && s.Flag('#') {
		io.WriteString(s, k.GoString())
		return
	}
	io.WriteString(s, k.String())
}

// LogValue keeps the secret out of log/slog output.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.String()) }
