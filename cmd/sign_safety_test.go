package cmd

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
)

// signRun runs sign through the root command with a terminal of its own:
// stdin is what standard input carries, terminal what the controlling
// terminal answers (nil: there is none).
func runSignWithTerminal(t *testing.T, stdin string, stdinTTY bool, terminal *string, args ...string) (stderr string, code int) {
	t.Helper()
	ios, in, _, errOut := cmdutil.Test()
	in.WriteString(stdin)
	ios.SetTTY(stdinTTY, false)
	if terminal != nil {
		ios.SetTerminal(strings.NewReader(*terminal))
	}
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return signNow }}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.Execute()
	if ee, ok := err.(*cmdutil.ExitError); err != nil && (!ok || ee.Err != nil) {
		errOut.WriteString("error: " + err.Error() + "\n")
	}
	return errOut.String(), cmdutil.ExitCode(err)
}

// --yes skips the question, never the warnings.
func TestSignYesPrintsEveryWarning(t *testing.T) {
	fx := newSignFixture(t, "rich_v2.json") // V2 with a max_record_time
	out := filepath.Join(fx.dir, "signed.json")
	_, stderr, code := runCmd(t, "", false, "sign", fx.txFile, "--key", fx.keyFile, "--yes", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: max_record_time is NOT covered by the signature under V2") {
		t.Errorf("the V2 warning is missing under --yes:\n%s", stderr)
	}
}

// A key that is not the party's is refused unless the signer vouches for
// it, and the warning stays.
func TestSignRefusesAForeignKey(t *testing.T) {
	fx := newSignFixture(t, "rich_v3.json")
	bob, _ := signer.Generate(rand.Reader)
	bobFile := filepath.Join(fx.dir, "bob.key")
	if err := signer.WriteKeyFile(bobFile, signer.MarshalPlaintextKeyFile(bob), false); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(fx.dir, "signed.json")
	_, stderr, code := runCmd(t, "", false, "sign", fx.txFile, "--key", bobFile, "--yes", "--out", out)
	if code != 1 || !strings.Contains(stderr, "is not the namespace key of "+fx.party) || !strings.Contains(stderr, "--allow-foreign-key") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a foreign key's signature was written")
	}
	_, stderr, code = runCmd(t, "", false, "sign", fx.txFile, "--key", bobFile, "--yes", "--allow-foreign-key", "--out", out)
	if code != 0 || !strings.Contains(stderr, "warning: key "+bob.Fingerprint()+" is not the namespace key") {
		t.Fatalf("with --allow-foreign-key: exit %d, stderr %q", code, stderr)
	}
}

// The passphrase is asked after the person saw the transaction and agreed;
// a refusal never reaches the passphrase prompt.
func TestSignAsksThePassphraseAfterConfirmation(t *testing.T) {
	t.Setenv(cmdutil.KeyPassphraseEnv, "")
	fx := newSignFixture(t, "rich_v3.json")
	data, err := signer.MarshalKeyFile(fx.key, []byte("correct horse battery"))
	if err != nil {
		t.Fatal(err)
	}
	encrypted := filepath.Join(fx.dir, "enc.key")
	if err := signer.WriteKeyFile(encrypted, data, false); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(fx.dir, "signed.json")

	stderr, code := runSignWithTerminal(t, "n\n", true, nil, "sign", fx.txFile, "--key", encrypted, "--out", out)
	if code != 1 || !strings.Contains(stderr, "declined") || strings.Contains(stderr, "Passphrase for") {
		t.Fatalf("declined: exit %d, stderr %q", code, stderr)
	}
	stderr, code = runSignWithTerminal(t, "y\ncorrect horse battery\n", true, nil, "sign", fx.txFile, "--key", encrypted, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	question, pass := strings.Index(stderr, "Sign as "), strings.Index(stderr, "Passphrase for")
	review := strings.Index(stderr, "TRANSACTION")
	if review < 0 || question < review || pass < question {
		t.Errorf("want review, then question, then passphrase; got:\n%s", stderr)
	}
}

// With the transaction on standard input, the question goes to the
// terminal; without one, sign refuses rather than sign unseen.
func TestSignFromStdinAsksOnTheTerminal(t *testing.T) {
	fx := newSignFixture(t, "rich_v3.json")
	tx, err := os.ReadFile(fx.txFile)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(fx.dir, "signed.json")
	stderr, code := runSignWithTerminal(t, string(tx), false, nil, "sign", "-", "--key", fx.keyFile, "--out", out)
	if code != 1 || !strings.Contains(stderr, "no terminal to ask on") {
		t.Fatalf("no terminal: exit %d, stderr %q", code, stderr)
	}
	yes := "y\n"
	stderr, code = runSignWithTerminal(t, string(tx), false, &yes, "sign", "-", "--key", fx.keyFile, "--out", out)
	if code != 0 || !strings.Contains(stderr, "Sign as "+fx.party) {
		t.Fatalf("terminal: exit %d, stderr %q", code, stderr)
	}
	if len(readEnvelope(t, out).PartySignatures.Signatures) != 1 {
		t.Fatal("not signed")
	}
}

// The prepare request an envelope recorded is not signed; when the
// transaction does something else, the signer is told, with both sides.
func TestSignWarnsWhenTheRecordedRequestDiffers(t *testing.T) {
	fx := newSignFixture(t, "rich_v3.json")
	env := readEnvelope(t, fx.txFile)
	req, _ := json.Marshal(map[string]any{"actAs": []string{"mallory::1220ff"}, "commandId": "pay-bob", "commands": []any{}})
	env.Info = &wallet.EnvelopeInfo{Format: wallet.EnvelopeFormat, Version: wallet.EnvelopeVersion, PrepareRequest: req}
	if err := env.WriteFile(fx.txFile); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, "", false, "sign", fx.txFile, "--key", fx.keyFile, "--yes", "--out", filepath.Join(fx.dir, "s.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"warning: the envelope's prepare request differs from the transaction in act_as: requested mallory::1220ff, prepared " + fx.party,
		"in the command id: requested pay-bob, prepared ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
