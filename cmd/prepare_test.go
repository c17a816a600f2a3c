package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/internal/cmdtest"
	"github.com/ledger-cli/ledger/cmd/parties"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
)

var onlineSecret = cmdtest.Secret

// liveNode is an in-process `ledger serve` with HS256 tokens.
type liveNode struct {
	t     *testing.T
	url   string
	admin string
	node  *cmdtest.Node
}

func startLiveNode(t *testing.T) *liveNode {
	t.Helper()
	n := cmdtest.StartNode(t)
	return &liveNode{t: t, url: n.URL, admin: n.Admin, node: n}
}

// startOpenNode is an in-process `ledger serve` without authentication,
// the default of ledger serve; it returns the node's URL.
func startOpenNode(t *testing.T) string {
	t.Helper()
	return cmdtest.StartOpenNode(t)
}

// token is a token of user for n, valid for an hour.
func (n *liveNode) token(user string) string {
	n.t.Helper()
	return n.node.Token(user)
}

// isolateConfig keeps the user's profiles and LEDGER_* variables out.
func isolateConfig(t *testing.T) {
	t.Helper()
	cmdtest.IsolateConfig(t)
}

// cliResult is one run of the CLI.
type cliResult struct {
	out, err string
	code     int
}

// runCLI runs ledger with args as the binary does, on buffers.
func runCLI(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	r := cmdtest.Run(t, NewCmdRoot, stdin, args...)
	return cliResult{out: r.Out, err: r.Err, code: r.Code}
}

func (r cliResult) must(t *testing.T, code int) cliResult {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.err)
	}
	return r
}

// externalParty onboards an external party with a fresh plaintext key file
// through `ledger parties allocate-external`, and a user that may execute
// and read as it. It returns the party, the key, the key file and the
// user's token.
func (n *liveNode) externalParty(hint string) (party string, key *signer.Key, keyFile, token string) {
	t := n.t
	t.Helper()
	key, err := signer.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(t.TempDir(), hint+".key")
	if err := signer.WriteKeyFile(keyFile, signer.MarshalPlaintextKeyFile(key), false); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "parties", "allocate-external", "--key", keyFile, "--hint", hint, "--yes", "--url", n.url, "--token", n.admin, "-o", "json").must(t, 0)
	var res parties.ExternalPartyResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("allocate-external -o json: %v\n%s", err, r.out)
	}
	party = res.PartyID
	if party != hint+"::"+key.Fingerprint() {
		t.Fatalf("party %s, want %s::%s", party, hint, key.Fingerprint())
	}
	user := hint + "-wallet"
	runCLI(t, "", "users", "create", user, "--primary-party", party, "--execute-as", party, "--read-as", party, "--url", n.url, "--token", n.admin).must(t, 0)
	return party, key, keyFile, n.token(user)
}

