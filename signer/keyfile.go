package signer

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/scrypt"

	"github.com/ledger-cli/ledger/internal/atomicfile"
	"github.com/ledger-cli/ledger/internal/secretfile"
)

const (
	keyFileFormat  = "ledger-ed25519-key"
	keyFileVersion = 1
	kdfScrypt      = "scrypt"
	cipherXChaCha  = "xchacha20poly1305"
	saltSize       = 16
	// maxKeyFileSize bounds what ReadKeyFile reads; a real file is < 1 KiB.
	maxKeyFileSize = 64 << 10
)

// scryptLogN is log2 of the scrypt cost N for new files. Tests lower it.
var scryptLogN = 15

// ErrWrongPassphrase is returned when a key file does not decrypt: the
// passphrase is wrong or an encrypted or authenticated field was changed.
var ErrWrongPassphrase = errors.New("wrong passphrase or corrupted key file")

type kdfParams struct {
	Name string `json:"name"`
	N    int    `json:"N"`
	R    int    `json:"r"`
	P    int    `json:"p"`
	Salt []byte `json:"salt"`
}

// keyFileJSON is the on-disk form; see the package doc.
type keyFileJSON struct {
	Format      string     `json:"format"`
	Version     int        `json:"version"`
	Encrypted   *bool      `json:"encrypted"`
	PublicKey   []byte     `json:"publicKey"`
	Fingerprint string     `json:"fingerprint"`
	KDF         *kdfParams `json:"kdf,omitempty"`
	Cipher      string     `json:"cipher,omitempty"`
	Nonce       []byte     `json:"nonce,omitempty"`
	Ciphertext  []byte     `json:"ciphertext,omitempty"`
	Seed        []byte     `json:"seed,omitempty"`
}

// KeyFile is a parsed key file. Its public key can be read without the
// passphrase; Decrypt gives the Key.
type KeyFile struct {
	// Public is the public key stored in the clear. For an encrypted file it
	// is authenticated only by a successful Decrypt.
	Public PublicKey
	// Encrypted is false for files written with MarshalPlaintextKeyFile.
	Encrypted bool

	kdf        kdfParams
	nonce      []byte
	ciphertext []byte
	plain      *Key // unencrypted files only
}

// additionalData binds the clear public key to the ciphertext.
func additionalData(pub []byte) []byte {
	return append([]byte(keyFileFormat+"/v1"), pub...)
}

// MarshalKeyFile returns k as an encrypted key file: scrypt derives the file
// key from passphrase and XChaCha20-Poly1305 seals the seed.
func MarshalKeyFile(k *Key, passphrase []byte) ([]byte, error) {
	if len(passphrase) == 0 {
		return nil, errors.New("key file: the passphrase is empty")
	}
	kdf := kdfParams{Name: kdfScrypt, N: 1 << scryptLogN, R: 8, P: 1, Salt: make([]byte, saltSize)}
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := io.ReadFull(rand.Reader, kdf.Salt); err != nil {
		return nil, fmt.Errorf("key file: reading randomness: %w", err)
	}
	if _, err := io.ReadFull(rand.Reader, nonce); err != nil {
		return nil, fmt.Errorf("key file: reading randomness: %w", err)
	}
	aead, err := fileCipher(passphrase, kdf)
	if err != nil {
		return nil, err
	}
	pub := k.Public()
	encrypted := true
	return marshalIndent(keyFileJSON{
		Format:      keyFileFormat,
		Version:     keyFileVersion,
		Encrypted:   &encrypted,
		PublicKey:   pub.Raw(),
		Fingerprint: pub.Fingerprint(),
		KDF:         &kdf,
		Cipher:      cipherXChaCha,
		Nonce:       nonce,
		Ciphertext:  aead.Seal(nil, nonce, k.seed(), additionalData(pub.raw[:])),
	})
}

// MarshalPlaintextKeyFile returns k as an unencrypted key file. The seed is
// readable by anyone who can read the file: use it for tests only.
func MarshalPlaintextKeyFile(k *Key) []byte {
	pub := k.Public()
	encrypted := false
	b, _ := marshalIndent(keyFileJSON{
		Format:      keyFileFormat,
		Version:     keyFileVersion,
		Encrypted:   &encrypted,
		PublicKey:   pub.Raw(),
		Fingerprint: pub.Fingerprint(),
		Seed:        k.seed(),
	})
	return b
}

