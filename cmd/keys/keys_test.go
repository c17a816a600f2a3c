package keys_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/signer"
)

// The test-only key of testdata/vectors/fingerprints.
const (
	keysSeedHex     = "55ee6adf79c70d20274596a5610f22e80225933e951be89b81fdbd376f00074f"
	keysFingerprint = "12207aa7e0fd9373ba4f5fdf721bfe293746abe6a465321e1a6577595184d81d6f0c"
	keysPublicB64   = "hEhPEgOoxcrvgSrn2/lDvKsM/QUP5h7PrNNVi/U+gPc="
)

type keysRun struct {
	stdin string
	tty   bool
}

// runKeys runs `ledger keys ARGS…` through the root command.
func (r keysRun) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, in, out, errOut := cmdutil.Test()
	in.WriteString(r.stdin)
	ios.SetTTY(r.tty, false)
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now}
	root := cmd.NewCmdRoot(f)
	root.SetArgs(append([]string{"keys"}, args...))
	err := root.Execute()
	if err != nil {
		fmt.Fprintf(errOut, "error: %s\n", err) // as Execute does
	}
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

func runKeys(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return keysRun{}.run(t, args...)
}

// keysEnv clears the passphrase variable so the host's cannot leak in.
func keysEnv(t *testing.T) string {
	t.Setenv(cmdutil.KeyPassphraseEnv, "")
	return t.TempDir()
}

func keysPassFile(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, "pass.txt")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKeysGenerateShowExport(t *testing.T) {
	dir := keysEnv(t)
	pass := keysPassFile(t, dir, "s3cret words\nsecond line is ignored\n")
	keyPath := filepath.Join(dir, "alice.key")

	out, errOut, code := runKeys(t, "generate", "--out", keyPath, "--passphrase-file", pass, "-o", "json")
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	var gen map[string]string
	if err := json.Unmarshal([]byte(out), &gen); err != nil {
		t.Fatalf("generate -o json: %v\n%s", err, out)
	}
	if runtime.GOOS != "windows" {
		if st, err := os.Stat(keyPath); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode: %v %v", st.Mode(), err)
		}
	}

	// show -o json has exactly the four fields.
	out, errOut, code = runKeys(t, "show", keyPath, "-o", "json")
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errOut)
	}
	var show map[string]string
	if err := json.Unmarshal([]byte(out), &show); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for k := range show {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	if strings.Join(fields, ",") != "fingerprint,keySpec,publicKey,publicKeyHex" {
		t.Fatalf("show -o json fields %v", fields)
	}
	if show["keySpec"] != "SIGNING_KEY_SPEC_EC_CURVE25519" || show["fingerprint"] != gen["fingerprint"] {
		t.Fatalf("show %v; generate %v", show, gen)
	}

	// The file decrypts with the passphrase to the key show describes.
	k, err := signer.LoadKeyFile(keyPath, cmdutil.KeyPassphrase(cmdutil.System(), pass, "k", false))
	if err != nil {
		t.Fatal(err)
	}
	if k.Fingerprint() != show["fingerprint"] || k.Public().Base64() != show["publicKey"] || k.Public().Hex() != show["publicKeyHex"] {
		t.Fatalf("decrypted key %s does not match show %v", k.Fingerprint(), show)
	}

	out, _, code = runKeys(t, "show", keyPath)
	for _, want := range []string{"Fingerprint:     " + show["fingerprint"] + "\n", "Public key:      " + show["publicKey"] + "\n",
		"Public key hex:  " + show["publicKeyHex"] + "\n", "Key spec:        SIGNING_KEY_SPEC_EC_CURVE25519\n", "Encrypted:       yes"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("show table lacks %q:\n%s", want, out)
		}
	}

	out, _, code = runKeys(t, "export", "--public", keyPath)
	if code != 0 || out != show["publicKey"]+"\n" {
		t.Fatalf("export base64: exit %d %q", code, out)
	}
	out, _, code = runKeys(t, "export", "--public", keyPath, "--format", "hex")
	if code != 0 || out != show["publicKeyHex"]+"\n" {
		t.Fatalf("export hex: exit %d %q", code, out)
	}
	out, _, code = runKeys(t, "export", "--public", keyPath, "--format", "pem")
	p, err := signer.ParsePublicKey(out)
	if code != 0 || err != nil || !strings.HasPrefix(out, "-----BEGIN PUBLIC KEY-----\n") || p.Fingerprint() != show["fingerprint"] {
		t.Fatalf("export pem: exit %d %v\n%s", code, err, out)
	}
}

