package signer

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	scryptLogN = 10 // keep tests fast; readers accept 2^10
	os.Exit(m.Run())
}

// vector is one expectation from testdata/vectors: an optional seed, the
// public key in some accepted text form, its fingerprint, and optionally a
// hash with its signature.
type vector struct {
	name        string
	seedHex     string
	publicKey   string
	fingerprint string
	hashHex     string
	sigBase64   string
}

const vectorDir = "../testdata/vectors"

func loadVectors(t *testing.T) []vector {
	t.Helper()
	var vs []vector

	var fps struct {
		Vectors []struct {
			Source              string `json:"source"`
			PublicKeyRawB64     string `json:"public_key_raw_b64"`
			PublicKeyRawHex     string `json:"public_key_raw_hex"`
			PublicKeyDERSPKIHex string `json:"public_key_der_spki_hex"`
			ExpectedFingerprint string `json:"expected_fingerprint"`
		} `json:"vectors"`
	}
	readJSON(t, filepath.Join(vectorDir, "fingerprints/fingerprints.json"), &fps)
	for i, v := range fps.Vectors {
		pub := v.PublicKeyRawB64 + v.PublicKeyRawHex + v.PublicKeyDERSPKIHex
		vs = append(vs, vector{name: fmt.Sprintf("fingerprints/%d", i), publicKey: pub, fingerprint: v.ExpectedFingerprint})
	}

	var ex struct {
		SeedHex    string `json:"seed_hex"`
		RawHex     string `json:"public_key_raw_hex"`
		SPKIHex    string `json:"public_key_der_spki_hex"`
		SPKIB64    string `json:"public_key_der_spki_b64"`
		FP         string `json:"fingerprint"`
		Signatures []struct {
			Vector  string `json:"vector"`
			MsgHex  string `json:"message_hex"`
			MsgB64  string `json:"message_b64"`
			SigHex  string `json:"signature_hex"`
			SigB64  string `json:"signature_b64"`
			Version string `json:"hashing_scheme_version"`
		} `json:"signatures"`
		Fields map[string]string `json:"execute_signature_fields"`
	}
	readJSON(t, filepath.Join(vectorDir, "fingerprints/ed25519_sign_example.json"), &ex)
	if ex.Fields["signedBy"] != ex.FP || ex.Fields["format"] != string(SignatureFormatConcat) || ex.Fields["signingAlgorithmSpec"] != string(SigningAlgorithmSpecEd25519) {
		t.Fatalf("ed25519_sign_example.json execute_signature_fields = %v; constants disagree", ex.Fields)
	}
	for _, pub := range []string{ex.RawHex, ex.SPKIHex, ex.SPKIB64} {
		vs = append(vs, vector{name: "sign_example/public", seedHex: ex.SeedHex, publicKey: pub, fingerprint: ex.FP})
	}
	for _, s := range ex.Signatures {
		if mustHex(t, s.MsgHex) == nil || base64.StdEncoding.EncodeToString(mustHex(t, s.MsgHex)) != s.MsgB64 ||
			base64.StdEncoding.EncodeToString(mustHex(t, s.SigHex)) != s.SigB64 {
			t.Fatalf("sign example %s: hex and base64 forms disagree", s.Vector)
		}
		vs = append(vs, vector{name: "sign_example/" + s.Vector, seedHex: ex.SeedHex, publicKey: ex.RawHex,
			fingerprint: ex.FP, hashHex: s.MsgHex, sigBase64: s.SigB64})
	}

	cols := strings.Fields(readFile(t, filepath.Join(vectorDir, "npm-peers/sign-ed25519.columns")))
	want := []string{"seed_hex", "public_key_hex", "fingerprint", "hash_hex", "signature_hex", "signature_base64"}
	if strings.Join(cols, ",") != strings.Join(want, ",") {
		t.Fatalf("sign-ed25519.columns = %v; want %v", cols, want)
	}
	sc := bufio.NewScanner(strings.NewReader(readFile(t, filepath.Join(vectorDir, "npm-peers/sign-ed25519.tsv"))))
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != len(want) {
			t.Fatalf("sign-ed25519.tsv line %d has %d columns; want %d", line, len(f), len(want))
		}
		if base64.StdEncoding.EncodeToString(mustHex(t, f[4])) != f[5] {
			t.Fatalf("sign-ed25519.tsv line %d: signature hex and base64 disagree", line)
		}
		vs = append(vs, vector{name: fmt.Sprintf("sign-ed25519.tsv/%d", line), seedHex: f[0], publicKey: f[1],
			fingerprint: f[2], hashHex: f[3], sigBase64: f[5]})
	}
	if len(vs) < 20 {
		t.Fatalf("only %d vectors loaded", len(vs))
	}
	return vs
}

