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

// `ledger daml eval --memory` bounds the bytes of values an evaluation
// builds: reversing a text of a million characters (explode, reverse,
// implode: about 30 MB of values) fits the default budget and not one of
// 1 MiB, which answers INTERPRETATION_TIME_EXCEEDED, exit 1.
func TestDamlEvalMemory(t *testing.T) {
	isolateConfig(t)
	dar := filepath.Join("..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	args := []string{"daml", "eval", dar, "daml-stdlib:DA.Text:reverse", "--arg", `"` + strings.Repeat("ab", 500_000) + `"`, "-o", "json"}
	r := runCLI(t, "", args...)
	if r.code != 0 || !strings.Contains(r.out, `"baba`) {
		t.Fatalf("reverse within the default budget: exit %d, err %q", r.code, r.err)
	}
	r = runCLI(t, "", append(args, "--memory", "1MiB")...)
	if r.code != 1 || !strings.Contains(r.err, "INTERPRETATION_TIME_EXCEEDED") || !strings.Contains(r.err, "memory budget of 1048576 bytes") {
		t.Fatalf("reverse with --memory 1MiB: exit %d, err %q", r.code, r.err)
	}
	r = runCLI(t, "", append(args, "--memory", "lots")...)
	if r.code != 2 || !strings.Contains(r.err, "--memory") {
		t.Fatalf("--memory lots: exit %d, err %q", r.code, r.err)
	}
}
