package script

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// mutate changes, in the decoded DAR, the literals of the definitions of
// which pick approves.
func mutate(dar *archive.Dar, pick func(p *lf.Package, m *lf.Module, def string) bool, change func(lf.Expr) bool) int {
	n := 0
	for _, p := range dar.Packages {
		for _, m := range p.Modules {
			for _, v := range m.Values {
				if pick(p, m, v.Name.String()) {
					n += mutateLiterals(reflect.ValueOf(v.Body), change)
				}
			}
		}
	}
	return n
}

func runScript(t *testing.T, dar *archive.Dar, name string, opts Options) (*Result, *Failure) {
	t.Helper()
	r := newRunner(t, dar)
	n, err := r.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), n, NewMemoryLedger(r), opts)
	if err == nil {
		return res, nil
	}
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("Run returned %T %v, not a *Failure", err, err)
	}
	return res, f
}

func TestSubmitMustFailThatSucceeds(t *testing.T) {
	// Payment requests that expire at once: the script's "expiring too
	// early" submitMultiMustFail then succeeds.
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	n := mutate(dar, func(p *lf.Package, m *lf.Module, def string) bool {
		return p.ID == dar.Main && strings.Contains(def, "createPaymentRequest")
	}, func(e lf.Expr) bool {
		if x, ok := e.(*lf.EInt64); ok && x.Value == 5 {
			x.Value = 0
			return true
		}
		return false
	})
	if n == 0 {
		t.Fatal("no literal changed")
	}
	_, f := runScript(t, dar, "Splice.Scripts.TestWallet:testExpiringAmuletPaymentRequest", Options{})
	if f == nil {
		t.Fatal("the script passed")
	}
	if f.Kind != "submit" || f.Command != "Submit" || f.Message != "Expected submit to fail but it succeeded" ||
		f.Location == nil || f.Location.String() != "Splice.Scripts.TestWallet:159:3" {
		t.Errorf("failure %+v at %v", f, f.Location)
	}
}

func TestUnknownCommandNamesItAndTheVersion(t *testing.T) {
	// A daml-script whose getTime asks a command this runner does not
	// know.
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	n := mutate(dar, func(p *lf.Package, m *lf.Module, def string) bool { return p.Name == "daml-script" },
		func(e lf.Expr) bool {
			if x, ok := e.(*lf.EText); ok && x.Value == "GetTime" {
				x.Value = "GetTimeNanos"
				return true
			}
			return false
		})
	if n == 0 {
		t.Fatal("no literal changed")
	}
	_, f := runScript(t, dar, "Splice.Scripts.Wallet.TestSubscriptions:testSetup", Options{})
	if f == nil {
		t.Fatal("the script passed")
	}
	want := "unknown daml-script command GetTimeNanos (version 1) of daml-script 3.3.0.20250214.13611.0: this runner does not perform it"
	if f.Kind != "command" || f.Command != "GetTimeNanos" || f.Message != want || f.Location == nil {
		t.Errorf("failure %+v at %v", f, f.Location)
	}
}

func TestScriptLimits(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"commands", Options{MaxCommands: 10}, "the script performed more than 10 commands"},
		{"steps", Options{MaxSteps: 50_000}, "the script took more than 50000 interpreter steps"},
	} {
		res, f := runScript(t, dar, "Splice.Scripts.Wallet.TestSubscriptions:testSetup", c.opts)
		if f == nil || f.Kind != "limit" || f.Message != c.want {
			t.Errorf("%s: failure %+v, want %q", c.name, f, c.want)
		}
		if c.name == "commands" && res.Commands != 10 {
			t.Errorf("ran %d commands, want 10", res.Commands)
		}
	}
	// Each evaluation keeps the interpreter's own step limit.
	r, err := New(dar.Packages, dar.Main, interp.Limits{Steps: 1000})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := r.Lookup("Splice.Scripts.Wallet.TestSubscriptions:testSetup")
	_, err = r.Run(context.Background(), n, NewMemoryLedger(r), Options{})
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "limit" {
		t.Errorf("interp step limit: %v", err)
	}
	// Cancellation stops it.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = newRunner(t, dar)
	_, err = r.Run(ctx, n, NewMemoryLedger(r), Options{})
	if !errors.As(err, &f) || f.Kind != "limit" {
		t.Errorf("cancelled: %v", err)
	}
}

// The scripts of splice-amulet-test, a dependency of the DAR: 50 more
// scripts that pass under Daml's runner.
func TestSpliceAmuletTestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("50 scripts (-short)")
	}
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	var id lf.PackageID
	for _, p := range dar.Packages {
		if p.Name == "splice-amulet-test" {
			id = p.ID
		}
	}
	r, err := New(dar.Packages, id, interp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	names := r.Scripts()
	if len(names) < 50 {
		t.Errorf("%d scripts, want 50", len(names))
	}
	for _, n := range names {
		if _, err := r.Run(context.Background(), n, NewMemoryLedger(r), Options{}); err != nil {
			t.Errorf("%s:%s: %v", n.Module, n.Name, err)
		}
	}
}

