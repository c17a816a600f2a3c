package test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

func sharedDar(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found (the shared DARs are beside the repository): %v", path, err)
	}
	return path
}

const (
	setup        = "Splice.Scripts.Wallet.TestSubscriptions:testSetup"
	subscription = "Splice.Scripts.Wallet.TestSubscriptions:testSubscription"
)

func TestRunsNamedScripts(t *testing.T) {
	ios, _, out, _ := cmdutil.Test()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	opts := &Options{IO: ios, Format: cmdutil.FormatTable, Dar: sharedDar(t, "splice-wallet-test-0.1.8.dar"),
		Scripts: []string{subscription, setup}, JUnit: junit, Jobs: 2}
	if err := testRun(context.Background(), opts); err != nil {
		t.Fatalf("testRun: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], subscription+": ok, 126 commands (") ||
		!strings.HasPrefix(lines[1], setup+": ok, 84 commands (") || lines[2] != "" ||
		!strings.HasPrefix(lines[3], "2 scripts: 2 passed, 0 failed (") {
		t.Errorf("output:\n%s", out)
	}
	var suites junitSuites
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("junit: %v\n%s", err, b)
	}
	s := suites.Suites[0]
	if s.Name != "splice-wallet-test-0.1.8" || s.Tests != 2 || s.Failures != 0 || len(s.Cases) != 2 ||
		s.Cases[0].ClassName != "Splice.Scripts.Wallet.TestSubscriptions" || s.Cases[0].Name != "testSubscription" || s.Cases[0].Failure != nil {
		t.Errorf("junit: %+v", s)
	}
}

// negateAmounts reads the DAR with every Numeric literal of testSetup
// negated: its tap of 42.0 becomes one of -42.0, which the Amulet
// template's ensure refuses.
func negateAmounts(path string) (*archive.Dar, error) {
	dar, err := archive.ReadDarFile(path, archive.Options{})
	if err != nil {
		return nil, err
	}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if n, ok := v.Interface().(*lf.ENumeric); ok {
				if !strings.HasPrefix(n.Value, "-") {
					n.Value = "-" + n.Value
				}
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	for _, m := range dar.MainPackage().Modules {
		for _, v := range m.Values {
			if v.Name.String() == "testSetup" {
				walk(reflect.ValueOf(v.Body))
			}
		}
	}
	return dar, nil
}

func TestFailingScript(t *testing.T) {
	ios, _, out, _ := cmdutil.Test()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	opts := &Options{IO: ios, Format: cmdutil.FormatTable, Dar: sharedDar(t, "splice-wallet-test-0.1.8.dar"),
		Scripts: []string{setup}, JUnit: junit, ReadDar: negateAmounts}
	err := testRun(context.Background(), opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitFailure {
		t.Fatalf("exit %d (%v), want 1", cmdutil.ExitCode(err), err)
	}
	got := out.String()
	for _, want := range []string{
		setup + ": FAILED\n",
		"  Unhandled Daml exception: DA.Exception.PreconditionFailed:PreconditionFailed@91e167fa{ message = ",
		"Template precondition violated: Amulet {",
		"  in command Submit\n",
		"\n1 scripts: 0 passed, 1 failed (",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	b, _ := os.ReadFile(junit)
	if !strings.Contains(string(b), `<failure message="Unhandled Daml exception: `) || !strings.Contains(string(b), `failures="1"`) {
		t.Errorf("junit:\n%s", b)
	}
}

func TestJSONReport(t *testing.T) {
	ios, _, out, _ := cmdutil.Test()
	opts := &Options{IO: ios, Format: cmdutil.FormatJSON, Dar: sharedDar(t, "splice-wallet-test-0.1.8.dar"),
		Scripts: []string{setup}, ReadDar: negateAmounts}
	if err := testRun(context.Background(), opts); cmdutil.ExitCode(err) != cmdutil.ExitFailure {
		t.Fatalf("exit %d (%v), want 1", cmdutil.ExitCode(err), err)
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Passed != 0 || rep.Failed != 1 || len(rep.Scripts) != 1 {
		t.Fatalf("report: %+v", rep)
	}
	f := rep.Scripts[0].Failure
	if f == nil || f.Kind != "exception" || f.Command != "Submit" || !strings.HasPrefix(f.Location, "Splice.Scripts.") {
		t.Errorf("failure: %+v", f)
	}
}

func TestUnknownScriptIsUsageError(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	opts := &Options{IO: ios, Format: cmdutil.FormatTable, Dar: sharedDar(t, "splice-wallet-test-0.1.8.dar"),
		Scripts: []string{"Splice.Scripts.TestWallet:noSuchTest"}}
	err := testRun(context.Background(), opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "module Splice.Scripts.TestWallet has no top-level value noSuchTest") {
		t.Errorf("err = %v (exit %d)", err, cmdutil.ExitCode(err))
	}
}

// TestOnNode runs a script on a fresh in-process ledger serve node, over
// the JSON Ledger API.
func TestOnNode(t *testing.T) {
	ios, _, out, _ := cmdutil.Test()
	opts := &Options{IO: ios, Format: cmdutil.FormatTable, Dar: sharedDar(t, "splice-wallet-test-0.1.8.dar"),
		Scripts: []string{setup}, OnNode: true}
	if err := testRun(context.Background(), opts); err != nil {
		t.Fatalf("testRun: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out.String(), setup+": ok, 84 commands (") {
		t.Errorf("output:\n%s", out)
	}
}

// TestOnNodeEffectfulRollback runs the four splice scripts that catch an
// exception after an archive on a node, which refuses that as Canton 3.5
// does: each is reported as an expected difference from daml test (it
// passes on the in-memory ledger, whose rule is daml-script 3.3's IDE
// ledger's), not as a failure, and the exit status is 0.
func TestOnNodeEffectfulRollback(t *testing.T) {
	ios, _, out, _ := cmdutil.Test()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	scripts := []string{
		"Splice.Scripts.TestWallet:testBuyMemberTraffic",
		"Splice.Scripts.TestWallet:testInsufficientFundsBatchAmuletPaymentRequests",
		"Splice.Scripts.TestWallet:testInsufficientFundsBatchSubscriptions",
		"Splice.Scripts.Wallet.TestTransferOffers:testTransferOffers",
	}
	opts := &Options{IO: ios, Format: cmdutil.FormatTable, Dar: sharedDar(t, "splice-wallet-test-0.1.8.dar"),
		Scripts: scripts, OnNode: true, JUnit: junit, Jobs: 2}
	if err := testRun(context.Background(), opts); err != nil {
		t.Fatalf("testRun: %v\n%s", err, out)
	}
	got := out.String()
	for _, s := range scripts {
		if !strings.Contains(got, s+": EXPECTED DIFFERENCE (not counted as a failure)\n  expected difference from daml test: ") {
			t.Errorf("no expected difference for %s:\n%s", s, got)
		}
	}
	for _, want := range []string{
		"Daml's IDE ledger for daml-script 3.3.0.20250214.13611.0 rolls that back",
		"a Canton 3.5 node (protocol version 35) refuses an effectful rollback",
		"DAML_EFFECTFUL_ROLLBACK_ERROR",
		"\n4 scripts: 0 passed, 0 failed, 4 expected differences from daml test (",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	b, _ := os.ReadFile(junit)
	if !strings.Contains(string(b), `skipped="4"`) || strings.Contains(string(b), "<failure") {
		t.Errorf("junit:\n%s", b)
	}
}

// --ide-ledger-protocol-version chooses the in-memory ledger's rollback
// rule as Daml's runner's flag does: 35 refuses the effectful rollback of
// testTransferOffers, 34 (the default for its daml-script 3.3) undoes it.
func TestIDEProtocolVersion(t *testing.T) {
	const offers = "Splice.Scripts.Wallet.TestTransferOffers:testTransferOffers"
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	for _, c := range []struct {
		version string
		exit    int
		want    string
	}{
		{"35", cmdutil.ExitFailure, "Interpretation error: Error: Tried to rollback side-effectful node(s): "},
		{"v34", cmdutil.ExitOK, offers + ": ok, "},
		{"", cmdutil.ExitOK, offers + ": ok, "},
	} {
		ios, _, out, _ := cmdutil.Test()
		opts := &Options{IO: ios, Format: cmdutil.FormatTable, Dar: dar, Scripts: []string{offers}, IDEProtocolVersion: c.version}
		err := testRun(context.Background(), opts)
		if cmdutil.ExitCode(err) != c.exit || !strings.Contains(out.String(), c.want) {
			t.Errorf("version %q: exit %d (%v), output:\n%s", c.version, cmdutil.ExitCode(err), err, out)
		}
	}
	ios, _, _, _ := cmdutil.Test()
	err := testRun(context.Background(), &Options{IO: ios, Format: cmdutil.FormatTable, Dar: dar, IDEProtocolVersion: "33"})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `unknown protocol version "33": want 34 or 35`) {
		t.Errorf("version 33: %v", err)
	}
}
