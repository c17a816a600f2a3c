package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// A package of ordinary-looking Daml gone wrong, written here: Hostile:Toy
// has a choice Explode whose body doubles a text forever (bomb t = bomb
// (t <> t)) and a choice Spin that counts down from a number in a tail
// call loop.

const hostilePkg lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000bb"

func hostilePackage() *lf.Package {
	party := lf.TBuiltin{Builtin: lf.BuiltinParty}
	text := lf.TBuiltin{Builtin: lf.BuiltinText}
	i64 := lf.TBuiltin{Builtin: lf.BuiltinInt64}
	mod := lf.DottedName{"Hostile"}
	con := func(name string) lf.TypeConName {
		return lf.TypeConName{Package: hostilePkg, Module: mod, Name: lf.DottedName{name}}
	}
	val := func(name string) lf.Expr {
		return &lf.EVal{Ref: lf.ValueName{Package: hostilePkg, Module: mod, Name: lf.DottedName{name}}}
	}
	v := func(name string) lf.Expr { return &lf.EVar{Name: name} }
	app := func(f lf.Expr, args ...lf.Expr) lf.Expr { return &lf.EApp{Fun: f, Args: args} }
	bi := func(f lf.BuiltinFunction) lf.Expr { return &lf.EBuiltinFun{Fun: f} }
	lam := func(body lf.Expr, params ...string) lf.Expr {
		bs := make([]lf.Binder, len(params))
		for i, p := range params {
			bs[i] = lf.Binder{Name: p}
		}
		return &lf.EAbs{Params: bs, Body: body}
	}
	owner := &lf.ERecProj{Type: lf.TypeConApp{Con: con("Toy")}, Field: "owner", Record: v("this")}
	owners := &lf.ECons{Type: party, Front: []lf.Expr{owner}, Tail: &lf.ENil{Type: party}}
	choice := func(name string, ret lf.Type, body lf.Expr) *lf.Choice {
		return &lf.Choice{Name: name, Consuming: false, Controllers: owners, Observers: &lf.ENil{Type: party},
			SelfBinder: "self", ArgBinder: lf.Binder{Name: "arg", Type: lf.TCon{Con: con(name)}}, ReturnType: ret,
			Update: &lf.EUpdate{Update: &lf.UPure{Type: ret, Expr: body}}}
	}
	explode := choice("Explode", text, app(val("bomb"), &lf.EText{Value: "boom"}))
	spin := choice("Spin", i64, app(val("count"),
		&lf.ERecProj{Type: lf.TypeConApp{Con: con("Spin")}, Field: "n", Record: v("arg")}))
	isZero := app(bi(lf.BuiltinEqual), v("n"), &lf.EInt64{Value: 0})
	m, dup := lf.NewModule(lf.Module{
		Name: mod,
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Toy"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: party}}},
			{Name: lf.DottedName{"Explode"}, Kind: lf.DataRecord, Serializable: true},
			{Name: lf.DottedName{"Spin"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "n", Type: i64}}},
		},
		Values: []*lf.Value{
			{Name: lf.DottedName{"bomb"}, Type: lf.TApp{Fun: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinArrow}, Arg: text}, Arg: text},
				Body: lam(app(val("bomb"), app(bi(lf.BuiltinAppendText), v("t"), v("t"))), "t")},
			{Name: lf.DottedName{"count"}, Type: lf.TApp{Fun: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinArrow}, Arg: i64}, Arg: i64},
				Body: lam(&lf.ECase{Scrut: isZero, Alts: []lf.CaseAlt{
					{Pattern: lf.PBuiltinCon{Con: lf.ConTrue}, Body: &lf.EInt64{Value: 0}},
					{Pattern: lf.PBuiltinCon{Con: lf.ConFalse}, Body: app(val("count"), app(bi(lf.BuiltinSubInt64), v("n"), &lf.EInt64{Value: 1}))},
				}}, "n")},
		},
		Templates: []*lf.Template{{Name: lf.DottedName{"Toy"}, Param: "this", Precond: &lf.EBuiltinCon{Con: lf.ConTrue},
			Signatories: owners, Observers: &lf.ENil{Type: party}, Choices: []*lf.Choice{explode, spin}}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: hostilePkg, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "hostile", Version: "1.0.0", Modules: []*lf.Module{m}})
}

const toyTemplate = "#hostile:Hostile:Toy"

// TestCommandMemoryBudget: a choice whose text doubles forever fails with
// the memory budget's INTERPRETATION_TIME_EXCEEDED, and the node goes on
// serving (without the budget the process dies: out of memory).
func TestCommandMemoryBudget(t *testing.T) {
	f := newFixture(t, withPackages(PackageSetOf(hostilePackage())), func(c *Config) {
		c.Interpretation.Memory = 32 << 20
	})
	toy := f.createContract(toyTemplate, `{"owner":"`+f.alice+`"}`)
	for range 3 { // every later exercise too
		_, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, exerciseCmd(toyTemplate, toy, "Explode", `{}`)), "user1")
		je, ok := err.(*ledgerapi.JsCantonError)
		if !ok || je.Code != "INTERPRETATION_TIME_EXCEEDED" || !strings.Contains(je.Cause, "memory budget of 33554432 bytes") {
			t.Fatalf("Explode: %v", err)
		}
	}
	if _, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, exerciseCmd(toyTemplate, toy, "Spin", `{"n":"10"}`)), "user1"); err != nil {
		t.Fatalf("the node stopped serving after the budget was exhausted: %v", err)
	}
}

// TestLongCommandsShareALane: commands that loop past the lane's threshold
// run one at a time in a one-slot lane while a short command, sent when the
// lane is full and others wait, is answered at once; a waiting command
// whose request ends is answered INTERPRETATION_TIME_EXCEEDED without
// having run, and so is a running one (its interpretation stops).
func TestLongCommandsShareALane(t *testing.T) {
	lane := interp.NewLane(1, 10_000, 0)
	f := newFixture(t, withPackages(PackageSetOf(hostilePackage())), func(c *Config) {
		c.Interpretation.Lane = lane
	})
	toy := f.createContract(toyTemplate, `{"owner":"`+f.alice+`"}`)
	spin := func(ctx context.Context, n string) error {
		_, err := f.eng.Prepare(ctx, prepareReq(f.alice, exerciseCmd(toyTemplate, toy, "Spin", `{"n":"`+n+`"}`)), "user1")
		return err
	}
	// Three commands that would spin for minutes; the test ends them by
	// ending their requests.
	long, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- spin(long, "90000000")
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for lane.Stats().Waiting < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if s := lane.Stats(); s.Running != 1 || s.Waiting != 2 {
		t.Fatalf("lane %+v, want one long command running and two waiting", s)
	}
	if err := spin(context.Background(), "10"); err != nil {
		t.Fatalf("short command while the lane is full: %v", err)
	}
	// A fourth long command's request ends once it is seen waiting — not
	// after a fixed time, which under load could pass before the command
	// reaches the lane's threshold.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for lane.Stats().Waiting < 3 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if err := spin(ctx, "1000000"); errorID(err) != "INTERPRETATION_TIME_EXCEEDED" || !strings.Contains(err.Error(), "waiting for a slot") {
		t.Errorf("long command whose request ended while waiting: %v", err)
	}
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		if errorID(err) != "INTERPRETATION_TIME_EXCEEDED" {
			t.Errorf("long command whose request ended: %v", err)
		}
	}
	if s := lane.Stats(); s.Peak != 1 || s.Running != 0 || s.Waiting != 0 {
		t.Errorf("lane %+v, want a peak of one and nothing left", s)
	}
}