func TestKeysPassphraseSources(t *testing.T) {
	t.Run("environment", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv(cmdutil.KeyPassphraseEnv, "from the environment")
		keyPath := filepath.Join(dir, "k.key")
		if _, errOut, code := runKeys(t, "generate", "--out", keyPath); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, err := signer.LoadKeyFile(keyPath, func() ([]byte, error) { return []byte("from the environment"), nil }); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("terminal asked twice", func(t *testing.T) {
		dir := keysEnv(t)
		keyPath := filepath.Join(dir, "k.key")
		_, errOut, code := keysRun{stdin: "typed pass\ntyped pass\n", tty: true}.run(t, "generate", "--out", keyPath)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "Passphrase for new key "+keyPath+": Repeat the passphrase: ") {
			t.Fatalf("prompts: %q", errOut)
		}
		if _, err := signer.LoadKeyFile(keyPath, func() ([]byte, error) { return []byte("typed pass"), nil }); err != nil {
			t.Fatal(err)
		}
	})
	failures := []struct {
		name, stdin string
		tty         bool
		want        string
	}{
		{"terminal answers differ", "one\ntwo\n", true, "the two passphrases differ; nothing was written"},
		{"terminal empty answer", "\n", true, "empty passphrase"},
		{"terminal closed", "", true, "reading the passphrase: end of input"},
		{"no terminal and no source", "", false, "standard input is not a terminal: give --passphrase-file FILE or set LEDGER_KEY_PASSPHRASE"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			dir := keysEnv(t)
			keyPath := filepath.Join(dir, "k.key")
			_, errOut, code := keysRun{stdin: tt.stdin, tty: tt.tty}.run(t, "generate", "--out", keyPath)
			if code != cmdutil.ExitFailure || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %q", code, errOut, tt.want)
			}
			if _, err := os.Stat(keyPath); !os.IsNotExist(err) {
				t.Fatalf("a key file was written: %v", err)
			}
		})
	}
	t.Run("passphrase file", func(t *testing.T) {
		dir := t.TempDir()
		for content, want := range map[string]string{"pw\r\nrest": "pw", "pw": "pw", "  spaced  \n": "  spaced  "} {
			p := keysPassFile(t, dir, content)
			got, err := cmdutil.ReadPassphraseFile(p)
			if err != nil || string(got) != want {
				t.Fatalf("%q: got %q, %v", content, got, err)
			}
		}
		for _, content := range []string{"", "\nsecond"} {
			_, err := cmdutil.ReadPassphraseFile(keysPassFile(t, dir, content))
			if err == nil || !strings.Contains(err.Error(), "the first line is empty") {
				t.Fatalf("%q: %v", content, err)
			}
		}
		_, err := cmdutil.ReadPassphraseFile(filepath.Join(dir, "missing"))
		if err == nil || !strings.Contains(err.Error(), "--passphrase-file") {
			t.Fatalf("missing file: %v", err)
		}
	})
}

