package typed

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// moduleRoot is the repository root, found from this file.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var (
	pingOnce sync.Once
	pingDar  *archive.Dar
	pingErr  error

	sharedOnce sync.Once
	sharedPkgs []*lf.Package
	sharedErr  error
	sharedDir  string
)

// pingPackage decodes the Ping DAR of daml/archive/testdata once.
func pingPackage(t testing.TB) (*archive.Dar, *Env) {
	t.Helper()
	pingOnce.Do(func() {
		pingDar, pingErr = archive.ReadDarFile(filepath.Join(moduleRoot(), "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar"), archive.Options{})
	})
	if pingErr != nil {
		t.Fatal(pingErr)
	}
	return pingDar, NewEnv(pingDar.Packages...)
}

// sharedPackages decodes every good DAR of ../shared/dars once, or skips.
func sharedPackages(t testing.TB) []*lf.Package {
	t.Helper()
	sharedOnce.Do(func() {
		sharedDir = filepath.Join(moduleRoot(), "..", "shared", "dars")
		entries, err := os.ReadDir(sharedDir)
		if err != nil {
			sharedErr = err
			return
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".dar") || e.Name() == "dummy-1.15.dar" || e.Name() == "illformed.dar" {
				continue
			}
			d, err := archive.ReadDarFile(filepath.Join(sharedDir, e.Name()), archive.Options{AllowDev: true})
			if err != nil {
				sharedErr = err
				return
			}
			sharedPkgs = append(sharedPkgs, d.Packages...)
		}
	})
	if sharedErr != nil {
		if os.IsNotExist(sharedErr) {
			t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", sharedDir)
		}
		t.Fatal(sharedErr)
	}
	return sharedPkgs
}

// TestPing reads and writes Ping's create argument and the Respond and
// AbortPing choice arguments by their Daml types.
func TestPing(t *testing.T) {
	dar, env := pingPackage(t)
	main := dar.MainPackage()
	ping := lf.TypeConName{Package: main.ID, Module: lf.DottedName{"Canton", "Internal", "Ping"}, Name: lf.DottedName{"Ping"}}
	p := plan(t, env, lf.TCon{Con: ping})
	v, err := p.DecodeJSON([]byte(`{"responder":"bob::1220","id":"ping-1","initiator":"alice::1220"}`), DecodeOptions{Path: "createArguments"})
	if err != nil {
		t.Fatal(err)
	}
	want := `Canton.Internal.Ping:Ping@de2cc2f9{ id = "ping-1", initiator = 'alice::1220', responder = 'bob::1220' }`
	if v.String() != want {
		t.Errorf("value %s\nwant %s", v, want)
	}
	out, _ := p.EncodeJSON(v)
	if string(out) != `{"id":"ping-1","initiator":"alice::1220","responder":"bob::1220"}` {
		t.Errorf("JSON %s", out)
	}
	abort, ok := env.Choice(ping, "AbortPing")
	if !ok {
		t.Fatal("no AbortPing")
	}
	ap := plan(t, env, abort.ArgType)
	if _, err := ap.DecodeJSON([]byte(`{}`), DecodeOptions{Path: "choiceArgument"}); err == nil || !strings.Contains(err.Error(), "Set(anyone) at choiceArgument") {
		t.Errorf("AbortPing without anyone: %v", err)
	}
	rp := plan(t, env, abort.ReturnType)
	if rp.Kind != KindUnit {
		t.Errorf("AbortPing returns %v", rp.Type)
	}
}

// TestSharedDarTypes compiles the plan of every template argument, key,
// choice argument and result, and interface view of every real DAR, and
// checks that each record type's empty JSON object is refused or read.
func TestSharedDarTypes(t *testing.T) {
	pkgs := sharedPackages(t)
	env := NewEnv(pkgs...)
	n := 0
	compile := func(what string, typ lf.Type) {
		t.Helper()
		if _, err := env.Plan(typ); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		n++
	}
	for _, p := range pkgs {
		for _, tmpl := range p.Templates() {
			compile(tmpl.Name.String(), lf.TCon{Con: tmpl.Name})
			if tmpl.Key != nil {
				compile(tmpl.Name.String()+" key", tmpl.Key)
			}
			for _, c := range tmpl.Choices {
				compile(tmpl.Name.String()+" "+c.Name, c.ArgType)
				compile(tmpl.Name.String()+" "+c.Name+" result", c.ReturnType)
			}
		}
		for _, i := range p.Interfaces() {
			compile(i.Name.String()+" view", i.View)
			for _, c := range i.Choices {
				compile(i.Name.String()+" "+c.Name, c.ArgType)
				compile(i.Name.String()+" "+c.Name+" result", c.ReturnType)
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d types compiled", n)
	}
}

// TestAmuletRules decodes a real argument of the Amulet DAR, with nested
// records, optionals, numerics of scale 10 and a type from another package.
func TestAmuletRules(t *testing.T) {
	env := NewEnv(sharedPackages(t)...)
	var amulet lf.TemplateSignature
	for _, p := range env.Packages() {
		if p.Name != "splice-amulet" {
			continue
		}
		if s, ok := p.Template("Splice.Amulet", "Amulet"); ok {
			amulet = s
		}
	}
	if amulet.Template == nil {
		t.Fatal("no Splice.Amulet:Amulet")
	}
	p := plan(t, env, lf.TCon{Con: amulet.Name})
	in := `{"dso":"dso::1220","owner":"alice::1220","amount":{"initialAmount":"10.5","createdAt":{"number":"7"},"ratePerRound":{"rate":"0.01"}}}`
	v, err := p.DecodeJSON([]byte(in), DecodeOptions{Path: "createArguments"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.EncodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dso":"dso::1220","owner":"alice::1220","amount":{"initialAmount":"10.5000000000","createdAt":{"number":"7"},"ratePerRound":{"rate":"0.0100000000"}}}`
	if string(out) != want {
		t.Errorf("JSON %s\nwant %s", out, want)
	}
	pv, err := ToProto(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := p.FromProto(pv)
	if err != nil {
		t.Fatal(err)
	}
	if eq, _ := value.Equal(v, back); !eq {
		t.Errorf("proto round trip: %v", back)
	}
}
