package cmd

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
)

// signNow is before the max_record_time of the rich vectors.
var signNow = time.UnixMicro(1754534200000000).UTC()

type signFixture struct {
	dir     string
	txFile  string
	keyFile string
	key     *signer.Key
	party   string
}

// newSignFixture writes a prepare response from a spec vector and a key file.
func newSignFixture(t *testing.T, vector string) *signFixture {
	t.Helper()
	dir := t.TempDir()
	var v struct {
		Scheme string `json:"hashing_scheme_version"`
		Hash   string `json:"expected_prepared_transaction_hash_b64"`
		Tx     string `json:"prepared_transaction_b64"`
	}
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "vectors", "derived", vector))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	fx := &signFixture{dir: dir, txFile: filepath.Join(dir, "tx.json"), keyFile: filepath.Join(dir, "alice.key")}
	if fx.key, err = signer.Generate(rand.Reader); err != nil {
		t.Fatal(err)
	}
	// The transaction acts as the party whose namespace key is fx.key, as
	// a node's would; the node's hash is recomputed for the changed bytes.
	fx.party = "alice::" + fx.key.Fingerprint()
	tx, hash := actAs(t, v.Tx, v.Scheme, fx.party)
	writePrepareResponse(t, fx.txFile, tx, hash, v.Scheme)
	if err := signer.WriteKeyFile(fx.keyFile, signer.MarshalPlaintextKeyFile(fx.key), false); err != nil {
		t.Fatal(err)
	}
	return fx
}

// actAs rewrites the act_as parties of a base64 prepared transaction and
// returns it with its hash under scheme, both base64.
func actAs(t *testing.T, txB64, scheme string, parties ...string) (string, string) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(txB64)
	if err != nil {
		t.Fatal(err)
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		t.Fatal(err)
	}
	pt.Metadata.SubmitterInfo.ActAs = parties
	if raw, err = proto.Marshal(&pt); err != nil {
		t.Fatal(err)
	}
	s, err := hashing.ParseScheme(scheme)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := hashing.Sum(raw, s)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw), base64.StdEncoding.EncodeToString(sum[:])
}

func writePrepareResponse(t *testing.T, path, tx, hash, scheme string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"preparedTransaction": tx, "preparedTransactionHash": hash,
		"hashingSchemeVersion": scheme, "hashingDetails": nil, "costEstimation": nil})
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
}

// runCmd runs the root command with test streams and a fixed clock.
func runCmd(t *testing.T, stdin string, tty bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, in, out, errOut := cmdutil.Test()
	in.WriteString(stdin)
	ios.SetTTY(tty, false)
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return signNow }}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.Execute()
	if ee, ok := err.(*cmdutil.ExitError); err != nil && (!ok || ee.Err != nil) {
		errOut.WriteString("error: " + err.Error() + "\n")
	}
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

