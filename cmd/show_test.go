package cmd

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// showNow is a minute after the rich vectors were prepared.
var showNow = time.Date(2025, 8, 7, 2, 36, 0, 0, time.UTC)

type showVector struct {
	Scheme string `json:"hashing_scheme_version"`
	Hash   string `json:"expected_prepared_transaction_hash_b64"`
	B64    string `json:"prepared_transaction_b64"`
}

func readShowVector(t *testing.T, name string) showVector {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "vectors", "derived", name))
	if err != nil {
		t.Fatal(err)
	}
	var v showVector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// prepareResponse writes a prepare response as a node returns it.
func prepareResponse(t *testing.T, v showVector) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{
		"preparedTransaction":     v.B64,
		"preparedTransactionHash": v.Hash,
		"hashingSchemeVersion":    v.Scheme,
	})
	p := filepath.Join(t.TempDir(), "prepared.json")
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runShow(t *testing.T, stdin string, color bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, in, out, errOut := cmdutil.Test()
	in.WriteString(stdin)
	ios.SetColorEnabled(color)
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return showNow }}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

func TestShowPrepareResponse(t *testing.T) {
	file := prepareResponse(t, readShowVector(t, "rich_v3.json"))
	out, errOut, code := runShow(t, "", false, "show", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"exercise Holding_Transfer on Holding 0007e7…21c5 (by key) as\nalice::1220a1a2…bebf",
		"node's hash  matches",
		"recomputed here with HASHING_SCHEME_VERSION_V3",
		"time left    49s, until max_ledger_effective_time",
		"look up Main.Token:Holding by key: found 2 (not exhaustive)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("colour codes without a colour terminal")
	}
	colored, _, _ := runShow(t, "", true, "show", file)
	if !strings.Contains(colored, "\x1b[") {
		t.Errorf("no colour codes when colour is enabled")
	}
}

