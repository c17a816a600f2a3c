package interp

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp/interptest"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// sharedDars returns the folder of real DARs beside the repository, or
// skips the test.
func sharedDars(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	return dir
}

type loadedDar struct {
	once sync.Once
	dar  *archive.Dar
	eng  *Engine
	err  error
}

var dars sync.Map // file name → *loadedDar

// engineFor decodes a shared DAR once per test run and returns an engine
// over its packages.
func engineFor(t testing.TB, name string) (*Engine, *archive.Dar) {
	t.Helper()
	dir := sharedDars(t)
	v, _ := dars.LoadOrStore(name, &loadedDar{})
	l := v.(*loadedDar)
	l.once.Do(func() {
		l.dar, l.err = archive.ReadDarFile(filepath.Join(dir, name), archive.Options{AllowDev: true})
		if l.err == nil {
			l.eng = NewEngine(resolve.NewPackages(l.dar.Packages...), Limits{})
		}
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.eng, l.dar
}

const pingDar = "canton-builtin-admin-workflow-ping.dar"

func pingEngine(t testing.TB) (*Engine, lf.PackageID) {
	e, d := engineFor(t, pingDar)
	return e, d.Main
}

// memLedger is the in-memory ledger of package interptest.
type memLedger = interptest.Ledger

func newMemLedger() *memLedger { return interptest.NewLedger() }

func ident(pkg lf.PackageID, module, entity string) *value.Identifier {
	return &value.Identifier{PackageID: string(pkg), ModuleName: module, EntityName: entity}
}

func record(id *value.Identifier, kv ...any) *value.Record {
	r := &value.Record{TypeCon: id}
	for i := 0; i < len(kv); i += 2 {
		r.Fields = append(r.Fields, value.Field{Label: kv[i].(string), Value: kv[i+1].(value.Value)})
	}
	return r
}

func parties(ps ...string) *value.List {
	var out []value.Value
	for _, p := range ps {
		out = append(out, value.Party(p))
	}
	return value.NewList(out...)
}

func sorted(ps ...string) []string {
	out := append([]string(nil), ps...)
	sort.Strings(out)
	return out
}

func testSubmission(actAs []string, cmds ...Command) *Submission {
	var seed tx.Hash
	for i := range seed {
		seed[i] = byte(i + 1)
	}
	return &Submission{
		Commands:        cmds,
		ActAs:           actAs,
		SubmissionSeed:  seed,
		ParticipantID:   "participant1::1220abcd",
		PreparationTime: 1754534109899822,
		LedgerTime:      1754534109899822,
	}
}

// tcIn and idIn name a type constructor of a module of a test package;
// recIn and projIn build and project its records.
func tcIn(pkg lf.PackageID, mod, name string) lf.TypeConName {
	return lf.TypeConName{Package: pkg, Module: lf.DottedName{mod}, Name: lf.DottedName{name}}
}

func idIn(pkg lf.PackageID, mod, name string) *value.Identifier {
	return &value.Identifier{PackageID: string(pkg), ModuleName: mod, EntityName: name}
}

func recIn(tc lf.TypeConName, fields ...lf.FieldExpr) lf.Expr {
	return &lf.ERecCon{Type: lf.TypeConApp{Con: tc}, Fields: fields}
}

func projIn(tc lf.TypeConName, field string, e lf.Expr) lf.Expr {
	return &lf.ERecProj{Type: lf.TypeConApp{Con: tc}, Field: field, Record: e}
}
