package acceptance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/interp/interptest"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// app is a decoded DAR with an engine and a typed environment over its
// packages; each DAR is decoded once per test binary.
type app struct {
	dar *archive.Dar
	eng *interp.Engine
	env *typed.Env
}

type loaded struct {
	once sync.Once
	app  *app
	err  error
}

var apps sync.Map // file name → *loaded

func sharedDars(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	return dir
}

// loadApp decodes the named DAR of the shared folder once.
func loadApp(t testing.TB, name string) *app {
	t.Helper()
	dir := sharedDars(t)
	v, _ := apps.LoadOrStore(name, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() {
		d, err := archive.ReadDarFile(filepath.Join(dir, name), archive.Options{AllowDev: true})
		if err != nil {
			l.err = err
			return
		}
		l.app = &app{dar: d, eng: interp.NewEngine(resolve.NewPackages(d.Packages...), interp.Limits{}), env: typed.NewEnv(d.Packages...)}
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.app
}

// pkg returns the id of the DAR's package with the given name.
func (a *app) pkg(t testing.TB, name string) lf.PackageID {
	t.Helper()
	for _, p := range a.dar.Packages {
		if p.Name == name {
			return p.ID
		}
	}
	t.Fatalf("no package %s in the DAR", name)
	return ""
}

// id names "Module:Entity" of package pkg.
func id[P ~string](pkg P, qualified string) *value.Identifier {
	i := strings.LastIndexByte(qualified, ':')
	return &value.Identifier{PackageID: string(pkg), ModuleName: qualified[:i], EntityName: qualified[i+1:]}
}

func tcon(i *value.Identifier) lf.TypeConName {
	return lf.TypeConName{Package: lf.PackageID(i.PackageID), Module: strings.Split(i.ModuleName, "."), Name: strings.Split(i.EntityName, ".")}
}

// value reads the JSON Ledger API encoding of a value of data type of.
func (a *app) value(t testing.TB, of *value.Identifier, js string) value.Value {
	t.Helper()
	p, err := a.env.Plan(lf.TCon{Con: tcon(of)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.DecodeJSON([]byte(js), typed.DecodeOptions{Path: of.EntityName})
	if err != nil {
		t.Fatalf("%s: %v", of, err)
	}
	return v
}

// json renders a value of data type of in the JSON Ledger API encoding,
// compacted.
func (a *app) json(t testing.TB, of lf.Type, v value.Value) string {
	t.Helper()
	p, err := a.env.Plan(of)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.EncodeJSON(v)
	if err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// world is a ledger and a clock that commands run against.
type world struct {
	t      testing.TB
	app    *app
	ledger *interptest.Ledger
	now    value.Timestamp
	n      int
}

func newWorld(t testing.TB, a *app) *world {
	return &world{t: t, app: a, ledger: interptest.NewLedger(), now: 1_754_534_109_899_822}
}

// submission is a submission of cmds by actAs with a fresh seed.
func (w *world) submission(actAs []string, cmds ...interp.Command) *interp.Submission {
	w.n++
	var seed tx.Hash
	seed[0], seed[1], seed[2] = byte(w.n), byte(w.n>>8), 0x5e
	return &interp.Submission{Commands: cmds, ActAs: actAs, SubmissionSeed: seed, ParticipantID: "participant1::1220abcd",
		PreparationTime: w.now, LedgerTime: w.now}
}

// try interprets commands without committing.
func (w *world) try(actAs []string, cmds ...interp.Command) (*interp.Result, error) {
	return w.app.eng.Submit(context.Background(), w.submission(actAs, cmds...), w.ledger)
}

// submit interprets and commits, and returns the result and the ledger
// ids of the created contracts.
func (w *world) submit(actAs []string, cmds ...interp.Command) (*interp.Result, map[value.ContractID]value.ContractID) {
	w.t.Helper()
	res, err := w.try(actAs, cmds...)
	if err != nil {
		w.t.Fatal(err)
	}
	ids := w.ledger.Commit(res.Transaction, w.now)
	w.now += 1_000_000
	return res, ids
}

// create submits a create and returns the new contract's ledger id.
func (w *world) create(actAs []string, tmpl *value.Identifier, arg string) value.ContractID {
	w.t.Helper()
	res, ids := w.submit(actAs, &interp.CreateCommand{Template: tmpl, Argument: w.app.value(w.t, tmpl, arg)})
	return ids[res.Transaction.Nodes[0].(*tx.Create).ContractID]
}

// describe renders a transaction tree, one node per line: the kind, the
// template (and the interface through which it was used), the choice.
func describe(tr *tx.Transaction) string {
	var b strings.Builder
	depth := map[tx.NodeID]int{}
	tr.Walk(func(id tx.NodeID, n tx.Node, parent tx.NodeID) {
		d := 0
		if parent >= 0 {
			d = depth[parent] + 1
		}
		depth[id] = d
		b.WriteString(strings.Repeat("  ", d))
		via := func(i *value.Identifier) string {
			if i == nil {
				return ""
			}
			return " via " + i.EntityName
		}
		switch x := n.(type) {
		case *tx.Create:
			b.WriteString("create " + x.TemplateID.EntityName)
		case *tx.Exercise:
			b.WriteString("exercise " + x.TemplateID.EntityName + via(x.InterfaceID) + " " + x.Choice)
			if x.Consuming {
				b.WriteString(" (consuming)")
			}
		case *tx.Fetch:
			b.WriteString("fetch " + x.TemplateID.EntityName + via(x.InterfaceID))
			if x.ByKey {
				b.WriteString(" by key")
			}
		case *tx.QueryByKey:
			b.WriteString("query by key " + x.TemplateID.EntityName)
		case *tx.Rollback:
			b.WriteString("rollback")
		}
		b.WriteString("\n")
	})
	return b.String()
}

// created returns the ledger ids of the contracts of an entity the
// transaction created, in node order.
func created(tr *tx.Transaction, ids map[value.ContractID]value.ContractID, entity string) []value.ContractID {
	var out []value.ContractID
	for _, n := range tr.Nodes {
		if c, ok := n.(*tx.Create); ok && c.TemplateID.EntityName == entity {
			out = append(out, ids[c.ContractID])
		}
	}
	return out
}

func wantError(t testing.TB, err error, id, cause string) {
	t.Helper()
	ie, ok := err.(*interp.Error)
	if !ok {
		t.Fatalf("got %v, want %s", err, id)
	}
	if ie.ID != id || !strings.Contains(ie.Cause, cause) {
		t.Errorf("got %s %q, want %s containing %q", ie.ID, ie.Cause, id, cause)
	}
}