// TestVectors runs every fingerprint and signing vector of testdata/vectors.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			pub, err := ParsePublicKey(v.publicKey)
			if err != nil {
				t.Fatalf("ParsePublicKey: %v", err)
			}
			if got := pub.Fingerprint(); got != v.fingerprint {
				t.Fatalf("fingerprint = %s; want %s", got, v.fingerprint)
			}
			if got := Fingerprint(pub.Raw()); got != v.fingerprint {
				t.Fatalf("Fingerprint(raw) = %s; want %s", got, v.fingerprint)
			}
			if v.seedHex == "" {
				return
			}
			k, err := FromSeed(mustHex(t, v.seedHex))
			if err != nil {
				t.Fatal(err)
			}
			if k.Public() != pub || k.Fingerprint() != v.fingerprint {
				t.Fatalf("key from seed has public key %s; want %s", k.Public().Hex(), pub.Hex())
			}
			if v.hashHex == "" {
				return
			}
			var hash [32]byte
			if n := copy(hash[:], mustHex(t, v.hashHex)); n != 32 {
				t.Fatalf("hash is %d bytes", n)
			}
			sig := k.SignHash(hash)
			got, _ := json.Marshal(sig)
			want := fmt.Sprintf(`{"format":"SIGNATURE_FORMAT_CONCAT","signature":%q,"signedBy":%q,"signingAlgorithmSpec":"SIGNING_ALGORITHM_SPEC_ED25519"}`,
				v.sigBase64, v.fingerprint)
			if string(got) != want {
				t.Fatalf("signature JSON\n got %s\nwant %s", got, want)
			}
			if err := VerifyHash(pub, hash, sig); err != nil {
				t.Fatalf("VerifyHash: %v", err)
			}
			if !ed25519.Verify(pub.Raw(), hash[:], sig.Signature) {
				t.Fatal("standard library does not verify the signature")
			}
		})
	}
}

func TestVerifyHashErrors(t *testing.T) {
	k := testKey(t, 1)
	other := testKey(t, 2)
	var hash [32]byte
	hash[0] = 7
	good := k.SignHash(hash)
	tests := []struct {
		name string
		pub  PublicKey
		hash [32]byte
		edit func(*Signature)
		want string
	}{
		{"ok", k.Public(), hash, func(*Signature) {}, ""},
		{"raw format accepted", k.Public(), hash, func(s *Signature) { s.Format = SignatureFormatRaw }, ""},
		{"short signature", k.Public(), hash, func(s *Signature) { s.Signature = s.Signature[:63] }, "signature is 63 bytes; an ed25519 signature is 64"},
		{"wrong signedBy", k.Public(), hash, func(s *Signature) { s.SignedBy = other.Fingerprint() }, "signedBy \"" + other.Fingerprint() + "\" but the public key's fingerprint is " + k.Fingerprint()},
		{"other key", other.Public(), hash, func(s *Signature) { s.SignedBy = other.Fingerprint() }, "signature does not verify with key " + other.Fingerprint()},
		{"other hash", k.Public(), [32]byte{8}, func(*Signature) {}, "signature does not verify"},
		{"flipped bit", k.Public(), hash, func(s *Signature) { s.Signature[10] ^= 1 }, "signature does not verify"},
		{"der format", k.Public(), hash, func(s *Signature) { s.Format = "SIGNATURE_FORMAT_DER" }, `signature format is "SIGNATURE_FORMAT_DER"`},
		{"ecdsa spec", k.Public(), hash, func(s *Signature) { s.SigningAlgorithmSpec = "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256" }, "signingAlgorithmSpec is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig := good
			sig.Signature = bytes.Clone(good.Signature)
			tt.edit(&sig)
			err := VerifyHash(tt.pub, tt.hash, sig)
			checkErr(t, err, tt.want)
			if strings.Contains(tt.want, "does not verify") && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("error %v is not ErrBadSignature", err)
			}
		})
	}
}