// signEnvelope signs an envelope file as `ledger sign` would: recompute
// the hash, sign it, add the signature.
func signEnvelope(t *testing.T, in, out, party string, key *signer.Key) {
	t.Helper()
	env, err := wallet.ReadEnvelope(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	check, err := env.Verify(0, false)
	if err != nil || !check.Match {
		t.Fatalf("verify %s: %v %+v", in, err, check)
	}
	env.PartySignatures.Add(party, ledgerapi.SignatureOf(key.SignHash(check.Recomputed)))
	if err := env.WriteFile(out); err != nil {
		t.Fatal(err)
	}
}

// TestOfflineFlowAgainstServe is the flow of the README against a real
// node: onboard an external party, prepare to a file, sign offline, execute
// and wait, then find the completion.
func TestOfflineFlowAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	party, key, _, tok := n.externalParty("alice")
	dir := t.TempDir()
	tx := filepath.Join(dir, "tx.json")
	conn := []string{"--url", n.url, "--token", tok}

	r := runCLI(t, "", append([]string{"prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + party + `","amount":"10.0"}`,
		"--act-as", party, "--command-id", "iou-1", "--max-record-time", "10m", "--out", tx}, conn...)...).must(t, 0)
	for _, want := range []string{"Prepared command iou-1", "verified:", "cost:", "envelope:   " + tx, "Next: ledger sign"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("prepare output lacks %q:\n%s", want, r.out)
		}
	}
	env, err := wallet.ReadEnvelope(tx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var preq map[string]json.RawMessage
	if env.Info == nil || env.Info.NodeURL != n.url || json.Unmarshal(env.Info.PrepareRequest, &preq) != nil || string(preq["packageIdSelectionPreference"]) != "[]" {
		t.Errorf("envelope info %+v", env.Info)
	}

	// Unsigned: refused before anything is sent.
	r = runCLI(t, "", append([]string{"execute", tx, "--wait"}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "no signatures") {
		t.Errorf("unsigned execute: %s", r.err)
	}

	signed := filepath.Join(dir, "tx.signed.json")
	signEnvelope(t, tx, signed, party, key)

	// A tampered hash is caught before sending (exit 3).
	tampered := filepath.Join(dir, "tampered.json")
	b, _ := os.ReadFile(signed)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["preparedTransactionHash"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	b, _ = json.Marshal(m)
	os.WriteFile(tampered, b, 0o600)
	runCLI(t, "", append([]string{"execute", tampered, "--wait"}, conn...)...).must(t, 3)

	r = runCLI(t, "", append([]string{"execute", signed, "--wait", "-o", "json"}, conn...)...).must(t, 0)
	var res ExecuteResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if res.Status != "committed" || res.UpdateID == "" || res.CommandID != "iou-1" || res.CompletionOffset <= 0 || res.RecordTime == "" || res.PaidTrafficCost == nil {
		t.Errorf("execute result %+v", res)
	}

	// The completion of the command, found from the beginning.
	r = runCLI(t, "", append([]string{"completions", "--party", party, "--until-command-id", "iou-1", "--max-wait", "30s", "-o", "json"}, conn...)...).must(t, 0)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	var c ledgerapi.Completion
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &c) != nil || c.CommandID != "iou-1" || c.UpdateID != res.UpdateID {
		t.Errorf("completions --until-command-id: %q", r.out)
	}

	// Executing the same transaction again is refused: exit 4 with a hint.
	r = runCLI(t, "", append([]string{"execute", signed, "--wait"}, conn...)...).must(t, 4)
	if !strings.Contains(r.err, "rejected: ") || !strings.Contains(r.err, "hint: ") {
		t.Errorf("duplicate: %s", r.err)
	}
}

// TestExecuteAfterMaxRecordTimeIsRejected checks exit 4 with the hint to
// prepare again with a later --max-record-time. prepare and sign refuse a
// deadline already past, so the transactions get one second and the test
// waits it out.
func TestExecuteAfterMaxRecordTimeIsRejected(t *testing.T) {
	n := startLiveNode(t)
	party, key, _, tok := n.externalParty("late")
	dir := t.TempDir()
	tx, tx2 := filepath.Join(dir, "tx.json"), filepath.Join(dir, "tx2.json")
	conn := []string{"--url", n.url, "--token", tok}
	for id, file := range map[string]string{"late-1": tx, "late-2": tx2} {
		runCLI(t, "", append([]string{"prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + party + `"}`,
			"--act-as", party, "--command-id", id, "--max-record-time", "1s", "--out", file}, conn...)...).must(t, 0)
		signEnvelope(t, file, file, party, key)
	}
	time.Sleep(1100 * time.Millisecond)
	r := runCLI(t, "", append([]string{"execute", tx, "--wait"}, conn...)...).must(t, 4)
	if !strings.Contains(r.err, "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED") || !strings.Contains(r.err, "later --max-record-time") {
		t.Errorf("stderr: %s", r.err)
	}
	// Without --wait the submission is accepted; the rejection arrives as a
	// completion, and --until-command-id exits 4.
	r = runCLI(t, "", append([]string{"execute", tx2}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "Submitted command late-2") {
		t.Errorf("execute: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"completions", "--party", party, "--until-command-id", "late-2", "--max-wait", "30s"}, conn...)...).must(t, 4)
	if !strings.Contains(r.out, "REJECTED") || !strings.Contains(r.err, "hint: the max record time passed") {
		t.Errorf("completions: out %s err %s", r.out, r.err)
	}
}

// TestExecuteWithAnotherPartysKey: the node refuses a signature by a key
// not registered for the party, and the hint says which key to use instead
// of "prepare again".
func TestExecuteWithAnotherPartysKey(t *testing.T) {
	n := startLiveNode(t)
	alice, _, _, tok := n.externalParty("alice")
	_, bobKey, _, _ := n.externalParty("bob")
	tx := filepath.Join(t.TempDir(), "tx.json")
	conn := []string{"--url", n.url, "--token", tok}
	runCLI(t, "", append([]string{"prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + alice + `"}`,
		"--act-as", alice, "--out", tx}, conn...)...).must(t, 0)
	signEnvelope(t, tx, tx, alice, bobKey)
	r := runCLI(t, "", append([]string{"execute", tx, "--wait"}, conn...)...).must(t, 4)
	if !strings.Contains(r.err, "FAILED_TO_EXECUTE_TRANSACTION") || !strings.Contains(r.err, "hint: the signatures do not verify with a key registered for the party") ||
		strings.Contains(r.err, "prepare again") {
		t.Errorf("stderr: %s", r.err)
	}
}

func TestPrepareToStdoutAndShow(t *testing.T) {
	n := startLiveNode(t)
	party, _, _, tok := n.externalParty("bob")
	r := runCLI(t, "", "prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"`+party+`"}`, "--act-as", party,
		"--show", "--scheme", "v2", "--no-cost-estimate", "--url", n.url, "--token", tok).must(t, 0)
	env, err := wallet.ParseEnvelope([]byte(r.out))
	if err != nil || env.Form != wallet.FormEnvelope {
		t.Fatalf("stdout is not an envelope: %v\n%s", err, r.out)
	}
	// #iou has no package on the node: its generic model served it, and
	// the node's answer said so in a header the note is made from.
	for _, want := range []string{"Prepared command", "not estimated (--no-cost-estimate)", "Iou", "no package for #iou:Iou:Iou"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
}

func TestPrepareUsageErrors(t *testing.T) {
	isolateConfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prepare", "--act-as", "a::1", "--url", "http://127.0.0.1:1"}, "no command"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{", "--act-as", "a::1", "--url", "http://127.0.0.1:1"}, "not valid JSON"},
		{[]string{"prepare", "--create", "nocolons", "--args", "{}", "--act-as", "a::1", "--url", "http://127.0.0.1:1"}, "template"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--url", "http://127.0.0.1:1"}, "--act-as is required"},
		{[]string{"prepare", "--exercise", "#p:M:T", "--choice", "C", "--act-as", "a::1", "--url", "http://127.0.0.1:1"}, "--contract-id"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "--max-record-time", "soon", "--url", "http://127.0.0.1:1"}, "--max-record-time"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "--max-record-time", "-5m", "--url", "http://127.0.0.1:1"}, "--max-record-time -5m is "},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "--max-record-time", "2020-01-01T00:00:00Z", "--url", "http://127.0.0.1:1"}, "which has already passed"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "--expected-signatures", "rsa", "--url", "http://127.0.0.1:1"}, "--expected-signatures"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "-o", "a.json", "--url", "http://127.0.0.1:1"}, "use --out FILE"},
		{[]string{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "-o", "yaml", "--url", "http://127.0.0.1:1"}, "envelopes are JSON only"},
	} {
		r := runCLI(t, "", tc.args...)
		if r.code != cmdutil.ExitUsage || !strings.Contains(r.err, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.err, tc.want)
		}
	}
}