func marshalIndent(f keyFileJSON) ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	return append(b, '\n'), nil
}

// fileCipher derives the file key and returns the AEAD that uses it.
func fileCipher(passphrase []byte, kdf kdfParams) (interface {
	Seal(dst, nonce, plaintext, additionalData []byte) []byte
	Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error)
}, error) {
	key, err := scrypt.Key(passphrase, kdf.Salt, kdf.N, kdf.R, kdf.P, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("key file: scrypt: %w", err)
	}
	return chacha20poly1305.NewX(key)
}

// ParseKeyFile reads a key file's bytes. It checks the structure and the
// clear fields; it does not decrypt.
func ParseKeyFile(data []byte) (*KeyFile, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("key file is empty")
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(err, len(data))
	}
	switch head.Format {
	case keyFileFormat:
	case "":
		return nil, fmt.Errorf("not a ledger key file: it has no \"format\": %q (keys generate and keys import write key files)", keyFileFormat)
	default:
		return nil, fmt.Errorf("not a ledger key file: format is %q, want %q", head.Format, keyFileFormat)
	}
	if head.Version > keyFileVersion {
		return nil, fmt.Errorf("key file version %d is newer than this ledger supports; upgrade ledger", head.Version)
	}
	if head.Version != keyFileVersion {
		return nil, fmt.Errorf("key file: version %d is not valid; want %d", head.Version, keyFileVersion)
	}

	var f keyFileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(err, len(data))
	}
	if dec.More() {
		return nil, errors.New("key file: unexpected data after the JSON object")
	}
	if f.Encrypted == nil {
		return nil, errors.New("key file: field \"encrypted\" is missing")
	}
	pub, err := PublicKeyFromRaw(f.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("key file: field \"publicKey\": %w", err)
	}
	if fp := pub.Fingerprint(); f.Fingerprint != fp {
		return nil, fmt.Errorf("key file: field \"fingerprint\" is %q but publicKey's fingerprint is %s; the file was altered", f.Fingerprint, fp)
	}
	kf := &KeyFile{Public: pub, Encrypted: *f.Encrypted}
	if !kf.Encrypted {
		if f.KDF != nil || f.Cipher != "" || f.Nonce != nil || f.Ciphertext != nil {
			return nil, errors.New("key file: an unencrypted file must not have kdf, cipher, nonce or ciphertext")
		}
		if len(f.Seed) != SeedSize {
			return nil, fmt.Errorf("key file: field \"seed\" is %d bytes; want %d", len(f.Seed), SeedSize)
		}
		if kf.plain, err = FromSeed(f.Seed); err != nil {
			return nil, fmt.Errorf("key file: %w", err)
		}
		return kf, nil
	}
	if f.Seed != nil {
		return nil, errors.New("key file: an encrypted file must not have a seed field")
	}
	if f.KDF == nil {
		return nil, errors.New("key file: field \"kdf\" is missing")
	}
	if err := checkKDF(*f.KDF); err != nil {
		return nil, err
	}
	if f.Cipher != cipherXChaCha {
		return nil, fmt.Errorf("key file: cipher is %q; want %q", f.Cipher, cipherXChaCha)
	}
	if len(f.Nonce) != chacha20poly1305.NonceSizeX {
		return nil, fmt.Errorf("key file: field \"nonce\" is %d bytes; want %d", len(f.Nonce), chacha20poly1305.NonceSizeX)
	}
	if want := SeedSize + chacha20poly1305.Overhead; len(f.Ciphertext) != want {
		return nil, fmt.Errorf("key file: field \"ciphertext\" is %d bytes; want %d", len(f.Ciphertext), want)
	}
	kf.kdf, kf.nonce, kf.ciphertext = *f.KDF, f.Nonce, f.Ciphertext
	return kf, nil
}

