package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

var (
	pingOnce sync.Once
	pingDar  *archive.Dar
	pingErr  error
)

func ping(t *testing.T) *archive.Dar {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("Ping DAR not found at %s; skipping", path)
	}
	pingOnce.Do(func() { pingDar, pingErr = archive.ReadDarFile(path, archive.Options{}) })
	if pingErr != nil {
		t.Fatal(pingErr)
	}
	return pingDar
}

func args(js ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(js))
	for i, j := range js {
		out[i] = json.RawMessage(j)
	}
	return out
}

func TestRun(t *testing.T) {
	d := ping(t)
	for _, c := range []struct {
		ref  string
		args []string
		want string // JSON of the result
		typ  string
	}{
		{"daml-stdlib:DA.Text:splitOn", []string{`", "`, `"a, b, c"`}, `["a","b","c"]`, "[Text]"},
		{"daml-stdlib:DA.Date:date", []string{`2024`, `"Feb"`, `29`}, `"2024-02-29"`, "Date"},
		{"daml-stdlib:DA.Date:addDays", []string{`"2024-02-28"`, `"2"`}, `"2024-03-01"`, "Date"},
		{"daml-stdlib:DA.Date:toGregorian", []string{`"1999-12-31"`}, `{"_1":"1999","_2":"Dec","_3":"31"}`, "(Int, Month, Int)"},
		{"daml-stdlib:DA.Time:convertRelTimeToMicroseconds", []string{`{"microseconds": 1500}`}, `"1500"`, "Int"},
		{"daml-stdlib:DA.Time:addRelTime", []string{`"2020-01-01T00:00:00Z"`, `{"microseconds": 1500}`}, `"2020-01-01T00:00:00.0015Z"`, "Time"},
		{"daml-stdlib:DA.Text:splitOn", []string{`", "`}, "", "Text -> [Text]"},
	} {
		r, err := Run(context.Background(), d, c.ref, args(c.args...), interp.Limits{})
		if err != nil {
			t.Errorf("%s %v: %v", c.ref, c.args, err)
			continue
		}
		if c.want != "" {
			got, err := r.JSON()
			if err != nil || string(got) != c.want {
				t.Errorf("%s %v = %s, want %s", c.ref, c.args, got, c.want)
			}
		}
		if r.Type.String() != c.typ {
			t.Errorf("%s: type %s, want %s", c.ref, r.Type, c.typ)
		}
	}
}

func TestRunErrors(t *testing.T) {
	d := ping(t)
	for _, c := range []struct {
		ref  string
		args []string
		want string
	}{
		{"Nope:x", nil, "has no module Nope"},
		{"daml-stdlib:DA.Date:nope", nil, "has no value nope"},
		{"nopkg:A:b", nil, `no package "nopkg"`},
		{"x", nil, "write Module:name"},
		{"daml-stdlib:DA.Date:date", []string{`"x"`}, `For input string: "x" (expected an Int64) at argument 1`},
		{"daml-stdlib:DA.Date:date", []string{`1`, `"Smarch"`}, "Unexpected enum constructor: Smarch (DA.Date.Types:Month has Jan"},
		{"daml-stdlib:DA.Time:convertRelTimeToMicroseconds", []string{`{"micros": 1}`}, "Missing non-optional fields: Set(microseconds) at argument 1"},
		{"daml-stdlib:DA.Text:length", []string{`"a"`, `"b"`}, "takes 1 argument(s), not 2"},
	} {
		_, err := Run(context.Background(), d, c.ref, args(c.args...), interp.Limits{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error containing %q", c.ref, c.args, err, c.want)
		}
	}
	// Daml errors are interpretation errors: Feb 30 does not exist.
	_, err := Run(context.Background(), d, "daml-stdlib:DA.Date:date", args(`2023`, `"Feb"`, `30`), interp.Limits{})
	var ie *interp.Error
	if !errors.As(err, &ie) || ie.ID != "DAML_FAILURE" {
		t.Errorf("date 2023 Feb 30: %v", err)
	}
}

// TestCreateTokenHolding creates a contract of a real application's template
// (my-exercise-app.dar's TokenHolding: a Decimal amount, records and a text
// map of the token-standard packages, an interface instance) from a JSON
// argument read by the template's type.
func TestCreateTokenHolding(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars", "my-exercise-app.dar")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found; skipping", path)
	}
	d, err := archive.ReadDarFile(path, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pkgs := resolve.NewPackages(d.Packages...)
	main := d.MainPackage()
	tc := lf.TypeConName{Package: main.ID, Module: lf.DottedName{"TokenHolding"}, Name: lf.DottedName{"TokenHolding"}}
	plan, err := typed.NewEnv(d.Packages...).Plan(lf.TCon{Con: tc})
	if err != nil {
		t.Fatal(err)
	}
	arg, err := plan.DecodeJSON([]byte(`{
		"owner": "alice::1220aa", "dso": "dso::1220dd",
		"instrumentId": {"admin": "dso::1220dd", "id": "Amulet"},
		"amount": "12.5",
		"meta": {"values": {"k": "v"}}}`), typed.DecodeOptions{Path: "argument"})
	if err != nil {
		t.Fatal(err)
	}
	eng := interp.NewEngine(pkgs, interp.Limits{})
	var seed tx.Hash
	res, err := eng.Submit(context.Background(), &interp.Submission{
		Commands:        []interp.Command{&interp.CreateCommand{Template: pkgs.Identifier(tc), Argument: arg}},
		ActAs:           []string{"dso::1220dd"},
		SubmissionSeed:  seed,
		ParticipantID:   "p",
		PreparationTime: 1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Transaction.Nodes[0].(*tx.Create)
	if strings.Join(c.Stakeholders, ",") != "alice::1220aa,dso::1220dd" || c.PackageName != main.Name ||
		c.Argument.(*value.Record).Field("amount").String() != "12.5000000000" {
		t.Errorf("create node %+v", c)
	}
}
