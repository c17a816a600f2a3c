package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// `ledger daml eval` runs a DAR's code offline: a standard-library function
// of the Ping DAR with JSON arguments, as text and as JSON, and a Daml error
// with its Canton id and exit 1.
func TestDamlEval(t *testing.T) {
	isolateConfig(t)
	dar := filepath.Join("..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	r := runCLI(t, "", "daml", "eval", dar, "daml-stdlib:DA.Text:splitOn", "--arg", `", "`, "--arg", `"a, b, c"`)
	if r.code != 0 || !strings.Contains(r.out, `"a"`) || !strings.Contains(r.out, `"c"`) {
		t.Fatalf("splitOn: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	r = runCLI(t, "", "daml", "eval", dar, "daml-stdlib:DA.Text:splitOn", "--arg", `", "`, "--arg", `"a, b"`, "-o", "json")
	var res struct {
		Value []string
		Type  string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.out), &res) != nil || strings.Join(res.Value, "|") != "a|b" || res.Type != "[Text]" {
		t.Fatalf("splitOn -o json: exit %d, out %q, err %q", r.code, r.out, r.err)
	}
	r = runCLI(t, "", "daml", "eval", dar, "daml-stdlib:DA.Text:splitOn", "--arg", `1`)
	if r.code == 0 {
		t.Fatalf("a number for Text was accepted: %q", r.out)
	}
	r = runCLI(t, "", "daml", "eval", dar, "Nope:missing")
	if r.code != 1 || !strings.Contains(r.err, "has no module Nope; its modules are Canton.Internal.Ping") {
		t.Fatalf("unknown value: exit %d, err %q", r.code, r.err)
	}
}