func readEnvelope(t *testing.T, path string) *wallet.Envelope {
	t.Helper()
	env, err := wallet.ReadEnvelope(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSignEndToEnd(t *testing.T) {
	for _, vector := range []string{"rich_v2.json", "rich_v3.json"} {
		t.Run(vector, func(t *testing.T) {
			fx := newSignFixture(t, vector)
			out := filepath.Join(fx.dir, "tx.signed.json")
			_, stderr, code := runCmd(t, "", false, "sign", fx.txFile, "--key", fx.keyFile, "--yes", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			env := readEnvelope(t, out)
			if env.Form != wallet.FormEnvelope {
				t.Errorf("form %v", env.Form)
			}
			sigs := env.PartySignatures.Signatures
			if len(sigs) != 1 || sigs[0].Party != fx.party || len(sigs[0].Signatures) != 1 {
				t.Fatalf("signatures %+v", sigs)
			}
			sig := sigs[0].Signatures[0]
			if sig.Format != "SIGNATURE_FORMAT_CONCAT" || sig.SigningAlgorithmSpec != "SIGNING_ALGORITHM_SPEC_ED25519" || sig.SignedBy != fx.key.Fingerprint() {
				t.Errorf("signature fields %+v", sig)
			}
			hash, _ := base64.StdEncoding.DecodeString(env.PreparedTransactionHash)
			if !ed25519.Verify(ed25519.PublicKey(fx.key.Public().Raw()), hash, sig.Signature) {
				t.Fatal("signature does not verify with the standard library")
			}
			// The signed envelope is what execute decodes: preparedTransaction unchanged.
			orig := readEnvelope(t, fx.txFile)
			if env.PreparedTransaction != orig.PreparedTransaction {
				t.Error("preparedTransaction changed")
			}
			// verify-only accepts it; a different key is reported.
			stdout, _, code := runCmd(t, "", false, "sign", "--verify-only", out, "--pubkey", fx.key.Public().Base64())
			if code != 0 || !strings.Contains(stdout, "OK") {
				t.Errorf("verify-only: exit %d, %s", code, stdout)
			}
			stdout, _, code = runCmd(t, "", false, "verify", out, "--key", fx.keyFile)
			if code != 0 || !strings.Contains(stdout, "OK    "+fx.party) {
				t.Errorf("verify --key: exit %d, %s", code, stdout)
			}
			other, _ := signer.Generate(rand.Reader)
			_, _, code = runCmd(t, "", false, "sign", "--verify-only", out, "--pubkey", other.Public().Hex())
			if code != 1 {
				t.Errorf("verify-only with an unrelated key: exit %d, want 1", code)
			}
			// A forged signature: right signedBy, wrong bytes.
			forged := readEnvelope(t, out)
			forged.PartySignatures.Signatures[0].Signatures[0].Signature[0] ^= 1
			forgedFile := filepath.Join(fx.dir, "forged.json")
			if err := forged.WriteFile(forgedFile); err != nil {
				t.Fatal(err)
			}
			stdout, _, code = runCmd(t, "", false, "verify", forgedFile, "--key", fx.keyFile)
			if code != 1 || !strings.Contains(stdout, "FAIL") {
				t.Errorf("forged signature: exit %d, %s", code, stdout)
			}
		})
	}
}

// TestSignRefusesTampering changes the prepared transaction but keeps the
// node's hash: sign must exit 3 and write nothing.
func TestSignRefusesTampering(t *testing.T) {
	tamper := map[string]func(pt *damlpb.PreparedTransaction, raw []byte) []byte{
		"one byte": func(_ *damlpb.PreparedTransaction, raw []byte) []byte {
			i := bytes.Index(raw, []byte("Main.Token"))
			b := append([]byte(nil), raw...)
			b[i] = 'N'
			return b
		},
		"one party": func(pt *damlpb.PreparedTransaction, _ []byte) []byte {
			pt.Metadata.SubmitterInfo.ActAs[0] = "mallory::1220a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
			b, _ := proto.Marshal(pt)
			return b
		},
		"one value": func(pt *damlpb.PreparedTransaction, _ []byte) []byte {
			for _, n := range pt.Transaction.Nodes {
				if x := n.GetV1().GetExercise(); x != nil {
					x.ChosenValue = &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: 1_000_000}}
					break
				}
			}
			b, _ := proto.Marshal(pt)
			return b
		},
	}
	for name, change := range tamper {
		t.Run(name, func(t *testing.T) {
			fx := newSignFixture(t, "rich_v2.json")
			env := readEnvelope(t, fx.txFile)
			raw, _ := env.Raw()
			var pt damlpb.PreparedTransaction
			if err := proto.Unmarshal(raw, &pt); err != nil {
				t.Fatal(err)
			}
			changed := change(&pt, raw)
			if bytes.Equal(changed, raw) {
				t.Fatal("tampering changed nothing")
			}
			writePrepareResponse(t, fx.txFile, base64.StdEncoding.EncodeToString(changed), env.PreparedTransactionHash, env.HashingSchemeVersion)
			out := filepath.Join(fx.dir, "tx.signed.json")
			_, stderr, code := runCmd(t, "", false, "sign", fx.txFile, "--key", fx.keyFile, "--yes", "--out", out)
			if code != cmdutil.ExitHashMismatch {
				t.Fatalf("exit %d, want 3: %s", code, stderr)
			}
			if !strings.Contains(stderr, "refusing to sign") {
				t.Errorf("stderr: %s", stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatal("a file was written")
			}
		})
	}
}

func TestSignRefusals(t *testing.T) {
	fx := newSignFixture(t, "rich_v2.json")
	out := filepath.Join(fx.dir, "out.json")
	policyFile := filepath.Join(fx.dir, "policy.json")
	os.WriteFile(policyFile, []byte(`{"templates":["Other:Thing"]}`), 0o600)
	hurried := filepath.Join(fx.dir, "hurried.yaml")
	os.WriteFile(hurried, []byte("minTimeLeft: 2h\n"), 0o600) // rich_v2's earliest deadline is 49 s away
	bare := filepath.Join(fx.dir, "bare.b64")
	os.WriteFile(bare, []byte(readEnvelope(t, fx.txFile).PreparedTransaction), 0o600)
	cases := []struct {
		name  string
		stdin string
		tty   bool
		args  []string
		code  int
		want  string
	}{
		{"no terminal, no --yes", "", false, []string{"sign", fx.txFile, "--key", fx.keyFile, "--out", out}, 1, "not a terminal"},
		{"declined at the prompt", "n\n", true, []string{"sign", fx.txFile, "--key", fx.keyFile, "--out", out}, 1, "declined"},
		{"outside the policy", "", false, []string{"sign", fx.txFile, "--key", fx.keyFile, "--yes", "--policy", policyFile, "--out", out}, 1, "outside the policy"},
		{"too little time left for the policy", "", false, []string{"sign", fx.txFile, "--key", fx.keyFile, "--yes", "--policy", hurried, "--out", out}, 1, "less than the policy's minTimeLeft 2h"},
		{"party not in act_as", "", false, []string{"sign", fx.txFile, "--key", fx.keyFile, "--yes", "--party", "bob::1220", "--out", out}, 2, "not among the act_as parties"},
		{"bare base64", "", false, []string{"sign", bare, "--key", fx.keyFile, "--yes", "--out", out}, 1, "bare prepared transaction"},
		{"no key", "", false, []string{"sign", fx.txFile, "--yes"}, 2, "--key KEYFILE is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCmd(t, tc.stdin, tc.tty, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tc.code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatal("a file was written")
			}
		})
	}
}