// TestPrepareRequestCarriesEveryFlag checks the request built from flags
// without a node.
func TestPrepareRequestCarriesEveryFlag(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	cmds := filepath.Join(dir, "cmds.json")
	os.WriteFile(cmds, []byte(`[{"ExerciseCommand":{"templateId":"#p:M:T","contractId":"00ab","choice":"Go","choiceArgument":{}}}]`), 0o600)
	var got *PrepareOptions
	ios, _, _, _ := cmdutil.Test()
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC) }}
	cmd := NewCmdPrepare(f, func(o *PrepareOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--commands", "@" + cmds, "--act-as", "a::1", "--read-as", "b::2", "--command-id", "c-1", "--min-ledger-time", "30s",
		"--disclosed", `[{"contractId":"00cd","createdEventBlob":"AAEC","synchronizerId":"s::1"}]`, "--synchronizer", "s::1",
		"--package-preference", "pkgA", "--verbose-hashing", "--prefetch-key", `{"templateId":"#p:M:T","contractKey":"k"}`,
		"--max-record-time", "10m", "--expected-signatures", "ed25519,ed25519", "--taps-max-passes", "3", "--scheme", "v3", "--url", "http://x"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	req, err := got.prepareRequest("alice")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(req)
	for _, want := range []string{`"userId":"alice"`, `"commandId":"c-1"`, `"ExerciseCommand"`, `"readAs":["b::2"]`,
		`"minLedgerTime":{"time":{"MinLedgerTimeRel":{"value":{"seconds":30`, `"synchronizerId":"s::1"`, `"packageIdSelectionPreference":["pkgA"]`,
		`"verboseHashing":true`, `"contractKey":"k"`, `"maxRecordTime":"2026-07-24T12:10:00Z"`,
		`"estimateTrafficCost":{"disabled":false,"expectedSignatures":["SIGNING_ALGORITHM_SPEC_ED25519","SIGNING_ALGORITHM_SPEC_ED25519"]}`,
		`"tapsMaxPasses":3`, `"hashingSchemeVersion":"HASHING_SCHEME_VERSION_V3"`, `"createdEventBlob":"AAEC"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("request lacks %s:\n%s", want, b)
		}
	}
}

// TestWhatComesNextIsTrue: the lines that tell what to do next name what
// the command knows, not placeholders or files it never wrote (issue 12,
// item 32).
func TestWhatComesNextIsTrue(t *testing.T) {
	n := startLiveNode(t)
	party, key, _, tok := n.externalParty("carol")
	dir := t.TempDir()
	conn := []string{"--url", n.url, "--token", tok}

	// The envelope on stdout: no "ledger sign tx.json" for a tx.json that
	// does not exist.
	r := runCLI(t, "", append([]string{"prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + party + `"}`,
		"--act-as", party, "--command-id", "next-1"}, conn...)...).must(t, 0)
	if strings.Contains(r.err, "ledger sign tx.json") || !strings.Contains(r.err, "Next: save the envelope") {
		t.Errorf("prepare to stdout:\n%s", r.err)
	}
	tx, signed := filepath.Join(dir, "tx.json"), filepath.Join(dir, "tx.signed.json")
	if err := os.WriteFile(tx, []byte(r.out), 0o600); err != nil {
		t.Fatal(err)
	}
	signEnvelope(t, tx, signed, party, key)

	// execute without --wait names the party to follow.
	r = runCLI(t, "", append([]string{"execute", signed}, conn...)...).must(t, 0)
	if strings.Contains(r.out, "PARTY") || !strings.Contains(r.out, "ledger completions --party "+party+" --until-command-id next-1") {
		t.Errorf("execute:\n%s", r.out)
	}

	// The completions table has a header.
	r = runCLI(t, "", append([]string{"completions", "--party", party, "--until-command-id", "next-1", "--max-wait", "30s"}, conn...)...).must(t, 0)
	if lines := strings.Split(r.out, "\n"); len(lines) < 2 || !strings.HasPrefix(lines[0], "OFFSET") || !strings.Contains(lines[1], "next-1") {
		t.Errorf("completions:\n%s", r.out)
	}
}