func TestParsePrivateForms(t *testing.T) {
	seed := mustHex(t, "55ee6adf79c70d20274596a5610f22e80225933e951be89b81fdbd376f00074f")
	const fp = "12207aa7e0fd9373ba4f5fdf721bfe293746abe6a465321e1a6577595184d81d6f0c"
	nacl := ed25519.NewKeyFromSeed(seed)
	badNaCl := bytes.Clone(nacl)
	badNaCl[40] ^= 1
	opensslPEM := readFile(t, "testdata/openssl_ed25519.pem")
	tests := []struct {
		name, text, wantFP, wantErr string
	}{
		{"seed hex", hex.EncodeToString(seed), fp, ""},
		{"seed hex upper 0x newline", "0x" + strings.ToUpper(hex.EncodeToString(seed)) + "\n", fp, ""},
		{"seed base64", base64.StdEncoding.EncodeToString(seed), fp, ""},
		{"seed base64 raw url", base64.RawURLEncoding.EncodeToString(seed), fp, ""},
		{"nacl hex", hex.EncodeToString(nacl), fp, ""},
		{"nacl base64", base64.StdEncoding.EncodeToString(nacl), fp, ""},
		{"nacl wrong public half", base64.StdEncoding.EncodeToString(badNaCl), "", "public half does not belong to its seed"},
		{"pkcs8 pem from openssl", opensslPEM, Fingerprint(mustHex(t, "a54eff1cc47ad196ab14c6697aff8a94c6a4fd220b7e723242c57620795dfbc6")), ""},
		{"31 bytes", hex.EncodeToString(seed[:31]), "", "private key is 31 bytes"},
		{"33 bytes base64", base64.StdEncoding.EncodeToString(append(bytes.Clone(seed), 1)), "", "private key is 33 bytes"},
		{"garbage", "not a key!", "", "not valid hex or base64"},
		{"empty", "  ", "", "empty input"},
		{"public pem", readFile(t, "testdata/openssl_ed25519.pub.pem"), "", `PEM block is "PUBLIC KEY"`},
		{"encrypted pem", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n", "", "encrypted PKCS#8 is not supported"},
		{"broken pem", "-----BEGIN PRIVATE KEY-----\nAAAA", "", "no PEM block"},
		{"pem with trailing text", opensslPEM + "junk", "", "unexpected text after"},
		{"pkcs8 of garbage", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "", "not a valid PKCS#8 key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParsePrivate(tt.text)
			checkErr(t, err, tt.wantErr)
			if err != nil {
				// An error must not quote the secret.
				for _, s := range secretForms(seed) {
					if strings.Contains(err.Error(), s) {
						t.Fatalf("error quotes the secret: %v", err)
					}
				}
				return
			}
			if k.Fingerprint() != tt.wantFP {
				t.Fatalf("fingerprint %s; want %s", k.Fingerprint(), tt.wantFP)
			}
		})
	}
}

func TestParsePublicKeyForms(t *testing.T) {
	pubPEM := readFile(t, "testdata/openssl_ed25519.pub.pem")
	raw := mustHex(t, "a54eff1cc47ad196ab14c6697aff8a94c6a4fd220b7e723242c57620795dfbc6")
	p, err := PublicKeyFromRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.SPKIPEM() != pubPEM {
		t.Fatalf("SPKIPEM differs from openssl's:\n%s", p.SPKIPEM())
	}
	if p.String() != p.Base64() || !bytes.Equal(p.Raw(), raw) || p.Hex() != hex.EncodeToString(raw) {
		t.Fatal("accessors disagree")
	}
	tests := []struct{ name, text, wantErr string }{
		{"pem", pubPEM, ""},
		{"raw base64", p.Base64(), ""},
		{"raw hex", p.Hex(), ""},
		{"spki base64", base64.StdEncoding.EncodeToString(p.SPKIDER()), ""},
		{"spki hex", hex.EncodeToString(p.SPKIDER()), ""},
		{"31 bytes", base64.StdEncoding.EncodeToString(raw[:31]), "public key is 31 bytes"},
		{"private pem", readFile(t, "testdata/openssl_ed25519.pem"), `PEM block is "PRIVATE KEY"`},
		{"ecdsa spki", ecdsaSPKI, "holds an ECDSA key, not ed25519"},
		{"bad spki prefix", base64.StdEncoding.EncodeToString(append(make([]byte, 12), raw...)), "not an ed25519 SubjectPublicKeyInfo"},
		{"garbage", "%%%", "not valid hex or base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePublicKey(tt.text)
			checkErr(t, err, tt.wantErr)
			if err == nil && got != p {
				t.Fatalf("got %s; want %s", got.Hex(), p.Hex())
			}
		})
	}
}

