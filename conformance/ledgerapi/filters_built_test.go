package ledgerapi

import (
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// interfaceViewsModel is the test tool's InterfaceViews.daml (ledger-common-dars
// semantic/), plus Test.daml's Dummy and DummyWithParam for the
// exercised-event case.
func interfaceViewsModel() *lb.Package {
	pkg := lb.New("interface-views-tests", "1.0.0", "InterfaceViews")
	pkg.Record("Archive")
	pkg.Record("View", lb.F("a", lb.TInt64), lb.F("b", lb.TBool))
	pkg.Record("View2", lb.F("c", lb.TInt64))
	pkg.Record("EmptyInterfaceView")
	pkg.Record("ChoiceI")
	pkg.InterfaceOf(lb.InterfaceDef{Name: "I", Param: "this", View: lb.TCon("View"), Methods: []lb.Field{lb.F("getOwner", lb.TParty)},
		Choices: []lb.Choice{choice("ChoiceI", false, parties(lb.CallInterface("I", "getOwner", this)), lb.TUnit, lb.Pure(lb.TUnit, lb.Unit))}})
	pkg.Interface("I2", "this", lb.TCon("View2"))
	pkg.Interface("INoTemplate", "this", lb.TCon("EmptyInterfaceView"))
	owner := func(tpl, p string) []lb.FieldExpr { return []lb.FieldExpr{lb.FE("getOwner", field(tpl, p))} }
	view := func(tpl, p string, a lb.Expr, b bool) lb.Implementation {
		bv := lb.False
		if b {
			bv = lb.True
		}
		return lb.Implementation{Interface: "I", View: lb.Record("View", lb.FE("a", a), lb.FE("b", bv)), Methods: owner(tpl, p)}
	}
	view2 := func(c int64) lb.Implementation {
		return lb.Implementation{Interface: "I2", View: lb.Record("View2", lb.FE("c", lb.Int(c)))}
	}
	declare := func(name string, fields []lb.Field, signatory string, observers lb.Expr, impls []lb.Implementation, choices ...lb.Choice) {
		pkg.Record(name, fields...)
		sigs := parties(field(name, signatory))
		pkg.Template(lb.Template{Name: name, Param: "this", Signatories: sigs, Observers: observers, Implements: impls,
			Choices: append([]lb.Choice{lb.Archive("Archive", sigs)}, choices...)})
	}
	pa := []lb.Field{lb.F("p", lb.TParty), lb.F("a", lb.TInt64)}
	unit := lb.Pure(lb.TUnit, lb.Unit)
	crashed := lb.Implementation{Interface: "I", View: lb.App(lb.TyApp(lb.Builtin(lb.Error), lb.TCon("View")), lb.Text("view crashed")), Methods: owner("T3", "p")}
	declare("T1", pa, "p", lb.Expr{}, []lb.Implementation{view("T1", "p", field("T1", "a"), true)})
	pkg.Record("ChoiceT2")
	declare("T2", pa, "p", lb.Expr{}, []lb.Implementation{view("T2", "p", field("T2", "a"), false)},
		choice("ChoiceT2", false, parties(field("T2", "p")), lb.TUnit, unit))
	declare("T3", pa, "p", lb.Expr{}, []lb.Implementation{crashed})
	declare("T4", pa, "p", lb.Expr{}, nil)
	declare("T5", pa, "p", lb.Expr{}, []lb.Implementation{view("T5", "p", field("T5", "a"), true), view2(1)})
	declare("T6", []lb.Field{lb.F("p1", lb.TParty), lb.F("p2", lb.TParty)}, "p1", parties(field("T6", "p1"), field("T6", "p2")),
		[]lb.Implementation{view("T6", "p1", lb.Int(6), true), view2(7)})

	pkg.Record("DummyNonConsuming")
	pkg.Record("DummyChoice2", lb.F("paramString", lb.TText))
	declare("Dummy", []lb.Field{lb.F("operator", lb.TParty)}, "operator", lb.Expr{}, nil,
		choice("DummyNonConsuming", false, parties(field("Dummy", "operator")), lb.TUnit, unit))
	declare("DummyWithParam", []lb.Field{lb.F("operator", lb.TParty)}, "operator", lb.Expr{}, nil,
		choice("DummyChoice2", true, parties(field("DummyWithParam", "operator")), lb.TUnit, unit))
	return pkg
}

// The TransactionServiceFiltersIT.scala cases that compose interface and
// template filters, with and without created event blobs, by party and
// for any party, over ACS delta, ledger effects and active contracts; and
// template filters on exercised events. The two wildcard cases are in
// TestTransactionServiceFiltersIT.
func TestTransactionServiceFiltersITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, interfaceViewsModel())
	tpl := func(name string) string { return "#interface-views-tests:InterfaceViews:" + name }

	// filters is a Filters value of template filters (T3, T5) and an
	// interface filter (I2 with its view), each with its blob flag; nil
	// leaves the kind out.
	type flags struct{ templates, iface *bool }
	filtersOf := func(f flags) []ledgerapi.CumulativeFilter {
		var out []ledgerapi.CumulativeFilter
		if f.templates != nil {
			for _, name := range []string{"T3", "T5"} {
				out = append(out, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
					Template: &ledgerapi.TemplateFilter{TemplateID: tpl(name), IncludeCreatedEventBlob: *f.templates}}})
			}
		}
		if f.iface != nil {
			out = append(out, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
				Interface: &ledgerapi.InterfaceFilter{InterfaceID: tpl("I2"), IncludeInterfaceView: true, IncludeCreatedEventBlob: *f.iface}}})
		}
		return out
	}
	// format merges a by-party and an any-party part, as mergeFormats does.
	format := func(party string, byParty, anyParty flags) ledgerapi.EventFormat {
		ef := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{}, Verbose: true}
		if c := filtersOf(byParty); c != nil {
			ef.FiltersByParty[party] = ledgerapi.Filters{Cumulative: c}
		}
		if c := filtersOf(anyParty); c != nil {
			ef.FiltersForAnyParty = &ledgerapi.Filters{Cumulative: c}
		}
		return ef
	}
	updates := func(t *testing.T, ef ledgerapi.EventFormat, begin int64, shape ledgerapi.TransactionShape) []ledgerapi.Transaction {
		t.Helper()
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin, "endInclusive": p.ledgerEnd(t),
			"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": ef, "transactionShape": shape}}}, &els)
		var out []ledgerapi.Transaction
		for _, el := range els {
			if el.Update.Transaction != nil {
				out = append(out, *el.Update.Transaction)
			}
		}
		return out
	}
	createdOf := func(txs []ledgerapi.Transaction) []*ledgerapi.CreatedEvent {
		var out []*ledgerapi.CreatedEvent
		for _, tx := range txs {
			out = append(out, createdEvents(tx)...)
		}
		return out
	}
	acs := func(t *testing.T, ef ledgerapi.EventFormat) []*ledgerapi.CreatedEvent {
		t.Helper()
		var els []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t), "eventFormat": ef}, &els)
		var out []*ledgerapi.CreatedEvent
		for _, el := range els {
			if ac := el.ContractEntry.ActiveContract; ac != nil {
				ev := ac.CreatedEvent
				out = append(out, &ev)
			}
		}
		return out
	}
	// run creates T5, T6, T3, T4 and reads them through ef in the three
	// reads, then archives them (the any-party filters see every party's).
	run := func(t *testing.T, party string, ef ledgerapi.EventFormat, check func(t *testing.T, read string, evs []*ledgerapi.CreatedEvent, cids []string)) {
		t.Helper()
		begin := p.ledgerEnd(t)
		cids := []string{
			p.create(t, party, tpl("T5"), map[string]any{"p": party, "a": 1}),
			p.create(t, party, tpl("T6"), map[string]any{"p1": party, "p2": party}),
			p.create(t, party, tpl("T3"), map[string]any{"p": party, "a": 2}),
			p.create(t, party, tpl("T4"), map[string]any{"p": party, "a": 4}),
		}
		check(t, "ACS delta", createdOf(updates(t, ef, begin, ledgerapi.TransactionShapeACSDelta)), cids)
		check(t, "ledger effects", createdOf(updates(t, ef, begin, ledgerapi.TransactionShapeLedgerEffects)), cids)
		check(t, "active contracts", acs(t, ef), cids)
		for i, name := range []string{"T5", "T6", "T3", "T4"} {
			p.exercise(t, party, tpl(name), cids[i], "Archive", nil)
		}
	}
	yes, no := true, false
	compositions := func(t *testing.T, templateBlob, ifaceBlob bool) {
		party := p.allocate(t, "party")
		tf, ifl := flags{templates: &templateBlob}, flags{iface: &ifaceBlob}
		for _, ef := range []ledgerapi.EventFormat{
			format(party, flags{templates: &templateBlob, iface: &ifaceBlob}, flags{}),
			format(party, flags{}, flags{templates: &templateBlob, iface: &ifaceBlob}),
			format(party, tf, ifl),
			format(party, ifl, tf),
		} {
			run(t, party, ef, func(t *testing.T, read string, evs []*ledgerapi.CreatedEvent, cids []string) {
				if len(evs) != 3 {
					t.Fatalf("%s: %d created events, want T5, T6, T3", read, len(evs))
				}
				for i, c := range []struct {
					name  string
					views int
					blob  bool
				}{{"T5", 1, templateBlob || ifaceBlob}, {"T6", 1, ifaceBlob}, {"T3", 0, templateBlob}} {
					ev := evs[i]
					if !strings.HasSuffix(ev.TemplateID, ":InterfaceViews:"+c.name) || ev.ContractID != cids[i] {
						t.Errorf("%s: event %d is %s %s, want %s %s", read, i, ev.TemplateID, ev.ContractID, c.name, cids[i])
					}
					if len(ev.InterfaceViews) != c.views || len(ev.CreateArgument) == 0 || string(ev.CreateArgument) == "null" {
						t.Errorf("%s: %s has %d views and arguments %s, want %d views and arguments", read, c.name, len(ev.InterfaceViews), ev.CreateArgument, c.views)
					}
					if got := len(ev.CreatedEventBlob) > 0; got != c.blob {
						t.Errorf("%s: %s has a created event blob: %v, want %v", read, c.name, got, c.blob)
					}
				}
			})
		}
	}
	t.Run("TSFInterfaceTemplatePlainFilters", func(t *testing.T) { compositions(t, no, no) })
	t.Run("TSFInterfaceTemplateFiltersWithEventBlobs", func(t *testing.T) { compositions(t, yes, no) })
	t.Run("TSFInterfaceWithEventBlobsTemplatePlainFilters", func(t *testing.T) { compositions(t, no, yes) })
	t.Run("TSFInterfaceWithEventBlobsTemplateFiltersWithEventBlobs", func(t *testing.T) { compositions(t, yes, yes) })

	t.Run("TSFTemplateWildcardFiltersWithEventBlobs", func(t *testing.T) {
		party := p.allocate(t, "party")
		ef := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{party: {Cumulative: []ledgerapi.CumulativeFilter{
			{IdentifierFilter: ledgerapi.IdentifierFilter{Wildcard: &ledgerapi.WildcardFilter{IncludeCreatedEventBlob: true}}}}}}, Verbose: true}
		run(t, party, ef, func(t *testing.T, read string, evs []*ledgerapi.CreatedEvent, _ []string) {
			if len(evs) != 4 {
				t.Fatalf("%s: %d created events, want 4", read, len(evs))
			}
			for _, ev := range evs {
				if len(ev.CreatedEventBlob) == 0 {
					t.Errorf("%s: %s has no created event blob", read, ev.TemplateID)
				}
			}
		})
	})

	t.Run("TSFExercisedTemplateFilters", func(t *testing.T) {
		party1, party2 := p.allocate(t, "party1"), p.allocate(t, "party2")
		dummy := []ledgerapi.CumulativeFilter{{IdentifierFilter: ledgerapi.IdentifierFilter{Template: &ledgerapi.TemplateFilter{TemplateID: tpl("Dummy")}}}}
		for _, c := range []struct {
			ef   ledgerapi.EventFormat
			want int
		}{
			{ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{party1: {Cumulative: dummy}}, Verbose: true}, 2},
			{ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{}, FiltersForAnyParty: &ledgerapi.Filters{Cumulative: dummy}, Verbose: true}, 4},
		} {
			begin := p.ledgerEnd(t)
			d1 := p.create(t, party1, tpl("Dummy"), map[string]any{"operator": party1})
			d2 := p.create(t, party2, tpl("Dummy"), map[string]any{"operator": party2})
			dp := p.create(t, party1, tpl("DummyWithParam"), map[string]any{"operator": party1})
			p.exercise(t, party1, tpl("Dummy"), d1, "DummyNonConsuming", nil)
			p.exercise(t, party2, tpl("Dummy"), d2, "DummyNonConsuming", nil)
			p.exercise(t, party1, tpl("DummyWithParam"), dp, "DummyChoice2", map[string]any{"paramString": ""})
			p.exercise(t, party1, tpl("Dummy"), d1, "Archive", nil)
			p.exercise(t, party2, tpl("Dummy"), d2, "Archive", nil)
			var ex []*ledgerapi.ExercisedEvent
			for _, tx := range updates(t, c.ef, begin, ledgerapi.TransactionShapeLedgerEffects) {
				ex = append(ex, exercisedEvents(tx)...)
			}
			if len(ex) != c.want {
				t.Errorf("any party %v: %d exercised events, want %d", c.ef.FiltersForAnyParty != nil, len(ex), c.want)
			}
			for _, e := range ex {
				if !strings.HasSuffix(e.TemplateID, ":InterfaceViews:Dummy") {
					t.Errorf("exercised event of %s, want Dummy", e.TemplateID)
				}
			}
		}
	})
}