func TestMemoryLedgerBounds(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	n, _ := r.Lookup("Splice.Scripts.Wallet.TestSubscriptions:testSetup")
	for _, c := range []struct {
		set  func(l *MemoryLedger)
		want string
	}{
		{func(l *MemoryLedger) { l.maxContracts = 5 }, "the script created more than 5 contracts, the bound of the in-memory ledger"},
		{func(l *MemoryLedger) { l.maxBytes = 10_000 }, "the script's submissions built more than 10000 bytes of values, the bound of the in-memory ledger"},
	} {
		l := NewMemoryLedger(r)
		c.set(l)
		_, err := r.Run(context.Background(), n, l, Options{})
		var f *Failure
		if !errors.As(err, &f) || f.Command != "Submit" || !strings.Contains(f.Message, c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

// TestScriptWithInput runs a script of one argument (as ledger script
// --input-file does): splice-amulet-test's genericSetupApp, given the name
// of the DSO party.
func TestScriptWithInput(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	var id lf.PackageID
	for _, p := range dar.Packages {
		if p.Name == "splice-amulet-test" {
			id = p.ID
		}
	}
	r, err := New(dar.Packages, id, interp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	n, sig, err := r.LookupSignature("Splice.Scripts.Util:genericSetupApp")
	if err != nil || sig.Input == nil || sig.Input.String() != "Text" || sig.Result.String() != "AmuletApp" {
		t.Fatalf("signature %v, %v", sig, err)
	}
	if _, err := r.Lookup("Splice.Scripts.Util:genericSetupApp"); err == nil || !strings.Contains(err.Error(), "takes an argument") {
		t.Errorf("Lookup of a script with an argument: %v", err)
	}
	res, err := r.Run(context.Background(), n, NewMemoryLedger(r), Options{Input: value.Text("the-dso")})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Value.String(); !strings.Contains(s, "dso = 'the-dso") {
		t.Errorf("result %s", s)
	}
}

// TestDamlScriptLackingAnAnswerType: a hand-made daml-script whose
// PartyManagement module lacks PartyDetails cannot answer
// listKnownParties; the script fails naming the command, the runner does
// not panic.
func TestDamlScriptLackingAnAnswerType(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	const pm = "Daml.Script.Internal.Questions.PartyManagement"
	for i, p := range dar.Packages {
		m := p.Module(pm)
		if m == nil {
			continue
		}
		c := *m
		c.DataTypes = nil
		for _, d := range m.DataTypes {
			if d.Name.String() != "PartyDetails" {
				c.DataTypes = append(c.DataTypes, d)
			}
		}
		nm, _ := lf.NewModule(c)
		mods := make([]*lf.Module, len(p.Modules))
		for j, x := range p.Modules {
			mods[j] = x
			if x == m {
				mods[j] = nm
			}
		}
		cp := *p
		cp.Modules = mods
		dar.Packages[i] = lf.NewPackage(cp)
	}
	r := newRunner(t, dar)
	failed := false
	for _, n := range r.Scripts() {
		_, err := r.Run(context.Background(), n, NewMemoryLedger(r), Options{})
		var f *Failure
		if errors.As(err, &f) && f.Command == "ListKnownParties" {
			if f.Kind != "internal" || !strings.Contains(f.Message, "cannot perform daml-script command ListKnownParties (version 1) of daml-script 3.3.0.20250214.13611.0: daml-script: no data type "+pm+":PartyDetails") {
				t.Errorf("failure %+v", f)
			}
			failed = true
			break
		}
	}
	if !failed {
		t.Error("no script reached listKnownParties")
	}
}

// TestContractNotFound: a submission that exercises a contract archived
// before fails as Daml's runner reports it, naming the contract; as a
// SubmitError it is ContractNotFound with that id.
func TestContractNotFound(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	n, _ := r.Lookup("Splice.Scripts.Wallet.TestSubscriptions:testSetup")
	l := NewMemoryLedger(r)
	ctx := context.Background()
	if _, err := r.Run(ctx, n, l, Options{}); err != nil {
		t.Fatal(err)
	}
	ps, _ := l.ListKnownParties(ctx)
	var alice string
	for _, p := range ps {
		if strings.HasPrefix(p.Party, "alice") {
			alice = p.Party
		}
	}
	cs, _ := l.ActiveContracts(ctx, []string{alice}, nil)
	if len(cs) == 0 {
		t.Fatal("alice sees no contract")
	}
	c := cs[0]
	var archive *value.Identifier
	for _, p := range dar.Packages {
		if m := p.Module("DA.Internal.Template"); m != nil && m.DataType("Archive") != nil {
			archive = value.IdentifierOf(lf.TypeConName{Package: p.ID, Module: m.Name, Name: lf.DottedName{"Archive"}})
		}
	}
	cmd := &interp.ExerciseCommand{Template: c.TemplateID, ContractID: c.ID, Choice: "Archive", Argument: &value.Record{TypeCon: archive}}
	sub := &Submission{ActAs: c.Signatories, Commands: []interp.Command{cmd}}
	if _, err := l.Submit(ctx, sub); err != nil {
		t.Fatalf("archive: %v", err)
	}
	_, err := l.Submit(ctx, sub)
	st := &run{r: r, ctx: ctx, res: &Result{}}
	f := st.failure(err)
	if f.Kind != "error" || !strings.Contains(f.Message, string(c.ID)) {
		t.Errorf("failure %+v", f)
	}
	se := st.submitError(err).String()
	if !strings.Contains(se, "ContractNotFound(") || !strings.Contains(se, `hd = "`+string(c.ID)+`"`) {
		t.Errorf("SubmitError %s", se)
	}
}
