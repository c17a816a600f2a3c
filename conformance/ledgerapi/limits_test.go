package ledgerapi

import (
	"fmt"
	"os"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/node"
)

// limitsModel is the test tool's Limits.daml (ledger-common-dars semantic/):
// a map and a list that grow by a choice, and a Tree whose Build choice
// exercises itself depth deep and branching wide.
func limitsModel() *lb.Package {
	pkg := lb.New("limits-tests", "1.0.0", "Limits")
	pkg.Record("Archive")
	declare := func(name string, fields []lb.Field, choices ...lb.Choice) {
		pkg.Record(name, fields...)
		sigs := parties(field(name, "owner"))
		for i := range choices {
			choices[i].Controllers = sigs
		}
		pkg.Template(lb.Template{Name: name, Param: "this", Signatories: sigs, Choices: append([]lb.Choice{lb.Archive("Archive", sigs)}, choices...)})
	}
	unit := lb.Pure(lb.TUnit, lb.Unit)

	// M.union items newItems: items' entries inserted into newItems.
	tMap := lb.TGenMap(lb.TText, lb.TParty)
	lookup := lb.App(lb.TyApp(lb.Builtin(lb.GenMapLookup), lb.TText, lb.TParty), lb.Var("k"), field("WithMap", "items"))
	insert := lb.Lam([]lb.Field{lb.F("acc", tMap), lb.F("k", lb.TText)}, lb.Case(lookup,
		lb.SomeAlt("v", lb.App(lb.TyApp(lb.Builtin(lb.GenMapInsert), lb.TText, lb.TParty), lb.Var("k"), lb.Var("v"), lb.Var("acc"))),
		lb.NoneAlt(lb.Var("acc"))))
	union := lb.App(lb.TyApp(lb.Builtin(lb.Foldl), lb.TText, tMap), insert, argField("WithMap_Expand", "newItems"),
		lb.App(lb.TyApp(lb.Builtin(lb.GenMapKeys), lb.TText, lb.TParty), field("WithMap", "items")))
	pkg.Record("WithMap_Noop")
	pkg.Record("WithMap_Expand", lb.F("newItems", tMap))
	declare("WithMap", []lb.Field{lb.F("owner", lb.TParty), lb.F("items", tMap)},
		choice("WithMap_Noop", false, lb.Expr{}, lb.TUnit, unit),
		choice("WithMap_Expand", true, lb.Expr{}, lb.TContractID(lb.TCon("WithMap")),
			lb.Create("WithMap", lb.Record("WithMap", lb.FE("owner", field("WithMap", "owner")), lb.FE("items", union)))))

	// items ++ newItems
	tList := lb.TList(lb.TText)
	cons := lb.Lam([]lb.Field{lb.F("x", lb.TText), lb.F("acc", tList)}, lb.Cons(lb.TText, []lb.Expr{lb.Var("x")}, lb.Var("acc")))
	appended := lb.App(lb.TyApp(lb.Builtin(lb.Foldr), lb.TText, tList), cons, argField("WithList_Expand", "newItems"), field("WithList", "items"))
	pkg.Record("WithList_Noop")
	pkg.Record("WithList_Expand", lb.F("newItems", tList))
	declare("WithList", []lb.Field{lb.F("owner", lb.TParty), lb.F("items", tList)},
		choice("WithList_Noop", false, lb.Expr{}, lb.TUnit, unit),
		choice("WithList_Expand", true, lb.Expr{}, lb.TContractID(lb.TCon("WithList")),
			lb.Create("WithList", lb.Record("WithList", lb.FE("owner", field("WithList", "owner")), lb.FE("items", appended)))))

	// Build: if depth <= 0 then 1 else 1 + the sum of branching exercises
	// of Build (depth-1) branching, one after the other (forA).
	tTree := lb.TContractID(lb.TCon("Tree"))
	sub := func(a, b lb.Expr) lb.Expr { return lb.App(lb.Builtin(lb.SubInt64), a, b) }
	add := func(a, b lb.Expr) lb.Expr { return lb.App(lb.Builtin(lb.AddInt64), a, b) }
	lessEq0 := func(x lb.Expr) lb.Expr { return lb.App(lb.TyApp(lb.Builtin(lb.LessEq), lb.TInt64), x, lb.Int(0)) }
	// subtrees self depth branching n acc: the sum of n more Build exercises.
	pkg.Value("subtrees", lb.TArrows(tTree, lb.TInt64, lb.TInt64, lb.TInt64, lb.TInt64, lb.TUpdate(lb.TInt64)),
		lb.Lam([]lb.Field{lb.F("cid", tTree), lb.F("depth", lb.TInt64), lb.F("branching", lb.TInt64), lb.F("n", lb.TInt64), lb.F("acc", lb.TInt64)},
			lb.Case(lessEq0(lb.Var("n")),
				lb.TrueAlt(lb.Pure(lb.TInt64, lb.Var("acc"))),
				lb.FalseAlt(lb.Do([]lb.Binding{{Name: "r", Type: lb.TInt64, Bound: lb.Exercise("Tree", "Build", lb.Var("cid"),
					lb.Record("Build", lb.FE("depth", lb.Var("depth")), lb.FE("branching", lb.Var("branching"))))}},
					lb.App(lb.Val("subtrees"), lb.Var("cid"), lb.Var("depth"), lb.Var("branching"), sub(lb.Var("n"), lb.Int(1)), add(lb.Var("acc"), lb.Var("r"))))))))
	depth, branching := argField("Build", "depth"), argField("Build", "branching")
	pkg.Record("Build", lb.F("depth", lb.TInt64), lb.F("branching", lb.TInt64))
	declare("Tree", []lb.Field{lb.F("owner", lb.TParty)},
		choice("Build", false, lb.Expr{}, lb.TInt64, lb.Do([]lb.Binding{{Name: "sum", Type: lb.TInt64, Bound: lb.Case(lessEq0(depth),
			lb.TrueAlt(lb.Pure(lb.TInt64, lb.Int(0))),
			lb.FalseAlt(lb.App(lb.Val("subtrees"), lb.Var("self"), sub(depth, lb.Int(1)), branching, branching, lb.Int(0))))}},
			lb.Pure(lb.TInt64, add(lb.Int(1), lb.Var("sum"))))))
	return pkg
}