func TestShowHashMismatchExits3(t *testing.T) {
	v := readShowVector(t, "rich_v3.json")
	v.Hash = readShowVector(t, "rich_v2.json").Hash
	out, errOut, code := runShow(t, "", false, "show", prepareResponse(t, v))
	if code != cmdutil.ExitHashMismatch {
		t.Fatalf("exit %d, want %d", code, cmdutil.ExitHashMismatch)
	}
	if !strings.Contains(out, "node's hash  DIFFERS") || !strings.Contains(out, "! the hash the preparing node sent differs") {
		t.Errorf("the mismatch is not shown:\n%s", out)
	}
	if !strings.Contains(errOut, "do not sign") {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestShowJSON(t *testing.T) {
	file := prepareResponse(t, readShowVector(t, "rich_v2.json"))
	out, errOut, code := runShow(t, "", false, "show", "-o", "json", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Summary string `json:"summary"`
		Hash    struct {
			Scheme      string `json:"scheme"`
			MatchesNode *bool  `json:"matchesNode"`
		} `json:"hash"`
		Effects struct {
			Created []struct {
				ContractID string `json:"contractId"`
			} `json:"created"`
		} `json:"effects"`
		Times struct {
			MaxRecordTime struct {
				Signed      bool  `json:"signed"`
				SecondsLeft int64 `json:"secondsLeft"`
			} `json:"maxRecordTime"`
		} `json:"times"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Hash.Scheme != "HASHING_SCHEME_VERSION_V2" || r.Hash.MatchesNode == nil || !*r.Hash.MatchesNode {
		t.Errorf("hash = %+v", r.Hash)
	}
	if len(r.Effects.Created) != 1 || r.Effects.Created[0].ContractID != "00aa0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8ca101220f00d" {
		t.Errorf("created = %+v (JSON keeps full ids)", r.Effects.Created)
	}
	if r.Times.MaxRecordTime.Signed || r.Times.MaxRecordTime.SecondsLeft != 3549 {
		t.Errorf("max record time = %+v, want unsigned under V2 with 3549 s left", r.Times.MaxRecordTime)
	}

	yaml, _, code := runShow(t, "", false, "show", "-o", "yaml", file)
	if code != 0 || !strings.Contains(yaml, "summary: exercise Holding_Transfer") {
		t.Errorf("yaml output (exit %d):\n%.300s", code, yaml)
	}
}

func TestShowBareBase64(t *testing.T) {
	v := readShowVector(t, "rich_v3.json")
	// Bare base64 defaults to V2, which cannot hash contract keys: the
	// transaction is still shown, with the reason, and the exit status is 1.
	out, errOut, code := runShow(t, v.B64+"\n", false, "show", "-")
	if code != cmdutil.ExitFailure || !strings.Contains(out, "HASH  could not be recomputed") || !strings.Contains(errOut, "standard input") {
		t.Errorf("exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	out, errOut, code = runShow(t, v.B64, false, "show", "--scheme", "v3", "--full-ids", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, _ := base64.StdEncoding.DecodeString(v.Hash)
	if !strings.Contains(out, base64.StdEncoding.EncodeToString(raw)) {
		t.Errorf("the V3 hash is not shown")
	}
	if !strings.Contains(out, "alice::1220a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf") || strings.Contains(out, "PARTIES") {
		t.Errorf("--full-ids: ids are not in full or the legend is still printed:\n%s", out)
	}
}

func TestShowUsageAndInputErrors(t *testing.T) {
	file := prepareResponse(t, readShowVector(t, "rich_v3.json"))
	garbage := filepath.Join(t.TempDir(), "garbage.b64")
	if err := os.WriteFile(garbage, []byte("AAAA"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"show"}, cmdutil.ExitUsage, "missing FILE|-"},
		{"scheme contradicts the file", []string{"show", "--scheme", "v2", file}, cmdutil.ExitUsage, "contradicts"},
		{"unknown scheme", []string{"show", "--scheme", "v9", file}, cmdutil.ExitUsage, "--scheme"},
		{"missing file", []string{"show", filepath.Join(t.TempDir(), "nope.json")}, cmdutil.ExitFailure, "no such file"},
		{"not a prepared transaction", []string{"show", garbage}, cmdutil.ExitFailure, "does not decode as a PreparedTransaction"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runShow(t, "", false, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, c.code, errOut, c.want)
			}
			if out != "" {
				t.Errorf("output on error:\n%s", out)
			}
		})
	}
}

func TestShowEnvelopeContext(t *testing.T) {
	v := readShowVector(t, "rich_v3.json")
	body, _ := json.Marshal(map[string]any{
		"preparedTransaction":     v.B64,
		"preparedTransactionHash": v.Hash,
		"hashingSchemeVersion":    v.Scheme,
		"partySignatures": map[string]any{"signatures": []any{map[string]any{
			"party": "bob::1220c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf",
			"signatures": []any{map[string]string{
				"format": "SIGNATURE_FORMAT_CONCAT", "signature": "AAAA",
				"signedBy":             "1220d44fc1c3ba0b5bdf7b956ee71bc94ebe2d23258dc268fdf0824fbaeff2c61424",
				"signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519",
			}},
		}}},
		"costEstimation": map[string]any{
			"estimationTimestamp":                       "2025-08-07T02:35:10Z",
			"confirmationRequestTrafficCostEstimation":  "1000",
			"confirmationResponseTrafficCostEstimation": 234,
			"totalTrafficCostEstimation":                1234,
		},
		"envelope": map[string]any{
			"format": "ledger-envelope", "version": 1,
			"nodeUrl": "http://localhost:7575", "preparedAt": "2025-08-07T02:35:10Z",
		},
	})
	file := filepath.Join(t.TempDir(), "tx.json")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runShow(t, "", false, "show", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"FROM THE FILE  not signed; context only",
		"form         envelope",
		"node         http://localhost:7575",
		"traffic cost 1234 bytes (request 1000, response 234)",
		"signed by    bob::1220c0c1…dedf key 1220d44f…1424",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