func TestSignExpiredMaxRecordTime(t *testing.T) {
	fx := newSignFixture(t, "rich_v3.json")
	ios, _, _, _ := cmdutil.Test()
	opts := &SignOptions{IO: ios, Now: func() time.Time { return time.UnixMicro(1754537709899822 + 1).UTC() },
		File: fx.txFile, KeyFile: fx.keyFile, Yes: true, Out: filepath.Join(fx.dir, "x.json")}
	err := signRun(opts)
	if err == nil || !strings.Contains(err.Error(), "max_record_time") {
		t.Fatalf("err = %v", err)
	}
}

func TestSignConfirmAndSignInTurn(t *testing.T) {
	fx := newSignFixture(t, "rich_v2.json")
	// Make it a two-party submission, with the node's hash recomputed.
	bob, _ := signer.Generate(rand.Reader)
	bobParty := "bob::" + bob.Fingerprint()
	tx, hash := actAs(t, readEnvelope(t, fx.txFile).PreparedTransaction, "HASHING_SCHEME_VERSION_V2", fx.party, bobParty)
	writePrepareResponse(t, fx.txFile, tx, hash, "HASHING_SCHEME_VERSION_V2")
	nodeHash := [32]byte(mustB64(t, hash))
	bobFile := filepath.Join(fx.dir, "bob.key")
	if err := signer.WriteKeyFile(bobFile, signer.MarshalPlaintextKeyFile(bob), false); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(fx.dir, "signed.json")
	// alice confirms on a terminal.
	_, stderr, code := runCmd(t, "y\n", true, "sign", fx.txFile, "--key", fx.keyFile, "--party", fx.party, "--out", out)
	if code != 0 {
		t.Fatalf("alice: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Sign as "+fx.party) {
		t.Errorf("no prompt shown: %s", stderr)
	}
	// bob signs the signed file in turn; alice's signature stays.
	_, stderr, code = runCmd(t, "", false, "sign", out, "--key", bobFile, "--party", bobParty, "--yes", "--out", out)
	if code != 0 {
		t.Fatalf("bob: exit %d: %s", code, stderr)
	}
	env := readEnvelope(t, out)
	if n := len(env.PartySignatures.Signatures); n != 2 {
		t.Fatalf("%d party signatures, want 2", n)
	}
	sum := nodeHash
	checks := env.CheckSignatures(sum, []signer.PublicKey{fx.key.Public(), bob.Public()})
	for _, c := range checks {
		if c.Err != nil {
			t.Errorf("%s: %v", c.Party, c.Err)
		}
	}
	// Signing again with the same key replaces, not duplicates.
	runCmd(t, "", false, "sign", out, "--key", bobFile, "--party", bobParty, "--yes", "--out", out)
	if n := len(readEnvelope(t, out).PartySignatures.Signatures[1].Signatures); n != 1 {
		t.Errorf("bob has %d signatures after signing twice", n)
	}
}

// sign --verify-only refuses a file that does not hash to the node's hash
// with the exit status of a mismatch, as sign and verify do.
func TestSignVerifyOnlyMismatchExits3(t *testing.T) {
	fx := newSignFixture(t, "rich_v2.json")
	env := readEnvelope(t, fx.txFile)
	other := newSignFixture(t, "rich_v3.json")
	otherEnv := readEnvelope(t, other.txFile)
	writePrepareResponse(t, fx.txFile, env.PreparedTransaction, otherEnv.PreparedTransactionHash, env.HashingSchemeVersion)
	_, stderr, code := runCmd(t, "", false, "sign", "--verify-only", fx.txFile, "--pubkey", fx.key.Public().String())
	if code != cmdutil.ExitHashMismatch || !strings.Contains(stderr, "signatures are not checked") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