// LimitsIT.scala: large maps and lists in contracts and choices, and deep,
// wide and large transactions, submitted and prepared for external signing.
// The maps, lists and wide transactions are a fifth of the Scala sizes (and
// the large tree 4 levels lower) unless LEDGER_CONFORMANCE_FULL is set: the
// full sizes add about 3 s to the package, over its CI budget.
func TestLimitsIT(t *testing.T) {
	n, wide, wideExternal, large := 2000, 2500, 2400, 8
	if os.Getenv("LEDGER_CONFORMANCE_FULL") != "" {
		n, wide, wideExternal, large = 10000, 12500, 12000, 12
	}
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, limitsModel())
	const (
		withMap  = "#limits-tests:Limits:WithMap"
		withList = "#limits-tests:Limits:WithList"
		tree     = "#limits-tests:Limits:Tree"
	)
	elements := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("element_%08d", i+1)
		}
		return out
	}
	mapOf := func(keys []string, party string) [][]string {
		out := make([][]string, len(keys))
		for i, k := range keys {
			out[i] = []string{k, party}
		}
		return out
	}

	t.Run("LLargeMapInContract", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, withMap, map[string]any{"owner": alice, "items": mapOf(elements(n), alice)})
		p.exercise(t, alice, withMap, cid, "WithMap_Noop", nil)
	})
	t.Run("LLargeMapInChoice", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, withMap, map[string]any{"owner": alice, "items": [][]string{}})
		p.exercise(t, alice, withMap, cid, "WithMap_Expand", map[string]any{"newItems": mapOf(elements(n), alice)})
	})
	t.Run("LLargeListInContract", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, withList, map[string]any{"owner": alice, "items": elements(n)})
		p.exercise(t, alice, withList, cid, "WithList_Noop", nil)
	})
	t.Run("LLargeListInChoice", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, withList, map[string]any{"owner": alice, "items": []string{}})
		p.exercise(t, alice, withList, cid, "WithList_Expand", map[string]any{"newItems": elements(n)})
	})
	build := func(t *testing.T, depth, branching int) {
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, tree, map[string]any{"owner": alice})
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{alice},
			exerciseCmd(tree, cid, "Build", map[string]any{"depth": depth, "branching": branching})), nil)
	}
	prepare := func(t *testing.T, depth, branching int) {
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, tree, map[string]any{"owner": alice})
		body := p.jsCommands([]string{alice}, exerciseCmd(tree, cid, "Build", map[string]any{"depth": depth, "branching": branching}))
		body["synchronizerId"] = ""
		body["packageIdSelectionPreference"] = []string{}
		body["verboseHashing"] = false
		p.ok(t, "POST", "/v2/interactive-submission/prepare", body, nil)
	}
	t.Run("LDeepTransaction", func(t *testing.T) {
		// The chain is 101 exercises deep, each counting those under it.
		alice := p.allocate(t, "alice")
		cid := p.create(t, alice, tree, map[string]any{"owner": alice})
		ex := exercisedEvents(p.exercise(t, alice, tree, cid, "Build", map[string]any{"depth": 100, "branching": 1}))
		if len(ex) != 101 || string(ex[0].ExerciseResult) != `"101"` || ex[0].LastDescendantNodeID != 100 {
			t.Errorf("%d exercises, the root's result %s, want 101 nested", len(ex), ex[0].ExerciseResult)
		}
	})
	t.Run("LWideTransaction", func(t *testing.T) { build(t, 1, wide) })
	t.Run("LWithLargeTransaction", func(t *testing.T) { build(t, large, 2) })
	t.Run("ExternalWithDeepTransaction", func(t *testing.T) { prepare(t, 100, 1) })
	t.Run("ExternalWithWideTransaction", func(t *testing.T) { prepare(t, 1, wideExternal) })
	t.Run("ExternalWithLargeTransaction", func(t *testing.T) { prepare(t, 8, 2) })
}
