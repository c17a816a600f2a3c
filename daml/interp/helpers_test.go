package interp

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
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

// memLedger is an in-memory ledger: contracts by id, archived ones removed
// when a transaction is committed.
type memLedger struct {
	mu        sync.Mutex
	contracts map[value.ContractID]*tx.Contract
	n         int
}

func newMemLedger() *memLedger { return &memLedger{contracts: map[value.ContractID]*tx.Contract{}} }

func (l *memLedger) LookupContract(_ context.Context, id value.ContractID) (*tx.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.contracts[id], nil
}

// commit applies a transaction: created contracts become active (with a
// suffix, as a ledger would give them), consumed ones are archived. It
// returns the ledger ids of the created contracts, in node order.
func (l *memLedger) commit(t *tx.Transaction, at value.Timestamp) map[value.ContractID]value.ContractID {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := map[value.ContractID]value.ContractID{}
	for _, n := range t.Nodes {
		switch x := n.(type) {
		case *tx.Create:
			l.n++
			id := value.ContractID(string(x.ContractID) + "ca" + strings.Repeat("0", 4) + itoa2(l.n))
			ids[x.ContractID] = id
			l.contracts[id] = &tx.Contract{ID: id, PackageName: x.PackageName, TemplateID: x.TemplateID,
				Argument: suffixed(x.Argument, ids), Signatories: x.Signatories, Stakeholders: x.Stakeholders, CreatedAt: at}
		}
	}
	for _, n := range t.Nodes {
		if x, ok := n.(*tx.Exercise); ok && x.Consuming {
			delete(l.contracts, x.ContractID)
			if id, ok := ids[x.ContractID]; ok {
				delete(l.contracts, id)
			}
		}
	}
	return ids
}

func itoa2(n int) string {
	s := "0123456789abcdef"
	return string([]byte{s[(n>>4)&15], s[n&15]})
}

// suffixed replaces local contract ids in v by their ledger ids.
func suffixed(v value.Value, ids map[value.ContractID]value.ContractID) value.Value {
	switch x := v.(type) {
	case value.ContractID:
		if id, ok := ids[x]; ok {
			return id
		}
	case *value.Record:
		fs := make([]value.Field, len(x.Fields))
		for i, f := range x.Fields {
			fs[i] = value.Field{Label: f.Label, Value: suffixed(f.Value, ids)}
		}
		return &value.Record{TypeCon: x.TypeCon, Fields: fs}
	case *value.Variant:
		return &value.Variant{TypeCon: x.TypeCon, Constructor: x.Constructor, Rank: x.Rank, Value: suffixed(x.Value, ids)}
	case value.Optional:
		if x.Value != nil {
			return value.Some(suffixed(x.Value, ids))
		}
	case *value.List:
		var out []value.Value
		for e := range x.All() {
			out = append(out, suffixed(e, ids))
		}
		return value.NewList(out...)
	}
	return v
}

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
