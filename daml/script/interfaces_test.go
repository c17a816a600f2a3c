package script

import (
	"context"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// TestQueryInterface answers queryInterface and queryInterfaceContractId
// on the contracts testSetup creates: Alice's amulet, seen through the
// token standard's Holding interface, with its view.
func TestQueryInterface(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	n, err := r.Lookup("Splice.Scripts.Wallet.TestSubscriptions:testSetup")
	if err != nil {
		t.Fatal(err)
	}
	l := NewMemoryLedger(r)
	if _, err := r.Run(context.Background(), n, l, Options{}); err != nil {
		t.Fatal(err)
	}
	ps, _ := l.ListKnownParties(context.Background())
	var alice string
	for _, p := range ps {
		if strings.HasPrefix(p.Party, "alice") {
			alice = p.Party
		}
	}
	var holding *value.Identifier
	for _, p := range dar.Packages {
		if m := p.Module("Splice.Api.Token.HoldingV1"); m != nil && m.Interface("Holding") != nil {
			holding = value.IdentifierOf(lf.TypeConName{Package: p.ID, Module: m.Name, Name: lf.DottedName{"Holding"}})
		}
	}
	if alice == "" || holding == nil {
		t.Fatalf("alice %q, Holding %v", alice, holding)
	}
	st := &run{r: r, ctx: context.Background(), ledger: l, opts: Options{}, res: &Result{}, limits: r.limits}
	payload := &value.Record{Fields: []value.Field{
		{Label: "parties", Value: value.NewList(value.Party(alice))},
		{Label: "interfaceId", Value: r.types.typeRep(holding)},
	}}
	v, err := st.queryInterface(payload)
	if err != nil {
		t.Fatal(err)
	}
	rows := list(v)
	if len(rows) == 0 {
		t.Fatal("no holdings")
	}
	first := rows[0].(*value.Record)
	cid := first.Fields[0].Value.(value.ContractID)
	view, ok := first.Fields[1].Value.(value.Optional)
	if !ok || view.Value == nil || !strings.Contains(view.Value.String(), alice) {
		t.Errorf("view of %s: %v", cid, first.Fields[1].Value)
	}
	one, err := st.queryInterfaceContractID(&value.Record{Fields: append(payload.Fields, value.Field{Label: "cid", Value: cid})})
	if err != nil || one.String() != view.String() {
		t.Errorf("queryInterfaceContractId = %v, %v; want %v", one, err, view)
	}
	// A party that is no stakeholder of it does not see it.
	for _, p := range ps {
		if strings.HasPrefix(p.Party, "pizzeria") {
			payload.Fields[0].Value = value.NewList(value.Party(p.Party))
			if v, err := st.queryInterfaceContractID(&value.Record{Fields: append(payload.Fields, value.Field{Label: "cid", Value: cid})}); err != nil || v.(value.Optional).Value != nil {
				t.Errorf("%s sees %v, %v", p.Party, v, err)
			}
			return
		}
	}
	t.Error("no party pizzeria")
}