func TestKeysWrongPassphraseAndPermissions(t *testing.T) {
	dir := keysEnv(t)
	keyPath := filepath.Join(dir, "k.key")
	if _, errOut, code := runKeys(t, "generate", "--out", keyPath, "--passphrase-file", keysPassFile(t, dir, "the right passphrase")); code != 0 {
		t.Fatal(errOut)
	}
	_, err := signer.LoadKeyFile(keyPath, cmdutil.KeyPassphrase(cmdutil.System(), keysPassFile(t, dir, "the wrong passphrase"), "k", false))
	if err == nil || err.Error() != keyPath+": wrong passphrase or corrupted key file" {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Chmod(keyPath, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show", keyPath}, {"export", "--public", keyPath}} {
		_, errOut, code := runKeys(t, args...)
		if code != cmdutil.ExitFailure || !strings.Contains(errOut, "(mode 0644); run: chmod 600 "+keyPath) {
			t.Fatalf("%v on a 0644 file: exit %d %q", args, code, errOut)
		}
	}
}

func TestKeysRefuseOverwrite(t *testing.T) {
	dir := keysEnv(t)
	keyPath := filepath.Join(dir, "k.key")
	if _, errOut, code := runKeys(t, "generate", "--out", keyPath, "--insecure-plaintext"); code != 0 {
		t.Fatal(errOut)
	}
	before, _ := os.ReadFile(keyPath)
	for _, args := range [][]string{
		{"generate", "--out", keyPath, "--insecure-plaintext"},
		{"import", "--out", keyPath, "--insecure-plaintext"},
	} {
		_, errOut, code := keysRun{stdin: keysSeedHex}.run(t, args...)
		if code != cmdutil.ExitFailure || !strings.Contains(errOut, "--out "+keyPath+" already exists; choose another file or add --force") {
			t.Fatalf("%v: exit %d %q", args, code, errOut)
		}
	}
	if after, _ := os.ReadFile(keyPath); string(after) != string(before) {
		t.Fatal("key file changed")
	}
	out, errOut, code := keysRun{stdin: keysSeedHex}.run(t, "import", "--out", keyPath, "--insecure-plaintext", "--force", "-o", "json")
	if code != 0 || !strings.Contains(out, keysFingerprint) {
		t.Fatalf("import --force: exit %d %s %s", code, out, errOut)
	}
}

func TestKeysUsageErrors(t *testing.T) {
	dir := keysEnv(t)
	keyPath := filepath.Join(dir, "k.key")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"generate"}, "--out FILE is required"},
		{[]string{"import"}, "--out FILE is required"},
		{[]string{"generate", "--out", keyPath, "--insecure-plaintext", "--passphrase-file", "p"}, "cannot be used together"},
		{[]string{"generate", "--out", keyPath, "extra"}, `unexpected argument "extra"`},
		{[]string{"show"}, "missing FILE"},
		{[]string{"export", keyPath}, "--public is required"},
		{[]string{"export", "--public", keyPath, "--format", "der"}, `invalid value "der" for --format`},
		{[]string{"generate", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"show", keyPath, "-o", "xml"}, `-o/--output "xml": -o takes a format`},
	}
	for _, tt := range tests {
		_, errOut, code := runKeys(t, tt.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d %q; want exit 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	if _, err := os.Stat(keyPath); !os.IsNotExist(err) {
		t.Fatal("a usage error wrote a key file")
	}
}

func TestKeysImportForms(t *testing.T) {
	seed, _ := hex.DecodeString(keysSeedHex)
	nacl := ed25519.NewKeyFromSeed(seed)
	// git keeps the testdata 0644; a private key file must be 0600.
	pemText, err := os.ReadFile(filepath.Join("..", "..", "signer", "testdata", "openssl_ed25519.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pemPath := filepath.Join(t.TempDir(), "openssl_ed25519.pem")
	if err := os.WriteFile(pemPath, pemText, 0o600); err != nil {
		t.Fatal(err)
	}
	pubPEM, err := os.ReadFile(filepath.Join("..", "..", "signer", "testdata", "openssl_ed25519.pub.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pemPub, err := signer.ParsePublicKey(string(pubPEM))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, stdin, from, want string
	}{
		{"seed hex", keysSeedHex + "\n", "-", keysFingerprint},
		{"seed base64", base64.StdEncoding.EncodeToString(seed), "-", keysFingerprint},
		{"nacl hex", hex.EncodeToString(nacl), "-", keysFingerprint},
		{"nacl base64", base64.StdEncoding.EncodeToString(nacl) + "\n", "-", keysFingerprint},
		{"pkcs8 pem file", "", pemPath, pemPub.Fingerprint()},
	}
	if _, err := exec.LookPath("openssl"); err == nil {
		gen := filepath.Join(t.TempDir(), "fresh.pem")
		if out, err := exec.Command("openssl", "genpkey", "-algorithm", "ed25519", "-out", gen).CombinedOutput(); err != nil {
			t.Fatalf("openssl: %v %s", err, out)
		}
		out, err := exec.Command("openssl", "pkey", "-in", gen, "-pubout").Output()
		if err != nil {
			t.Fatal(err)
		}
		p, err := signer.ParsePublicKey(string(out))
		if err != nil {
			t.Fatal(err)
		}
		pemText, _ := os.ReadFile(gen)
		tests = append(tests, struct{ name, stdin, from, want string }{"openssl genpkey now, on stdin", string(pemText), "-", p.Fingerprint()})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := keysEnv(t)
			keyPath := filepath.Join(dir, "k.key")
			out, errOut, code := keysRun{stdin: tt.stdin}.run(t, "import", "--out", keyPath, "--from", tt.from,
				"--passphrase-file", keysPassFile(t, dir, "import pass words"), "-o", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var info struct{ Fingerprint string }
			if err := json.Unmarshal([]byte(out), &info); err != nil || info.Fingerprint != tt.want {
				t.Fatalf("fingerprint %q (%v); want %s", info.Fingerprint, err, tt.want)
			}
			k, err := signer.LoadKeyFile(keyPath, func() ([]byte, error) { return []byte("import pass words"), nil })
			if err != nil || k.Fingerprint() != tt.want {
				t.Fatalf("stored key: %v %v", k, err)
			}
		})
	}
}

// TestKeysNeverPrintSecret runs every keys command, successful and failing,
// on the test key and looks for the seed in everything they print.
func TestKeysNeverPrintSecret(t *testing.T) {
	dir := keysEnv(t)
	seed, _ := hex.DecodeString(keysSeedHex)
	nacl := ed25519.NewKeyFromSeed(seed)
	badNaCl := append([]byte(nil), nacl...)
	badNaCl[63] ^= 1
	pass := keysPassFile(t, dir, "never printed words")
	enc := filepath.Join(dir, "enc.key")
	plain := filepath.Join(dir, "plain.key")
	naclHex := hex.EncodeToString(nacl)

	runs := []struct {
		stdin string
		args  []string
		ok    bool
	}{
		{keysSeedHex, []string{"import", "--out", enc, "--passphrase-file", pass}, true},
		{base64.StdEncoding.EncodeToString(nacl), []string{"import", "--out", plain, "--insecure-plaintext"}, true},
		{"", []string{"show", enc}, true},
		{"", []string{"show", plain}, true},
		{"", []string{"show", plain, "-o", "json"}, true},
		{"", []string{"show", plain, "-o", "yaml"}, true},
		{"", []string{"export", "--public", plain}, true},
		{"", []string{"export", "--public", plain, "--format", "pem"}, true},
		{"", []string{"export", "--public", plain, "--format", "hex", "-o", "json"}, true},
		// Failures whose input is the secret or holds it.
		{keysSeedHex[:62], []string{"import", "--out", filepath.Join(dir, "x1.key"), "--insecure-plaintext"}, false},
		{keysSeedHex + "zz", []string{"import", "--out", filepath.Join(dir, "x2.key"), "--insecure-plaintext"}, false},
		{base64.StdEncoding.EncodeToString(badNaCl), []string{"import", "--out", filepath.Join(dir, "x3.key"), "--insecure-plaintext"}, false},
		{naclHex + "00", []string{"import", "--out", filepath.Join(dir, "x4.key"), "--insecure-plaintext"}, false},
		{`{"seed":"` + keysSeedHex + `"}`, []string{"import", "--out", filepath.Join(dir, "x5.key"), "--insecure-plaintext"}, false},
		{"-----BEGIN PRIVATE KEY-----\n" + base64.StdEncoding.EncodeToString(seed) + "\n-----END PRIVATE KEY-----\n",
			[]string{"import", "--out", filepath.Join(dir, "x6.key"), "--insecure-plaintext"}, false},
		{"", []string{"import", "--out", filepath.Join(dir, "x7.key"), "--insecure-plaintext", "--from", plain}, false},
		{keysSeedHex, []string{"import", "--out", enc, "--insecure-plaintext"}, false},
	}
	forms := keysSecretForms(seed)
	for _, r := range runs {
		out, errOut, code := keysRun{stdin: r.stdin}.run(t, r.args...)
		if (code == 0) != r.ok {
			t.Fatalf("%v: exit %d; stderr %q", r.args, code, errOut)
		}
		for _, s := range forms {
			if strings.Contains(out, s) || strings.Contains(errOut, s) {
				t.Fatalf("%v printed the secret (%q):\nstdout %s\nstderr %s", r.args, s, out, errOut)
			}
		}
		if r.ok && r.args[0] == "show" && !strings.Contains(out, keysPublicB64) {
			t.Fatalf("%v: public key missing from output %q", r.args, out)
		}
	}
	// The encrypted file itself holds no clear seed either.
	data, _ := os.ReadFile(enc)
	for _, s := range forms {
		if strings.Contains(string(data), s) {
			t.Fatalf("encrypted key file holds the seed in the clear (%q)", s)
		}
	}
}

// keysSecretForms lists ways a seed or NaCl secret key might be written.
func keysSecretForms(seed []byte) []string {
	nacl := ed25519.NewKeyFromSeed(seed)
	var forms []string
	for _, b := range [][]byte{seed, nacl} {
		forms = append(forms, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
			base64.StdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b), fmt.Sprint(b))
	}
	h := hex.EncodeToString(seed)
	b := base64.StdEncoding.EncodeToString(seed)
	for i := 0; i+12 <= len(h); i += 12 {
		forms = append(forms, h[i:i+12])
	}
	for i := 0; i+12 <= 40; i += 12 {
		forms = append(forms, b[i:i+12])
	}
	return forms
}

// A new key file gets a passphrase worth the scrypt work: below 8
// characters it is refused unless --weak-passphrase, below 12 it is warned
// about.
func TestKeysPassphraseStrength(t *testing.T) {
	for _, tt := range []struct {
		pass  string
		extra []string
		code  int
		want  string
	}{
		{"abc", nil, cmdutil.ExitUsage, "the passphrase has 3 characters: use at least 8"},
		{"abc", []string{"--weak-passphrase"}, 0, "warning: a passphrase of 3 characters is weak"},
		{"ten chars!", nil, 0, "warning: a passphrase of 10 characters is weak; 12 or more is recommended"},
		{"twelve chars", nil, 0, ""},
		{"ünïcödé", nil, cmdutil.ExitUsage, "has 7 characters"}, // characters, not bytes
	} {
		dir := keysEnv(t)
		keyPath := filepath.Join(dir, "k.key")
		args := append([]string{"generate", "--out", keyPath, "--passphrase-file", keysPassFile(t, dir, tt.pass)}, tt.extra...)
		_, errOut, code := runKeys(t, args...)
		if code != tt.code || (tt.want != "" && !strings.Contains(errOut, tt.want)) || (tt.want == "" && strings.Contains(errOut, "warning")) {
			t.Errorf("%q %v: exit %d, stderr %q; want %d and %q", tt.pass, tt.extra, code, errOut, tt.code, tt.want)
		}
		if _, err := os.Stat(keyPath); (err == nil) != (tt.code == 0) {
			t.Errorf("%q %v: key file written = %v", tt.pass, tt.extra, err == nil)
		}
	}
}

// A passphrase file others may read is refused like a key file, with the
// command that fixes it.
func TestKeysPassphraseFileMustBePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not describe access on Windows")
	}
	dir := keysEnv(t)
	pass := keysPassFile(t, dir, "a long enough passphrase")
	if err := os.Chmod(pass, 0o644); err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(dir, "k.key")
	_, errOut, code := runKeys(t, "generate", "--out", keyPath, "--passphrase-file", pass)
	if code != cmdutil.ExitFailure || !strings.Contains(errOut, "passphrase file "+pass+" may be read by other users (mode 0644); run: chmod 600 "+pass) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestKeysShowChecksTheFormatFirst: a file that is no key file is named as
// such before anything is said about its permissions (issue 12, item 30).
func TestKeysShowChecksTheFormatFirst(t *testing.T) {
	dir := keysEnv(t)
	iou := filepath.Join(dir, "iou.json")
	if err := os.WriteFile(iou, []byte(`{"issuer": "alice::1220", "amount": "100.00"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runKeys(t, "show", iou)
	if code != cmdutil.ExitFailure || strings.Contains(errOut, "chmod") || !strings.Contains(errOut, iou+":") {
		t.Fatalf("keys show iou.json: exit %d %q", code, errOut)
	}
	t.Log(errOut)
}