// ecdsaSPKI is a P-256 public key (from `openssl ecparam -genkey`).
const ecdsaSPKI = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEpiZ5ZpqZ069rRirlMGyecPbARR+0
G7y7W1uMxLnmOSwWHEuqcMWAZH5yKGiZ8tt1a1xD0EEHTUITGhT2x7zJWQ==
-----END PUBLIC KEY-----`

// TestOpenSSLInterop signs with a key openssl generates now and checks that
// openssl verifies the signature. It is skipped without openssl.
func TestOpenSSLInterop(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "k.pem")
	run := func(args ...string) []byte {
		out, err := exec.Command("openssl", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
		return out
	}
	run("genpkey", "-algorithm", "ed25519", "-out", keyPath)
	pubPEM := run("pkey", "-in", keyPath, "-pubout")
	k, err := ParsePrivate(readFile(t, keyPath))
	if err != nil {
		t.Fatal(err)
	}
	if k.Public().SPKIPEM() != string(pubPEM) {
		t.Fatalf("public key %s; openssl says\n%s", k.Public().SPKIPEM(), pubPEM)
	}
	var hash [32]byte
	copy(hash[:], "a prepared transaction hash ....")
	sig := k.SignHash(hash)
	writeFile(t, filepath.Join(dir, "pub.pem"), string(pubPEM))
	writeFile(t, filepath.Join(dir, "hash.bin"), string(hash[:]))
	writeFile(t, filepath.Join(dir, "sig.bin"), string(sig.Signature))
	out := run("pkeyutl", "-verify", "-pubin", "-inkey", filepath.Join(dir, "pub.pem"), "-rawin",
		"-in", filepath.Join(dir, "hash.bin"), "-sigfile", filepath.Join(dir, "sig.bin"))
	if !strings.Contains(string(out), "Signature Verified Successfully") {
		t.Fatalf("openssl: %s", out)
	}
}

// TestKeyNeverPrintsSecret formats a key every way a program might.
func TestKeyNeverPrintsSecret(t *testing.T) {
	k := testKey(t, 3)
	seed := k.seed()
	var logBuf bytes.Buffer
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("loaded", "key", k, "value", *k)
	slog.New(slog.NewJSONHandler(&logBuf, nil)).Info("loaded", "key", k)
	//lint:ignore SA9005 checking that encoding/json finds nothing to print is the point
	jsonKey, _ := json.Marshal(k)
	wrapped := struct {
		K  *Key
		KV Key
		k  *Key
		kv Key
	}{k, *k, k, *k}
	kf, err := ParseKeyFile(MarshalPlaintextKeyFile(k))
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{logBuf.String(), fmt.Sprintf("%v %+v %#v", kf, kf, *kf), string(jsonKey), k.String(), k.GoString(),
		fmt.Sprint(k), fmt.Sprint(*k), fmt.Sprintf("%v %+v %#v %s %q %x %X %d", k, k, k, k, k, k, k, k),
		fmt.Sprintf("%v %+v %#v %x", *k, *k, *k, *k),
		// vet rightly doubts %x on a struct; that is the point here.
		fmt.Sprintf(anyVerbs, wrapped, wrapped, wrapped, wrapped),
		fmt.Errorf("wrapped: %v", k).Error()}
	for _, out := range outputs {
		for _, s := range secretForms(seed) {
			if strings.Contains(out, s) {
				t.Fatalf("output reveals the secret: %s", out)
			}
		}
	}
	if got := fmt.Sprintf("%v", k); got != "ed25519 key "+k.Fingerprint() {
		t.Fatalf("%%v = %q", got)
	}
	if got := fmt.Sprintf("%#v", k); got != "signer.Key{ed25519 key "+k.Fingerprint()+"}" {
		t.Fatalf("%%#v = %q", got)
	}
	if got := fmt.Sprint(Key{}); got != "ed25519 key (empty)" {
		t.Fatalf("zero Key prints %q", got)
	}
}

var anyVerbs = "%v %+v %#v %x"

// secretForms lists the ways a seed or NaCl secret might be written out.
func secretForms(seed []byte) []string {
	nacl := ed25519.NewKeyFromSeed(seed)
	var forms []string
	for _, b := range [][]byte{seed, nacl} {
		forms = append(forms, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
			base64.StdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
			fmt.Sprint(b), fmt.Sprintf("%#v", b), string(b))
	}
	// Also any 8-byte window of the seed in hex, to catch partial leaks.
	h := hex.EncodeToString(seed)
	for i := 0; i+16 <= len(h); i += 16 {
		forms = append(forms, h[i:i+16])
	}
	return forms
}

func testKey(t *testing.T, b byte) *Key {
	t.Helper()
	k, err := FromSeed(bytes.Repeat([]byte{b}, SeedSize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("no error; want one containing %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q; want it to contain %q", err, want)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex in test data: %v", err)
	}
	return b
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFile(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
