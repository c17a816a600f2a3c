package daml_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/internal/cmdtest"
)

// `ledger daml eval` runs a DAR's code offline: a standard-library function
// of the Ping DAR with JSON arguments, as text and as JSON, and a Daml error
// with its Canton id and exit 1.
func TestDamlEval(t *testing.T) {
	cmdtest.IsolateConfig(t)
	dar := filepath.Join("..", "..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	r := cmdtest.Run(t, cmd.NewCmdRoot, "", "daml", "eval", dar, "daml-stdlib:DA.Text:splitOn", "--arg", `", "`, "--arg", `"a, b, c"`)
	if r.Code != 0 || !strings.Contains(r.Out, `"a"`) || !strings.Contains(r.Out, `"c"`) {
		t.Fatalf("splitOn: exit %d, out %q, err %q", r.Code, r.Out, r.Err)
	}
	r = cmdtest.Run(t, cmd.NewCmdRoot, "", "daml", "eval", dar, "daml-stdlib:DA.Text:splitOn", "--arg", `", "`, "--arg", `"a, b"`, "-o", "json")
	var res struct {
		Value []string
		Type  string
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Out), &res) != nil || strings.Join(res.Value, "|") != "a|b" || res.Type != "[Text]" {
		t.Fatalf("splitOn -o json: exit %d, out %q, err %q", r.Code, r.Out, r.Err)
	}
	r = cmdtest.Run(t, cmd.NewCmdRoot, "", "daml", "eval", dar, "daml-stdlib:DA.Text:splitOn", "--arg", `1`)
	if r.Code == 0 {
		t.Fatalf("a number for Text was accepted: %q", r.Out)
	}
	r = cmdtest.Run(t, cmd.NewCmdRoot, "", "daml", "eval", dar, "Nope:missing")
	if r.Code != 1 || !strings.Contains(r.Err, "has no module Nope; its modules are Canton.Internal.Ping") {
		t.Fatalf("unknown value: exit %d, err %q", r.Code, r.Err)
	}
}

// `ledger daml eval --memory` bounds the bytes of values an evaluation
// builds: reversing a text of a million characters (explode, reverse,
// implode: about 30 MB of values) fits the default budget and not one of
// 1 MiB, which answers INTERPRETATION_TIME_EXCEEDED, exit 1.
func TestDamlEvalMemory(t *testing.T) {
	cmdtest.IsolateConfig(t)
	dar := filepath.Join("..", "..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	args := []string{"daml", "eval", dar, "daml-stdlib:DA.Text:reverse", "--arg", `"` + strings.Repeat("ab", 500_000) + `"`, "-o", "json"}
	r := cmdtest.Run(t, cmd.NewCmdRoot, "", args...)
	if r.Code != 0 || !strings.Contains(r.Out, `"baba`) {
		t.Fatalf("reverse within the default budget: exit %d, err %q", r.Code, r.Err)
	}
	r = cmdtest.Run(t, cmd.NewCmdRoot, "", append(args, "--memory", "1MiB")...)
	if r.Code != 1 || !strings.Contains(r.Err, "INTERPRETATION_TIME_EXCEEDED") || !strings.Contains(r.Err, "memory budget of 1048576 bytes") {
		t.Fatalf("reverse with --memory 1MiB: exit %d, err %q", r.Code, r.Err)
	}
	r = cmdtest.Run(t, cmd.NewCmdRoot, "", append(args, "--memory", "lots")...)
	if r.Code != 2 || !strings.Contains(r.Err, "--memory") {
		t.Fatalf("--memory lots: exit %d, err %q", r.Code, r.Err)
	}
}

// `ledger daml eval` runs functions with a type-class constraint or a
// Numeric of any scale once --type or --scale is given, and says which to
// give (usage, exit 2) when it is not (issue 25, item 14).
func TestDamlEvalPolymorphic(t *testing.T) {
	cmdtest.IsolateConfig(t)
	dar := filepath.Join("..", "..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	for _, c := range []struct {
		args []string
		code int
		out  string // in standard output (exit 0) or standard error
	}{
		{[]string{"daml-stdlib:DA.List:sort", "--type", "Int", "--arg", "[3, 1, 2]", "-o", "json"}, 0, `"value": [`},
		{[]string{"daml-prim:GHC.Show:show", "--type", "Decimal", "--arg", `"1.5"`}, 0, "1.5"},
		{[]string{"daml-stdlib:DA.Numeric:mul", "--scale", "10", "--arg", `"1.5"`, "--arg", `"2.5"`}, 0, "3.75"},
		{[]string{"daml-stdlib:DA.List:sort", "--arg", "[3, 1, 2]"}, 2, "give its type with --type"},
		{[]string{"daml-stdlib:DA.Numeric:mul", "--arg", `"1.5"`, "--arg", `"2.5"`}, 2, "give the scale with --scale"},
		{[]string{"daml-stdlib:DA.Numeric:mul", "--scale", "38", "--arg", `"1.5"`, "--arg", `"2.5"`}, 2, "0 to 37"},
	} {
		r := cmdtest.Run(t, cmd.NewCmdRoot, "", append([]string{"daml", "eval", dar}, c.args...)...)
		got := r.Out
		if c.code != 0 {
			got = r.Err
		}
		if r.Code != c.code || !strings.Contains(got, c.out) {
			t.Errorf("%v: exit %d (want %d), out %q, err %q; want %q", c.args, r.Code, c.code, r.Out, r.Err, c.out)
		}
	}
}