// checkKDF bounds the work a file may ask for, so a crafted file cannot make
// the reader allocate gigabytes.
func checkKDF(k kdfParams) error {
	if k.Name != kdfScrypt {
		return fmt.Errorf("key file: kdf is %q; want %q", k.Name, kdfScrypt)
	}
	if k.N < 1<<10 || k.N > 1<<20 || k.N&(k.N-1) != 0 {
		return fmt.Errorf("key file: scrypt N is %d; want a power of two from 1024 to 1048576", k.N)
	}
	if k.R < 1 || k.R > 32 || k.P < 1 || k.P > 16 {
		return fmt.Errorf("key file: scrypt r=%d p=%d; want r from 1 to 32 and p from 1 to 16", k.R, k.P)
	}
	if k.N*k.R > 1<<21 || k.N*k.R*k.P > 1<<22 {
		return fmt.Errorf("key file: scrypt N=%d r=%d p=%d asks for more memory or time than ledger allows", k.N, k.R, k.P)
	}
	if len(k.Salt) < saltSize || len(k.Salt) > 64 {
		return fmt.Errorf("key file: scrypt salt is %d bytes; want 16 to 64", len(k.Salt))
	}
	return nil
}

// jsonError describes a decoding failure without quoting the input, which
// may hold a seed.
func jsonError(err error, size int) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.As(err, &syn) && syn.Offset >= int64(size):
		return errors.New("key file is truncated: the JSON ends early")
	case errors.As(err, &syn):
		return fmt.Errorf("key file is not valid JSON (at byte %d); it may be truncated or damaged", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("key file: field %q has the wrong type (%s)", typ.Field, typ.Value)
	}
	// Unknown fields and bad base64 name the field or offset, never the value.
	return fmt.Errorf("key file: %w", err)
}

// Decrypt returns the key, checking that it matches the clear public key.
// An unencrypted file ignores passphrase.
func (kf *KeyFile) Decrypt(passphrase []byte) (*Key, error) {
	k := kf.plain
	if kf.Encrypted {
		aead, err := fileCipher(passphrase, kf.kdf)
		if err != nil {
			return nil, err
		}
		seed, err := aead.Open(nil, kf.nonce, kf.ciphertext, additionalData(kf.Public.raw[:]))
		if err != nil {
			return nil, ErrWrongPassphrase
		}
		if k, err = FromSeed(seed); err != nil {
			return nil, fmt.Errorf("key file: %w", err)
		}
	}
	if subtle.ConstantTimeCompare(k.priv()[SeedSize:], kf.Public.raw[:]) != 1 {
		return nil, fmt.Errorf("key file: the private key does not match publicKey %s; the file was altered", kf.Public.Base64())
	}
	return k, nil
}

// ReadKeyFile reads and parses the key file at path. On unix it refuses a
// file that group or others may access.
func ReadKeyFile(path string) (*KeyFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("key file %s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("key file %s is larger than %d bytes; not a ledger key file", path, maxKeyFileSize)
	}
	// What the file is comes first: the permissions of a file that is no
	// key file are beside the point (and "chmod 600 iou.json" misleads).
	kf, err := ParseKeyFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := secretfile.CheckMode("key file", path, st.Mode()); err != nil {
		return nil, err
	}
	return kf, nil
}

// LoadKeyFile reads the key file at path and decrypts it. passphrase is
// called only when the file is encrypted.
func LoadKeyFile(path string, passphrase func() ([]byte, error)) (*Key, error) {
	kf, err := ReadKeyFile(path)
	if err != nil {
		return nil, err
	}
	var pass []byte
	if kf.Encrypted {
		if pass, err = passphrase(); err != nil {
			return nil, err
		}
	}
	k, err := kf.Decrypt(pass)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// WriteKeyFile writes data to path with mode 0600. Unless force is set it
// refuses to replace an existing file, with an error wrapping fs.ErrExist.
// With force the file is replaced atomically.
func WriteKeyFile(path string, data []byte, force bool) error {
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("key file %s already exists: %w", path, fs.ErrExist)
			}
			return fmt.Errorf("key file: %w", err)
		}
		if err := writeSync(f, data); err != nil {
			os.Remove(path)
			return fmt.Errorf("key file %s: %w", path, err)
		}
		return nil
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("key file %s: %w", path, err)
	}
	return nil
}

// writeSync writes, flushes to disk and closes f.
func writeSync(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
