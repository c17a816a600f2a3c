package preprocess

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestImportBoundary: preprocessing runs where no node runs (the client's
// type check, an offline signer): it stands on the engine and the JSON
// API's types, never on the node, the server, the commands or the wallet,
// HTTP or SQL.
func TestImportBoundary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/ledger-cli/ledger/"
	forbidden := []string{module + "node", module + "server", module + "cmd", module + "wallet", "net/http", "database/sql"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("daml/engine/preprocess depends on %s", dep)
			}
		}
	}
}

const (
	pingID   = "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54"
	pingTmpl = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
	alice    = "alice::1220aa"
)

func pingSet(t *testing.T) *engine.PackageSet {
	t.Helper()
	d, err := archive.ReadDarFile(filepath.Join("..", "..", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar"), archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return engine.PackageSetOf(d.Packages...)
}

func create(tmpl, args string) ledgerapi.Command {
	return ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: tmpl, CreateArguments: []byte(args)}}
}

func exercise(tmpl, cid, choice, arg string) ledgerapi.Command {
	return ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: tmpl, ContractID: cid, Choice: choice, ChoiceArgument: []byte(arg)}}
}

// TestCommandReadsPing reads a Ping create by its package name into the
// interpreter's command, the template in package-id form.
func TestCommandReadsPing(t *testing.T) {
	budget := DefaultMaxValueNodes
	r := Reader{Packages: pingSet(t), Budget: &budget}
	cmd, typed, err := r.Command(create(pingTmpl, `{"id":"p","initiator":"`+alice+`","responder":"`+alice+`"}`), "commands[0]")
	if err != nil || !typed {
		t.Fatalf("typed %v, %v", typed, err)
	}
	c, ok := cmd.Daml.(*interp.CreateCommand)
	if !ok || c.Template.PackageID != pingID || c.Argument == nil {
		t.Fatalf("command %#v", cmd.Daml)
	}
	if cmd.Template.String() != pingID+":Canton.Internal.Ping:Ping" || cmd.Template.PackageName != "canton-builtin-admin-workflow-ping" {
		t.Errorf("template %v of %q", cmd.Template, cmd.Template.PackageName)
	}
	if budget >= DefaultMaxValueNodes {
		t.Error("the argument's values were not counted")
	}
	if _, typed, err := r.Command(create("#iou:Iou:Iou", `{}`), "commands[0]"); typed || err != nil {
		t.Errorf("a template of no package: typed %v, %v", typed, err)
	}
}

// TestCheckErrors: each command that does not fit the package gets
// Canton's error id and a cause naming what is wrong.
func TestCheckErrors(t *testing.T) {
	set := pingSet(t)
	local := "00" + strings.Repeat("ab", 32)
	cid := local + "ca12" + strings.Repeat("cd", 32)
	cases := []struct {
		name  string
		cmd   ledgerapi.Command
		code  string
		cause string
	}{
		{"no command", ledgerapi.Command{}, "MISSING_FIELD", "command"},
		{"no template", create("", `{}`), "MISSING_FIELD", "template_id"},
		{"bad template", create("nocolons", `{}`), "INVALID_FIELD", "template_id"},
		{"unknown template", create(pingTmpl+"x", `{}`), "TEMPLATES_OR_INTERFACES_NOT_FOUND", "Pingx"},
		{"null argument", create(pingTmpl, `null`), "MISSING_FIELD", "create_arguments"},
		{"missing field", create(pingTmpl, `{"id":"p"}`), "COMMAND_PREPROCESSING_FAILED", "initiator"},
		{"wrong type", create(pingTmpl, `{"id":1,"initiator":"`+alice+`","responder":"`+alice+`"}`), "INVALID_ARGUMENT", "createArguments.id"},
		{"no contract id", exercise(pingTmpl, "", "AbortPing", `{}`), "MISSING_FIELD", "contract_id"},
		{"bad contract id", exercise(pingTmpl, "01", "AbortPing", `{}`), "INVALID_FIELD", "contract_id"},
		{"bad choice name", exercise(pingTmpl, cid, "Abort-Ping", `{}`), "INVALID_FIELD", "choice"},
		{"unknown choice", exercise(pingTmpl, cid, "Nope", `{}`), "INVALID_ARGUMENT", "Nope"},
		{"unsuffixed contract id", exercise(pingTmpl, local, "AbortPing", `{}`), "COMMAND_PREPROCESSING_FAILED", "Illegal Contract ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(set, []ledgerapi.Command{c.cmd}, nil)
			var je *ledgerapi.JsCantonError
			if !errors.As(err, &je) || je.Code != c.code || !strings.Contains(je.Cause, c.cause) {
				t.Fatalf("error %v, want %s naming %q", err, c.code, c.cause)
			}
		})
	}
	if err := Check(set, nil, nil); err == nil {
		t.Error("no commands: no error")
	}
}
