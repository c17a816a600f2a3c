package ledgerapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The InterfaceSubscriptionsIT.scala cases that need its own models (T1…T6,
// I, I2, INoTemplate of InterfaceViews.daml, built by interfaceViewsModel);
// TestInterfaceSubscriptionsIT runs the others on stand-ins.
// ISTransactionsDuplicateInterfaceFilters is GrpcOnly;
// ISTransactionsSubscribeBeforeTemplateCreated (the carbon packages
// uploaded under an open stream) is not ported.
func TestInterfaceSubscriptionsITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, interfaceViewsModel())
	tpl := func(name string) string { return "#interface-views-tests:InterfaceViews:" + name }
	is := func(id, name string) bool { return strings.HasSuffix(id, ":InterfaceViews:"+name) }
	interfaceSubscriptionCases(t, p, tpl, is, "IS", false)
	// InterfaceSubscriptionsWithEventBlobsIT: in 3.5 the same cases under
	// the prefix ISWP; here every filter also asks for the created event
	// blob, and each blob must decode to its event's contract.
	interfaceSubscriptionCases(t, p, tpl, is, "ISWP", true)
}

// interfaceSubscriptionCases runs the built-model cases named prefix+case
// on p's InterfaceViews package; with blobs every filter asks for the
// created event blob and every created event read must carry one that
// decodes (contract.DecodeBlob) to that event's contract id and template,
// without blobs none may carry one.
func interfaceSubscriptionCases(t *testing.T, p *participant, tpl func(string) string, is func(id, name string) bool, prefix string, blobs bool) {

	type iface struct {
		name string
		view bool
	}
	filtersOf := func(templates []string, ifaces []iface) ledgerapi.Filters {
		var f ledgerapi.Filters
		for _, name := range templates {
			f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
				Template: &ledgerapi.TemplateFilter{TemplateID: tpl(name), IncludeCreatedEventBlob: blobs}}})
		}
		for _, i := range ifaces {
			f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
				Interface: &ledgerapi.InterfaceFilter{InterfaceID: tpl(i.name), IncludeInterfaceView: i.view, IncludeCreatedEventBlob: blobs}}})
		}
		return f
	}
	read := func(t *testing.T, shape ledgerapi.TransactionShape, byParty map[string]ledgerapi.Filters) []ledgerapi.Transaction {
		t.Helper()
		ef := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{}, Verbose: true}
		for party, f := range byParty {
			ef.FiltersByParty[party] = f
		}
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0, "endInclusive": p.ledgerEnd(t),
			"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": ef, "transactionShape": shape}}}, &els)
		var out []ledgerapi.Transaction
		for _, el := range els {
			if el.Update.Transaction != nil {
				out = append(out, *el.Update.Transaction)
				for _, ev := range createdEvents(*el.Update.Transaction) {
					checkBlob(t, ev, blobs)
				}
			}
		}
		return out
	}
	created := func(txs []ledgerapi.Transaction) []*ledgerapi.CreatedEvent {
		var out []*ledgerapi.CreatedEvent
		for _, tx := range txs {
			out = append(out, createdEvents(tx)...)
		}
		return out
	}
	// viewOf checks ev has exactly one successful view of interface name
	// equal to want.
	viewOf := func(t *testing.T, what string, ev *ledgerapi.CreatedEvent, name string, want map[string]any) {
		t.Helper()
		var found []ledgerapi.InterfaceView
		for _, v := range ev.InterfaceViews {
			if is(v.InterfaceID, name) {
				found = append(found, v)
			}
		}
		if len(found) != 1 || found[0].ViewStatus.Code != 0 {
			t.Errorf("%s: views of %s %+v, want one successful", what, name, found)
			return
		}
		sameJSON(t, what+" view of "+name, found[0].ViewValue, want)
	}
	// four creates T1(1), T2(2), T3(3), T4(4) as party.
	four := func(t *testing.T, party string) []string {
		return []string{
			p.create(t, party, tpl("T1"), map[string]any{"p": party, "a": 1}),
			p.create(t, party, tpl("T2"), map[string]any{"p": party, "a": 2}),
			p.create(t, party, tpl("T3"), map[string]any{"p": party, "a": 3}),
			p.create(t, party, tpl("T4"), map[string]any{"p": party, "a": 4}),
		}
	}
	archiveFour := func(t *testing.T, party string, cids []string) {
		for i, name := range []string{"T1", "T2", "T3", "T4"} {
			p.exercise(t, party, tpl(name), cids[i], "Archive", nil)
		}
	}
	// basic is the Scala basicAssertions on T1, T2, T3 read through
	// template T1 and interface I with views.
	basic := func(t *testing.T, evs []*ledgerapi.CreatedEvent, cids []string) {
		t.Helper()
		if len(evs) != 3 {
			t.Fatalf("%d created events, want 3", len(evs))
		}
		for i, name := range []string{"T1", "T2", "T3"} {
			if !is(evs[i].TemplateID, name) || evs[i].ContractID != cids[i] || len(evs[i].InterfaceViews) != 1 {
				t.Errorf("create %d: %s %s with %d views, want %s %s with one", i+1, evs[i].TemplateID, evs[i].ContractID, len(evs[i].InterfaceViews), name, cids[i])
			}
			if len(evs[i].CreateArgument) == 0 || string(evs[i].CreateArgument) == "null" {
				t.Errorf("create %d has no create arguments", i+1)
			}
		}
		viewOf(t, "T1", evs[0], "I", map[string]any{"a": "1", "b": true})
		viewOf(t, "T2", evs[1], "I", map[string]any{"a": "2", "b": false})
		if v := evs[2].InterfaceViews; len(v) == 1 && (!is(v[0].InterfaceID, "I") || v[0].ViewStatus.Code != 9) {
			t.Errorf("T3's crashing view: %+v, want a status of code 9 for I", v[0])
		}
	}

	t.Run(prefix+"TransactionLedgerEffectsBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		cids := four(t, party)
		p.exercise(t, party, tpl("T2"), cids[1], "ChoiceT2", nil)
		p.exercise(t, party, tpl("I"), cids[1], "ChoiceI", nil)
		archiveFour(t, party, cids)
		txs := read(t, ledgerapi.TransactionShapeLedgerEffects, map[string]ledgerapi.Filters{party: filtersOf([]string{"T1"}, []iface{{"I", true}})})
		basic(t, created(txs), cids)
		var implemented [][]string
		for _, tx := range txs {
			for _, x := range exercisedEvents(tx) {
				implemented = append(implemented, x.ImplementedInterfaces)
			}
		}
		if len(implemented) != 5 {
			t.Fatalf("%d exercised events, want 5", len(implemented))
		}
		for i := 2; i < 5; i++ {
			if len(implemented[i]) != 1 || !is(implemented[i][0], "I") {
				t.Errorf("archive %d has implemented interfaces %v, want [I]", i-1, implemented[i])
			}
		}
		without := read(t, ledgerapi.TransactionShapeLedgerEffects, map[string]ledgerapi.Filters{party: filtersOf([]string{"T1"}, []iface{{"I", false}})})
		for _, c := range created(without) {
			if len(c.InterfaceViews) != 0 {
				t.Errorf("%s rendered views without being asked: %+v", c.TemplateID, c.InterfaceViews)
			}
		}
		n := 0
		for _, tx := range without {
			for _, x := range exercisedEvents(tx) {
				n++
				if len(x.ImplementedInterfaces) != 0 {
					t.Errorf("exercise %s rendered implemented interfaces without views asked: %v", x.Choice, x.ImplementedInterfaces)
				}
			}
		}
		if len(created(without)) != 3 || n != 5 {
			t.Errorf("without views: %d creates and %d exercises, want 3 and 5", len(created(without)), n)
		}
	})

	t.Run(prefix+"MultipleWitness", func(t *testing.T) {
		party1, party2 := p.allocate(t, "party1"), p.allocate(t, "party2")
		c := p.create(t, party1, tpl("T6"), map[string]any{"p1": party1, "p2": party2})
		merged := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{
			party1: filtersOf(nil, []iface{{"I", true}}), party2: filtersOf(nil, []iface{{"I2", true}})})
		if len(merged) != 1 || len(created(merged)) != 1 || created(merged)[0].ContractID != c {
			t.Fatalf("merged filters: %d transactions, want the create of %s", len(merged), c)
		}
		ev := created(merged)[0]
		viewOf(t, "merged", ev, "I", map[string]any{"a": "6", "b": true})
		viewOf(t, "merged", ev, "I2", map[string]any{"c": "7"})
		own := created(read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party1: filtersOf(nil, []iface{{"I", true}})}))
		if len(own) != 1 || own[0].ContractID != c || len(own[0].InterfaceViews) != 1 {
			t.Fatalf("party1 alone: %+v, want the create with one view", own)
		}
		viewOf(t, "party1", own[0], "I", map[string]any{"a": "6", "b": true})
		p.exercise(t, party1, tpl("T6"), c, "Archive", nil)
	})

	t.Run(prefix+"MultipleViews", func(t *testing.T) {
		party := p.allocate(t, "party")
		c := p.create(t, party, tpl("T5"), map[string]any{"p": party, "a": 31337})
		p.exercise(t, party, tpl("T5"), c, "Archive", nil)
		txs := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf(nil, []iface{{"I", true}, {"I2", true}})})
		if len(txs) != 2 || len(txs[0].Events) != 1 || txs[0].Events[0].Created == nil || len(txs[1].Events) != 1 || txs[1].Events[0].Archived == nil {
			t.Fatalf("transactions %+v, want the create then the archive", txs)
		}
		ev, arch := txs[0].Events[0].Created, txs[1].Events[0].Archived
		viewOf(t, "T5", ev, "I", map[string]any{"a": "31337", "b": true})
		viewOf(t, "T5", ev, "I2", map[string]any{"c": "1"})
		if arch.ContractID != c || len(arch.ImplementedInterfaces) != 2 ||
			!(is(arch.ImplementedInterfaces[0], "I") && is(arch.ImplementedInterfaces[1], "I2") || is(arch.ImplementedInterfaces[0], "I2") && is(arch.ImplementedInterfaces[1], "I")) {
			t.Errorf("archive of %s implements %v, want I and I2", arch.ContractID, arch.ImplementedInterfaces)
		}
	})

	t.Run(prefix+"TransactionsIrrelevantTransactions", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, tpl("T4"), map[string]any{"p": party, "a": 4})
		if txs := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf(nil, []iface{{"INoTemplate", true}})}); len(txs) != 0 {
			t.Errorf("%d transactions, want none", len(txs))
		}
	})

	t.Run(prefix+"TransactionsDuplicateTemplateFilters", func(t *testing.T) {
		party := p.allocate(t, "party")
		cids := four(t, party)
		evs := created(read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf([]string{"T1", "T1"}, []iface{{"I", true}})}))
		archiveFour(t, party, cids)
		if len(evs) < 3 {
			t.Fatalf("%d created events, want 3", len(evs))
		}
		for i := range 3 {
			if evs[i].ContractID != cids[i] {
				t.Errorf("create %d is %s, want %s", i+1, evs[i].ContractID, cids[i])
			}
		}
		if len(evs[0].CreateArgument) == 0 {
			t.Error("create 1 has no create arguments")
		}
		viewOf(t, "T2", evs[1], "I", map[string]any{"a": "2", "b": false})
	})

	t.Run(prefix+"TransactionsNoIncludedView", func(t *testing.T) {
		party := p.allocate(t, "party")
		cids := four(t, party)
		txs := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf([]string{"T1"}, []iface{{"I", false}})})
		archiveFour(t, party, cids)
		evs := created(txs)
		if len(txs) != 3 || len(evs) != 3 {
			t.Fatalf("%d transactions with %d creates, want 3", len(txs), len(evs))
		}
		for _, ev := range evs {
			if len(ev.InterfaceViews) != 0 || len(ev.CreateArgument) == 0 {
				t.Errorf("%s: %d views, arguments %s; want no views and the arguments", ev.TemplateID, len(ev.InterfaceViews), ev.CreateArgument)
			}
		}
		if !is(evs[0].TemplateID, "T1") || evs[0].ContractID != cids[0] {
			t.Errorf("create 1 is %s %s, want T1 %s", evs[0].TemplateID, evs[0].ContractID, cids[0])
		}
	})

	// strip clears what the Scala suite's updateTransaction empties.
	strip := func(txs []ledgerapi.Transaction, views, witnesses bool) []ledgerapi.Transaction {
		out := make([]ledgerapi.Transaction, len(txs))
		for i, tx := range txs {
			out[i] = tx
			out[i].CommandID = ""
			out[i].PaidTrafficCost = 0
			out[i].Events = nil
			for _, ev := range tx.Events {
				if ev.Created != nil {
					c := *ev.Created
					if views {
						c.InterfaceViews = nil
					} else {
						// the status details carry trace ids that differ between reads
						c.InterfaceViews = slices.Clone(c.InterfaceViews)
						for j := range c.InterfaceViews {
							c.InterfaceViews[j].ViewStatus.Details = nil
							c.InterfaceViews[j].ViewStatus.Message = ""
						}
					}
					if witnesses {
						c.WitnessParties = nil
					}
					ev.Created = &c
				}
				out[i].Events = append(out[i].Events, ev)
			}
		}
		return out
	}
	sameTxs := func(t *testing.T, what string, a, b []ledgerapi.Transaction) {
		t.Helper()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !reflect.DeepEqual(ja, jb) {
			t.Errorf("%s differ:\n%s\n%s", what, ja, jb)
		}
	}

	t.Run(prefix+"TransactionsEquivalentFilters", func(t *testing.T) {
		party := p.allocate(t, "party")
		cids := four(t, party)
		all := []string{"T1", "T2", "T3"}
		byIface := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf(nil, []iface{{"I", true}})})
		byTemplates := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf(all, nil)})
		byBoth := read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf(all, []iface{{"I", true}})})
		archiveFour(t, party, cids)
		if len(byIface) != 3 {
			t.Fatalf("%d transactions by interface, want 3", len(byIface))
		}
		var ids1, ids2 []string
		for i := range byIface {
			ids1 = append(ids1, byIface[i].UpdateID)
		}
		for i := range byTemplates {
			ids2 = append(ids2, byTemplates[i].UpdateID)
		}
		if !reflect.DeepEqual(ids1, ids2) {
			t.Errorf("by interface %v and by templates %v find other transactions", ids1, ids2)
		}
		sameTxs(t, "by templates and by both without views", strip(byTemplates, false, false), strip(byBoth, true, false))
		sameTxs(t, "by interface and by both", strip(byIface, false, false), strip(byBoth, false, false))
	})

	t.Run(prefix+"TransactionsMultipleParties", func(t *testing.T) {
		party1, party2 := p.allocate(t, "party1"), p.allocate(t, "party2")
		c := p.create(t, party1, tpl("T6"), map[string]any{"p1": party1, "p2": party2})
		get := func(party string, view bool) []ledgerapi.Transaction {
			return read(t, ledgerapi.TransactionShapeACSDelta, map[string]ledgerapi.Filters{party: filtersOf(nil, []iface{{"I", view}})})
		}
		with1, without1, with2, without2 := get(party1, true), get(party1, false), get(party2, true), get(party2, false)
		p.exercise(t, party1, tpl("T6"), c, "Archive", nil)
		if len(with1) != 1 {
			t.Fatalf("party1 sees %d transactions, want 1", len(with1))
		}
		sameTxs(t, "with views, party1 and party2", strip(with1, false, true), strip(with2, false, true))
		sameTxs(t, "without views, party1 and party2", strip(without1, false, true), strip(without2, false, true))
		sameTxs(t, "party1 with views stripped and party2 without", strip(with1, true, true), strip(without2, false, true))
	})
}

// checkBlob checks ev carries a created event blob if and only if want,
// and that a blob decodes to ev's contract id and template.
func checkBlob(t *testing.T, ev *ledgerapi.CreatedEvent, want bool) {
	t.Helper()
	if !want {
		if len(ev.CreatedEventBlob) != 0 {
			t.Errorf("%s has a created event blob, none asked", ev.ContractID)
		}
		return
	}
	if len(ev.CreatedEventBlob) == 0 {
		t.Errorf("%s %s has no created event blob", ev.TemplateID, ev.ContractID)
		return
	}
	c, err := contract.DecodeBlob(ev.CreatedEventBlob)
	if err != nil {
		t.Errorf("the blob of %s does not decode: %v", ev.ContractID, err)
		return
	}
	if c.ID.String() != ev.ContractID || !strings.HasSuffix(ev.TemplateID, ":"+c.TemplateID.ModuleName+":"+c.TemplateID.EntityName) {
		t.Errorf("the blob of %s %s holds %s %s", ev.TemplateID, ev.ContractID, c.TemplateID.String(), c.ID)
	}
}
