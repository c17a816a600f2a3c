package ledgerapi

import (
	"slices"
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// iouModel is the test tool's Iou.daml and IouTrade.daml, the parts the
// visibility cases use: Iou (issuer and owner sign, observers observe)
// with Iou_Transfer and Iou_AddObserver, IouTransfer with
// IouTransfer_Accept, and IouTrade with IouTrade_Accept. Left out: Iou's
// `ensure amount > 0.0` and IouTrade_Accept's `===` checks of the fetched
// Ious (the cases submit only values that pass them).
func iouModel() *lb.Package {
	pkg := lb.New("iou-tests-built", "1.0.0", "Iou")
	tIou := lb.TCon("Iou")
	tIouCid := lb.TContractID(tIou)
	tTransferCid := lb.TContractID(lb.TCon("IouTransfer"))
	iouFields := []lb.Field{lb.F("issuer", lb.TParty), lb.F("owner", lb.TParty), lb.F("currency", lb.TText),
		lb.F("amount", lb.TNumeric(10)), lb.F("observers", lb.TList(lb.TParty))}
	with := func(tpl string, rec lb.Expr, fields []lb.Field, changes map[string]lb.Expr) lb.Expr {
		var fes []lb.FieldExpr
		for _, f := range fields {
			v, ok := changes[f.Name]
			if !ok {
				v = lb.Proj(tpl, f.Name, rec)
			}
			fes = append(fes, lb.FE(f.Name, v))
		}
		return lb.Record(tpl, fes...)
	}
	pkg.Record("Archive")
	pkg.Record("Iou", iouFields...)
	pkg.Record("Iou_Transfer", lb.F("newOwner", lb.TParty))
	pkg.Record("Iou_AddObserver", lb.F("newObserver", lb.TParty))
	iouSigs := parties(field("Iou", "issuer"), field("Iou", "owner"))
	owner := parties(field("Iou", "owner"))
	pkg.Template(lb.Template{Name: "Iou", Param: "this", Signatories: iouSigs, Observers: field("Iou", "observers"), Choices: []lb.Choice{
		lb.Archive("Archive", iouSigs),
		choice("Iou_Transfer", true, owner, tTransferCid, lb.Create("IouTransfer", lb.Record("IouTransfer",
			lb.FE("iou", this), lb.FE("newOwner", argField("Iou_Transfer", "newOwner"))))),
		choice("Iou_AddObserver", true, owner, tIouCid, lb.Create("Iou", with("Iou", this, iouFields, map[string]lb.Expr{
			"observers": lb.Cons(lb.TParty, []lb.Expr{argField("Iou_AddObserver", "newObserver")}, field("Iou", "observers"))}))),
	}})

	pkg.Record("IouTransfer", lb.F("iou", tIou), lb.F("newOwner", lb.TParty))
	pkg.Record("IouTransfer_Accept")
	transferred := field("IouTransfer", "iou")
	transferSigs := parties(lb.Proj("Iou", "issuer", transferred), lb.Proj("Iou", "owner", transferred))
	pkg.Template(lb.Template{Name: "IouTransfer", Param: "this", Signatories: transferSigs, Observers: parties(field("IouTransfer", "newOwner")), Choices: []lb.Choice{
		lb.Archive("Archive", transferSigs),
		choice("IouTransfer_Accept", true, parties(field("IouTransfer", "newOwner")), tIouCid, lb.Create("Iou", with("Iou", transferred, iouFields, map[string]lb.Expr{
			"owner": field("IouTransfer", "newOwner"), "observers": lb.Nil(lb.TParty)}))),
	}})

	tradeFields := []lb.Field{lb.F("buyer", lb.TParty), lb.F("seller", lb.TParty), lb.F("baseIouCid", tIouCid),
		lb.F("baseIssuer", lb.TParty), lb.F("baseCurrency", lb.TText), lb.F("baseAmount", lb.TNumeric(10)),
		lb.F("quoteIssuer", lb.TParty), lb.F("quoteCurrency", lb.TText), lb.F("quoteAmount", lb.TNumeric(10))}
	pkg.Record("IouTrade", tradeFields...)
	pkg.Record("IouTrade_Accept", lb.F("quoteIouCid", tIouCid))
	buyer := parties(field("IouTrade", "buyer"))
	quote := argField("IouTrade_Accept", "quoteIouCid")
	base := field("IouTrade", "baseIouCid")
	pkg.Template(lb.Template{Name: "IouTrade", Param: "this", Signatories: buyer, Observers: parties(field("IouTrade", "seller")), Choices: []lb.Choice{
		lb.Archive("Archive", buyer),
		choice("IouTrade_Accept", true, parties(field("IouTrade", "seller")), lb.TList(tIouCid), lb.Do([]lb.Binding{
			{Name: "_baseIou", Type: tIou, Bound: lb.Fetch("Iou", base)},
			{Name: "_quoteIou", Type: tIou, Bound: lb.Fetch("Iou", quote)},
			{Name: "quoteTransfer", Type: tTransferCid, Bound: lb.Exercise("Iou", "Iou_Transfer", quote, lb.Record("Iou_Transfer", lb.FE("newOwner", field("IouTrade", "buyer"))))},
			{Name: "transferredQuote", Type: tIouCid, Bound: lb.Exercise("IouTransfer", "IouTransfer_Accept", lb.Var("quoteTransfer"), lb.Record("IouTransfer_Accept"))},
			{Name: "baseTransfer", Type: tTransferCid, Bound: lb.Exercise("Iou", "Iou_Transfer", base, lb.Record("Iou_Transfer", lb.FE("newOwner", field("IouTrade", "seller"))))},
			{Name: "transferredBase", Type: tIouCid, Bound: lb.Exercise("IouTransfer", "IouTransfer_Accept", lb.Var("baseTransfer"), lb.Record("IouTransfer_Accept"))},
		}, lb.Pure(lb.TList(tIouCid), lb.List(tIouCid, lb.Var("transferredQuote"), lb.Var("transferredBase"))))),
	}})
	return pkg
}

// TransactionServiceVisibilityIT.scala's Iou cases, every party on the one
// node. IouTrade_Accept returns the two new Ious as a list here (a pair
// in Scala; the package has no standard library).
func TestTransactionServiceVisibilityITIou(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, iouModel())
	iouT, transferT, tradeT := "#iou-tests-built:Iou:Iou", "#iou-tests-built:Iou:IouTransfer", "#iou-tests-built:Iou:IouTrade"
	iou := func(bank, currency, amount string) map[string]any {
		return map[string]any{"issuer": bank, "owner": bank, "currency": currency, "amount": amount, "observers": []string{}}
	}
	// exerciseAndGetContract: the id of the one contract the exercise creates.
	exerciseAndGet := func(t *testing.T, party, tpl, cid, choice string, arg any) string {
		t.Helper()
		created := createdEvents(p.exercise(t, party, tpl, cid, choice, arg))
		if len(created) != 1 {
			t.Fatalf("%s created %d contracts, want 1", choice, len(created))
		}
		return created[0].ContractID
	}
	// aliceIouObservedByBob: the bank's GBP Iou transferred to alice, who
	// adds bob as observer.
	aliceIouObservedByBob := func(t *testing.T, bank, alice, bob string) string {
		issue := p.create(t, bank, iouT, iou(bank, "GBP", "100"))
		transfer := exerciseAndGet(t, bank, iouT, issue, "Iou_Transfer", map[string]any{"newOwner": alice})
		aliceIou := exerciseAndGet(t, alice, transferT, transfer, "IouTransfer_Accept", nil)
		return exerciseAndGet(t, alice, iouT, aliceIou, "Iou_AddObserver", map[string]any{"newObserver": bob})
	}

	t.Run("TXFlatTransactionsVisibility", func(t *testing.T) {
		bank, alice, bob := p.allocate(t, "bank"), p.allocate(t, "alice"), p.allocate(t, "bob")
		aliceIou := aliceIouObservedByBob(t, bank, alice, bob)
		dkk := p.create(t, bank, iouT, iou(bank, "DKK", "110"))
		dkkTransfer := exerciseAndGet(t, bank, iouT, dkk, "Iou_Transfer", map[string]any{"newOwner": bob})
		bobIou := exerciseAndGet(t, bob, transferT, dkkTransfer, "IouTransfer_Accept", nil)
		trade := p.create(t, alice, tradeT, map[string]any{"buyer": alice, "seller": bob, "baseIouCid": aliceIou,
			"baseIssuer": bank, "baseCurrency": "GBP", "baseAmount": "100", "quoteIssuer": bank, "quoteCurrency": "DKK", "quoteAmount": "110"})
		tree := p.exercise(t, bob, tradeT, trade, "IouTrade_Accept", map[string]any{"quoteIouCid": bobIou})
		var newIous []*ledgerapi.CreatedEvent
		for _, c := range createdEvents(tree) {
			if strings.HasSuffix(c.TemplateID, ":Iou:Iou") {
				newIous = append(newIous, c)
			}
		}
		if len(newIous) != 2 {
			t.Fatalf("Expected 2 new IOUs created, found: %d", len(newIous))
		}
		ownedBy := func(party string) string {
			for _, c := range newIous {
				if slices.Contains(c.Signatories, party) && slices.Contains(c.Signatories, bank) {
					return c.ContractID
				}
			}
			t.Fatalf("Not found an IOU owned by %s", party)
			return ""
		}
		newAliceIou, newBobIou := ownedBy(alice), ownedBy(bob)
		createdIn := func(party string) []string {
			var ids []string
			for _, tx := range p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, party) {
				for _, c := range createdEvents(tx) {
					ids = append(ids, c.ContractID)
				}
			}
			return ids
		}
		aliceIDs, bobIDs := createdIn(alice), createdIn(bob)
		if !slices.Contains(aliceIDs, newAliceIou) {
			t.Error("Alice's flat transaction stream does not contain the new IOU")
		}
		if slices.Contains(aliceIDs, newBobIou) {
			t.Error("Alice's flat transaction stream contains Bob's new IOU")
		}
		if !slices.Contains(bobIDs, newBobIou) {
			t.Error("Bob's flat transaction stream does not contain the new IOU")
		}
		if slices.Contains(bobIDs, newAliceIou) {
			t.Error("Bob's flat transaction stream contains Alice's new IOU")
		}
	})

	// onlyRequesting checks every witness of every event of txs is among
	// the requesting parties.
	onlyRequesting := func(t *testing.T, what string, txs []ledgerapi.Transaction, requesting ...string) {
		t.Helper()
		for _, tx := range txs {
			for _, ev := range tx.Events {
				var ws []string
				switch {
				case ev.Created != nil:
					ws = ev.Created.WitnessParties
				case ev.Archived != nil:
					ws = ev.Archived.WitnessParties
				case ev.Exercised != nil:
					ws = ev.Exercised.WitnessParties
				}
				for _, w := range ws {
					if !slices.Contains(requesting, w) {
						t.Errorf("%s: witness %s", what, w)
					}
				}
			}
		}
	}
	for _, c := range []struct {
		name  string
		shape ledgerapi.TransactionShape
		kind  string
	}{{"TXRequestingPartiesWitnessVisibility", ledgerapi.TransactionShapeACSDelta, "flat"},
		{"TXLedgerEffectsRequestingPartiesWitnessVisibility", ledgerapi.TransactionShapeLedgerEffects, "ledger effects"}} {
		t.Run(c.name, func(t *testing.T) {
			bank, alice, bob := p.allocate(t, "bank"), p.allocate(t, "alice"), p.allocate(t, "bob")
			aliceIouObservedByBob(t, bank, alice, bob)
			onlyRequesting(t, "Alice's "+c.kind+" transactions contain other parties as witnesses", p.transactionsOf(t, c.shape, alice), alice)
			onlyRequesting(t, "Bob's "+c.kind+" transactions contain other parties as witnesses", p.transactionsOf(t, c.shape, bob), bob)
			onlyRequesting(t, "Alice's and Bank's "+c.kind+" transactions contain other parties as witnesses", p.transactionsOf(t, c.shape, alice, bank), alice, bank)
		})
	}
}
