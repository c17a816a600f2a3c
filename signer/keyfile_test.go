package signer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var updateCases = flag.Bool("update-keyfiles", false, "rewrite testdata/keyfiles from the generators in keyfile_test.go")

// A case file in testdata/keyfiles is a small header, a blank line, and the
// bytes of a key file:
//
//	passphrase: <text>
//	expect: ok <fingerprint>   or   expect: error <part of the message>
//
// Names say the outcome (good_…, fail_…). A new case is a new file.
const caseDir = "testdata/keyfiles"

const casePassphrase = "correct horse battery staple"

// caseSeedHex is the test-only seed of testdata/vectors/fingerprints.
const caseSeedHex = "55ee6adf79c70d20274596a5610f22e80225933e951be89b81fdbd376f00074f"
const caseFingerprint = "12207aa7e0fd9373ba4f5fdf721bfe293746abe6a465321e1a6577595184d81d6f0c"

func TestKeyFileCases(t *testing.T) {
	if *updateCases {
		writeCases(t)
	}
	names, err := filepath.Glob(filepath.Join(caseDir, "*.keyfile"))
	if err != nil || len(names) < 10 {
		t.Fatalf("found %d case files (%v)", len(names), err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			header, body, ok := strings.Cut(readFile(t, name), "\n\n")
			if !ok {
				t.Fatal("case file has no blank line after its header")
			}
			fields := map[string]string{}
			for _, line := range strings.Split(header, "\n") {
				k, v, _ := strings.Cut(line, ": ")
				fields[k] = v
			}
			outcome, detail, _ := strings.Cut(fields["expect"], " ")
			base := filepath.Base(name)
			if (outcome == "ok") != strings.HasPrefix(base, "good_") || (outcome == "error") != strings.HasPrefix(base, "fail_") {
				t.Fatalf("file name %s disagrees with expect %q", base, fields["expect"])
			}

			kf, err := ParseKeyFile([]byte(body))
			var k *Key
			if err == nil {
				k, err = kf.Decrypt([]byte(fields["passphrase"]))
			}
			if outcome == "error" {
				checkErr(t, err, detail)
				for _, s := range secretForms(mustHex(t, caseSeedHex)) {
					if strings.Contains(err.Error(), s) {
						t.Fatalf("error reveals the seed: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if k.Fingerprint() != detail || kf.Public.Fingerprint() != detail {
				t.Fatalf("fingerprint %s; want %s", k.Fingerprint(), detail)
			}
		})
	}
}

// writeCases regenerates the case files. Salts and nonces are random, so the
// files change on every run; their outcomes do not.
func writeCases(t *testing.T) {
	k, err := FromSeed(mustHex(t, caseSeedHex))
	if err != nil {
		t.Fatal(err)
	}
	other := testKey(t, 9)
	enc, err := MarshalKeyFile(k, []byte(casePassphrase))
	if err != nil {
		t.Fatal(err)
	}
	saved := scryptLogN
	scryptLogN = 15
	enc15, err := MarshalKeyFile(k, []byte(casePassphrase))
	scryptLogN = saved
	if err != nil {
		t.Fatal(err)
	}
	plain := MarshalPlaintextKeyFile(k)

	edit := func(file []byte, f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(file, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	flipB64 := func(s any) string {
		b, _ := base64.StdEncoding.DecodeString(s.(string))
		b[len(b)-1] ^= 1
		return base64.StdEncoding.EncodeToString(b)
	}
	kdf := func(m map[string]any) map[string]any { return m["kdf"].(map[string]any) }
	ok := "ok " + caseFingerprint
	cases := []struct{ name, passphrase, expect, body string }{
		{"good_encrypted", casePassphrase, ok, string(enc)},
		{"good_encrypted_production_cost", casePassphrase, ok, string(enc15)},
		{"good_plaintext", "", ok, string(plain)},
		{"good_plaintext_ignores_passphrase", "anything", ok, string(plain)},
		{"fail_wrong_passphrase", "Correct horse battery staple", "error wrong passphrase or corrupted key file", string(enc)},
		{"fail_empty_passphrase", "", "error wrong passphrase or corrupted key file", string(enc)},
		{"fail_truncated", casePassphrase, "error key file is truncated", string(enc[:len(enc)/2])},
		{"fail_empty_file", casePassphrase, "error key file is empty", ""},
		{"fail_not_json", casePassphrase, "error key file is not valid JSON (at byte 2)", "-----BEGIN PRIVATE KEY-----\n"},
		{"fail_trailing_data", casePassphrase, "error not valid JSON", string(enc) + "{}\n"},
		{"fail_not_a_key_file", casePassphrase, `error not a ledger key file: format is "age"`, `{"format":"age","version":1}` + "\n"},
		{"fail_newer_version", casePassphrase, "error key file version 2 is newer than this ledger supports; upgrade ledger",
			edit(enc, func(m map[string]any) { m["version"] = 2; m["argon2"] = true })},
		{"fail_version_zero", casePassphrase, "error version 0 is not valid",
			edit(enc, func(m map[string]any) { delete(m, "version") })},
		{"fail_unknown_field", casePassphrase, `error unknown field "comment"`,
			edit(enc, func(m map[string]any) { m["comment"] = "hi" })},
		{"fail_missing_encrypted", casePassphrase, `error field "encrypted" is missing`,
			edit(enc, func(m map[string]any) { delete(m, "encrypted") })},
		{"fail_tampered_public_key", casePassphrase, "error wrong passphrase or corrupted key file",
			edit(enc, func(m map[string]any) {
				m["publicKey"] = other.Public().Base64()
				m["fingerprint"] = other.Fingerprint()
			})},
		{"fail_tampered_fingerprint", casePassphrase, `error field "fingerprint" is "` + other.Fingerprint() + `" but publicKey's fingerprint is ` + caseFingerprint,
			edit(enc, func(m map[string]any) { m["fingerprint"] = other.Fingerprint() })},
		{"fail_tampered_ciphertext", casePassphrase, "error wrong passphrase or corrupted key file",
			edit(enc, func(m map[string]any) { m["ciphertext"] = flipB64(m["ciphertext"]) })},
		{"fail_tampered_nonce", casePassphrase, "error wrong passphrase or corrupted key file",
			edit(enc, func(m map[string]any) { m["nonce"] = flipB64(m["nonce"]) })},
		{"fail_tampered_salt", casePassphrase, "error wrong passphrase or corrupted key file",
			edit(enc, func(m map[string]any) { kdf(m)["salt"] = flipB64(kdf(m)["salt"]) })},
		{"fail_plaintext_public_mismatch", "", "error the private key does not match publicKey " + other.Public().Base64(),
			edit(plain, func(m map[string]any) {
				m["publicKey"] = other.Public().Base64()
				m["fingerprint"] = other.Fingerprint()
			})},
		{"fail_plaintext_short_seed", "", `error field "seed" is 31 bytes; want 32`,
			edit(plain, func(m map[string]any) {
				b, _ := base64.StdEncoding.DecodeString(m["seed"].(string))
				m["seed"] = base64.StdEncoding.EncodeToString(b[:31])
			})},
		{"fail_plaintext_with_ciphertext", "", "error an unencrypted file must not have",
			edit(plain, func(m map[string]any) { m["ciphertext"] = "AAAA" })},
		{"fail_encrypted_with_seed", casePassphrase, "error an encrypted file must not have a seed field",
			edit(enc, func(m map[string]any) { m["seed"] = base64.StdEncoding.EncodeToString(make([]byte, 32)) })},
		{"fail_bad_base64", casePassphrase, "error illegal base64",
			edit(enc, func(m map[string]any) { m["nonce"] = "!!!!" })},
		{"fail_wrong_type", casePassphrase, `error field "version" has the wrong type`,
			edit(enc, func(m map[string]any) { m["version"] = "1" })},
		{"fail_short_nonce", casePassphrase, `error field "nonce" is 12 bytes; want 24`,
			edit(enc, func(m map[string]any) { m["nonce"] = base64.StdEncoding.EncodeToString(make([]byte, 12)) })},
		{"fail_short_ciphertext", casePassphrase, `error field "ciphertext" is 32 bytes; want 48`,
			edit(enc, func(m map[string]any) { m["ciphertext"] = base64.StdEncoding.EncodeToString(make([]byte, 32)) })},
		{"fail_unknown_cipher", casePassphrase, `error cipher is "aes-256-gcm"`,
			edit(enc, func(m map[string]any) { m["cipher"] = "aes-256-gcm" })},
		{"fail_unknown_kdf", casePassphrase, `error kdf is "argon2id"`,
			edit(enc, func(m map[string]any) { kdf(m)["name"] = "argon2id" })},
		{"fail_missing_kdf", casePassphrase, `error field "kdf" is missing`,
			edit(enc, func(m map[string]any) { delete(m, "kdf") })},
		{"fail_kdf_n_not_power_of_two", casePassphrase, "error scrypt N is 1000",
			edit(enc, func(m map[string]any) { kdf(m)["N"] = 1000 })},
		{"fail_kdf_too_costly", casePassphrase, "error scrypt N is 1073741824",
			edit(enc, func(m map[string]any) { kdf(m)["N"] = 1 << 30 })},
		{"fail_kdf_too_much_memory", casePassphrase, "error asks for more memory or time than ledger allows",
			edit(enc, func(m map[string]any) { kdf(m)["N"] = 1 << 20; kdf(m)["r"] = 8 })},
		{"fail_kdf_bad_r", casePassphrase, "error scrypt r=0 p=1",
			edit(enc, func(m map[string]any) { kdf(m)["r"] = 0 })},
		{"fail_kdf_short_salt", casePassphrase, "error scrypt salt is 4 bytes",
			edit(enc, func(m map[string]any) { kdf(m)["salt"] = "AAAAAA==" })},
		{"fail_public_key_short", casePassphrase, `error field "publicKey": public key is 3 bytes`,
			edit(enc, func(m map[string]any) { m["publicKey"] = "AAAA" })},
	}
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(caseDir, "*.keyfile"))
	for _, f := range old {
		os.Remove(f)
	}
	for _, c := range cases {
		data := "passphrase: " + c.passphrase + "\nexpect: " + c.expect + "\n\n" + c.body
		writeFile(t, filepath.Join(caseDir, c.name+".keyfile"), data)
	}
}

func TestKeyFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	k, err := Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, encrypted := range []bool{true, false} {
		path := filepath.Join(dir, "k.key")
		data := MarshalPlaintextKeyFile(k)
		if encrypted {
			if data, err = MarshalKeyFile(k, []byte("pass word")); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteKeyFile(path, data, true); err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Fatalf("mode %04o; want 0600", st.Mode().Perm())
			}
		}
		kf, err := ReadKeyFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if kf.Encrypted != encrypted || kf.Public != k.Public() {
			t.Fatalf("read back encrypted=%v public=%s", kf.Encrypted, kf.Public)
		}
		asked := 0
		got, err := LoadKeyFile(path, func() ([]byte, error) { asked++; return []byte("pass word"), nil })
		if err != nil {
			t.Fatal(err)
		}
		if wantAsked := map[bool]int{true: 1, false: 0}[encrypted]; asked != wantAsked {
			t.Fatalf("passphrase asked %d times; want %d", asked, wantAsked)
		}
		if !bytes.Equal(got.seed(), k.seed()) {
			t.Fatal("loaded key differs")
		}
		// The file must not contain the seed in the clear when encrypted.
		raw := readFile(t, path)
		leaks := strings.Contains(raw, base64.StdEncoding.EncodeToString(k.seed()))
		if leaks == encrypted {
			t.Fatalf("encrypted=%v but seed in file=%v", encrypted, leaks)
		}
	}
}

func TestLoadKeyFileErrors(t *testing.T) {
	dir := t.TempDir()
	k := testKey(t, 4)
	enc, err := MarshalKeyFile(k, []byte("right"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "k.key")
	if err := WriteKeyFile(path, enc, false); err != nil {
		t.Fatal(err)
	}

	_, err = LoadKeyFile(path, func() ([]byte, error) { return []byte("wrong"), nil })
	if !errors.Is(err, ErrWrongPassphrase) || !strings.Contains(err.Error(), path+": wrong passphrase or corrupted key file") {
		t.Fatalf("wrong passphrase: %v", err)
	}
	promptErr := errors.New("no terminal")
	if _, err = LoadKeyFile(path, func() ([]byte, error) { return nil, promptErr }); !errors.Is(err, promptErr) {
		t.Fatalf("passphrase error not passed through: %v", err)
	}
	if _, err = LoadKeyFile(filepath.Join(dir, "missing.key"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err = LoadKeyFile(dir, nil); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("directory: %v", err)
	}
	if _, err := MarshalKeyFile(k, nil); err == nil || !strings.Contains(err.Error(), "passphrase is empty") {
		t.Fatalf("empty passphrase accepted: %v", err)
	}

	big := filepath.Join(dir, "big.key")
	writeFile(t, big, strings.Repeat(" ", maxKeyFileSize+1))
	if _, err := ReadKeyFile(big); err == nil || !strings.Contains(err.Error(), "is larger than") {
		t.Fatalf("big file: %v", err)
	}
}

func TestKeyFilePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not describe access on windows")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "k.key")
	if err := WriteKeyFile(path, MarshalPlaintextKeyFile(testKey(t, 5)), false); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o700 | 0o007} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := ReadKeyFile(path)
		want := "may be read by other users (mode " + strings.TrimPrefix(modeString(mode), "") + "); run: chmod 600 " + path
		checkErr(t, err, want)
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadKeyFile(path); err != nil {
			t.Fatalf("mode %04o: %v", mode, err)
		}
	}
}

func modeString(m os.FileMode) string {
	const digits = "01234567"
	p := m.Perm()
	return string([]byte{'0', digits[p>>6&7], digits[p>>3&7], digits[p&7]})
}

func TestWriteKeyFileRefusesOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.key")
	first := MarshalPlaintextKeyFile(testKey(t, 6))
	second := MarshalPlaintextKeyFile(testKey(t, 7))
	if err := WriteKeyFile(path, first, false); err != nil {
		t.Fatal(err)
	}
	err := WriteKeyFile(path, second, false)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "key file "+path+" already exists") {
		t.Fatalf("overwrite without force: %v", err)
	}
	if readFile(t, path) != string(first) {
		t.Fatal("file changed despite the refusal")
	}
	// force replaces it, and tightens a loose mode.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteKeyFile(path, second, true); err != nil {
		t.Fatal(err)
	}
	if readFile(t, path) != string(second) {
		t.Fatal("force did not replace the file")
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Fatalf("mode after force %04o", st.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}
