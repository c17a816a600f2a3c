package ledgerapi

import (
	"encoding/base64"
	"strings"
	"sync"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// semanticModel is the part of the test tool's SemanticTests.daml
// (ledger-common-dars semantic/) the cases below run: Iou, the paint offer
// flow, the Fetch* helpers, SharedContract, Token and Delegation. Daml's
// pair is DA.Types' Tuple2; without daml-prim the package declares its own.
func semanticModel() *lb.Package {
	pkg := lb.New("semantic-tests-built", "1.0.0", "SemanticTests")
	pkg.Record("Archive")
	unit := lb.Pure(lb.TUnit, lb.Unit)
	declare := func(name string, fields []lb.Field, signatories, observers []string, choices ...lb.Choice) {
		pkg.Record(name, fields...)
		var sigs, obs []lb.Expr
		for _, s := range signatories {
			sigs = append(sigs, field(name, s))
		}
		for _, o := range observers {
			obs = append(obs, field(name, o))
		}
		tpl := lb.Template{Name: name, Param: "this", Signatories: parties(sigs...), Choices: append([]lb.Choice{lb.Archive("Archive", parties(sigs...))}, choices...)}
		if len(obs) > 0 {
			tpl.Observers = parties(obs...)
		}
		pkg.Template(tpl)
	}
	ctrl := func(tpl, party string) lb.Expr { return parties(field(tpl, party)) }
	cidOf := func(tpl string) lb.Type { return lb.TContractID(lb.TCon(tpl)) }
	amount := lb.TCon("Amount")
	pkg.Record("Amount", lb.F("value", lb.TNumeric(10)), lb.F("currency", lb.TText))
	pkg.RecordOf("Tuple2", []string{"a", "b"}, lb.F("_1", lb.TVar("a")), lb.F("_2", lb.TVar("b")))

	pkg.Record("Transfer", lb.F("newOwner", lb.TParty))
	declare("Iou", []lb.Field{lb.F("payer", lb.TParty), lb.F("owner", lb.TParty), lb.F("amount", amount)}, []string{"payer"}, []string{"owner"},
		choice("Transfer", true, ctrl("Iou", "owner"), cidOf("Iou"), lb.Create("Iou", lb.Record("Iou",
			lb.FE("payer", field("Iou", "payer")), lb.FE("owner", argField("Transfer", "newOwner")), lb.FE("amount", field("Iou", "amount"))))))
	fetcher := func(name, tpl, cidField string) {
		ch := name + "_Fetch"
		pkg.Record(ch)
		declare(name, []lb.Field{lb.F("fetcher", lb.TParty), lb.F(cidField, cidOf(tpl))}, []string{"fetcher"}, nil,
			choice(ch, true, ctrl(name, "fetcher"), lb.TCon(tpl), lb.Fetch(tpl, field(name, cidField))))
	}
	fetcher("FetchIou", "Iou", "iouCid")

	declare("PaintAgree", []lb.Field{lb.F("painter", lb.TParty), lb.F("houseOwner", lb.TParty)}, []string{"painter", "houseOwner"}, nil)
	fetcher("FetchPaintAgree", "PaintAgree", "agreeCid")
	pair := lb.TCon("Tuple2", cidOf("Iou"), cidOf("PaintAgree"))
	pkg.Record("PaintOffer_Accept", lb.F("iouCid", cidOf("Iou")))
	declare("PaintOffer", []lb.Field{lb.F("painter", lb.TParty), lb.F("houseOwner", lb.TParty), lb.F("obligor", lb.TParty), lb.F("amount", amount)},
		[]string{"painter"}, []string{"houseOwner"},
		choice("PaintOffer_Accept", true, ctrl("PaintOffer", "houseOwner"), pair, lb.Do([]lb.Binding{
			{Name: "iou", Type: cidOf("Iou"), Bound: lb.Exercise("Iou", "Transfer", argField("PaintOffer_Accept", "iouCid"),
				lb.Record("Transfer", lb.FE("newOwner", field("PaintOffer", "painter"))))},
			{Name: "agree", Type: cidOf("PaintAgree"), Bound: lb.Create("PaintAgree", lb.Record("PaintAgree",
				lb.FE("painter", field("PaintOffer", "painter")), lb.FE("houseOwner", field("PaintOffer", "houseOwner"))))},
		}, lb.Pure(pair, lb.RecordOf("Tuple2", []lb.Type{cidOf("Iou"), cidOf("PaintAgree")}, lb.FE("_1", lb.Var("iou")), lb.FE("_2", lb.Var("agree")))))))
	fetcher("FetchPaintOffer", "PaintOffer", "offerCid")

	pkg.Record("SharedContract_Consume1")
	pkg.Record("SharedContract_Consume2")
	declare("SharedContract", []lb.Field{lb.F("payer", lb.TParty), lb.F("owner1", lb.TParty), lb.F("owner2", lb.TParty)},
		[]string{"payer"}, []string{"owner1", "owner2"},
		choice("SharedContract_Consume1", true, ctrl("SharedContract", "owner1"), lb.TUnit, unit),
		choice("SharedContract_Consume2", true, ctrl("SharedContract", "owner2"), lb.TUnit, unit))

	pkg.Record("Token_Consume")
	declare("Token", []lb.Field{lb.F("issuer", lb.TParty), lb.F("owner", lb.TParty), lb.F("id", lb.TInt64)}, []string{"issuer"}, []string{"owner"},
		choice("Token_Consume", true, ctrl("Token", "owner"), lb.TUnit, unit))
	tokenArg := func(ch string) lb.Expr { return argField(ch, "tokenId") }
	for _, ch := range []string{"Delegation_Token_Consume", "Delegation_Divulge_Token", "Delegation_Wrong_Divulge_Token"} {
		pkg.Record(ch, lb.F("tokenId", cidOf("Token")))
	}
	fetchToken := func(ch string) lb.Expr { return then(lb.TCon("Token"), lb.Fetch("Token", tokenArg(ch)), unit) }
	declare("Delegation", []lb.Field{lb.F("owner", lb.TParty), lb.F("delegate", lb.TParty)}, []string{"owner"}, []string{"delegate"},
		choice("Delegation_Token_Consume", true, ctrl("Delegation", "delegate"), lb.TUnit,
			lb.Exercise("Token", "Token_Consume", tokenArg("Delegation_Token_Consume"), lb.Record("Token_Consume"))),
		choice("Delegation_Divulge_Token", true, ctrl("Delegation", "owner"), lb.TUnit, fetchToken("Delegation_Divulge_Token")),
		choice("Delegation_Wrong_Divulge_Token", false, ctrl("Delegation", "owner"), lb.TUnit, fetchToken("Delegation_Wrong_Divulge_Token")))
	return pkg
}

// The SemanticTests.scala cases that need its own model (SemanticTests
// runs the others on stand-ins): consistency under concurrent and shared
// spending, privacy projections of the paint-offer flow, divulgence.
// SemanticPaintOffer and SemanticPaintCounterOffer are GrpcOnly.
func TestSemanticTestsBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, semanticModel())
	tpl := func(name string) string { return "#semantic-tests-built:SemanticTests:" + name }
	notFound := failure{code: "CONTRACT_NOT_FOUND", cause: "Contract could not be found", definite: true}
	onePound := map[string]any{"value": "1", "currency": "GBP"}
	mustFail := func(t *testing.T, party string, cmd map[string]any, f failure) {
		t.Helper()
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, cmd), f)
	}

	t.Run("SemanticConcurrentDoubleSpend", func(t *testing.T) {
		payer, owner1, owner2 := p.allocate(t, "payer"), p.allocate(t, "owner1"), p.allocate(t, "owner2")
		const archives = 10
		for c := 1; c <= 2; c++ {
			shared := p.create(t, payer, tpl("SharedContract"), map[string]any{"payer": payer, "owner1": owner1, "owner2": owner2})
			statuses := make([]int, archives)
			var wg sync.WaitGroup
			for i := range archives {
				wg.Add(1)
				go func() {
					defer wg.Done()
					owner, choice := owner2, "SharedContract_Consume2"
					if i%2 == 0 {
						owner, choice = owner1, "SharedContract_Consume1"
					}
					statuses[i] = p.submitStatus([]string{owner}, exerciseCmd(tpl("SharedContract"), shared, choice, nil))
				}()
			}
			wg.Wait()
			ok := 0
			for _, s := range statuses {
				if s == 200 {
					ok++
				}
			}
			if ok != 1 {
				t.Errorf("contract %d: %d successful archives of %d (statuses %v), want exactly one", c, ok, archives, statuses)
			}
		}
	})
	t.Run("SemanticDoubleSpendShared", func(t *testing.T) {
		payer, owner1, owner2 := p.allocate(t, "payer"), p.allocate(t, "owner1"), p.allocate(t, "owner2")
		shared := p.create(t, payer, tpl("SharedContract"), map[string]any{"payer": payer, "owner1": owner1, "owner2": owner2})
		p.exercise(t, owner1, tpl("SharedContract"), shared, "SharedContract_Consume1", nil)
		mustFail(t, owner2, exerciseCmd(tpl("SharedContract"), shared, "SharedContract_Consume2", nil), notFound)
	})

	t.Run("SemanticPrivacyProjections", func(t *testing.T) {
		bank, houseOwner, painter := p.allocate(t, "bank"), p.allocate(t, "houseOwner"), p.allocate(t, "painter")
		// fetch has party create a Fetch* helper on cid and fetch through it;
		// want is the failure, nil for success.
		fetch := func(t *testing.T, helper, cidField, party, cid string, want *failure, disclosed ...any) {
			t.Helper()
			h := p.create(t, party, tpl(helper), map[string]any{"fetcher": party, cidField: cid})
			body := p.jsCommands([]string{party}, exerciseCmd(tpl(helper), h, helper+"_Fetch", nil))
			if disclosed != nil {
				body["disclosedContracts"] = disclosed
			}
			if want == nil {
				p.ok(t, "POST", "/v2/commands/submit-and-wait", body, nil)
				return
			}
			p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, *want)
		}
		iou := p.create(t, bank, tpl("Iou"), map[string]any{"payer": bank, "owner": houseOwner, "amount": onePound})
		// The IOU is visible only to the payer and the owner.
		fetch(t, "FetchIou", "iouCid", bank, iou, nil)
		fetch(t, "FetchIou", "iouCid", houseOwner, iou, nil)
		fetch(t, "FetchIou", "iouCid", painter, iou, &notFound)

		offer := p.create(t, painter, tpl("PaintOffer"), map[string]any{"painter": painter, "houseOwner": houseOwner, "obligor": bank, "amount": onePound})
		// The house owner and the painter see the offer, the bank does not.
		fetch(t, "FetchPaintOffer", "offerCid", houseOwner, offer, nil)
		fetch(t, "FetchPaintOffer", "offerCid", painter, offer, nil)
		fetch(t, "FetchPaintOffer", "offerCid", bank, offer, &notFound)

		var newIou, agreement string
		for _, c := range createdEvents(p.exercise(t, houseOwner, tpl("PaintOffer"), offer, "PaintOffer_Accept", map[string]any{"iouCid": iou})) {
			if strings.HasSuffix(c.TemplateID, ":Iou") {
				newIou = c.ContractID
			} else {
				agreement = c.ContractID
			}
		}
		if newIou == "" || agreement == "" {
			t.Fatal("PaintOffer_Accept did not create a new Iou and a PaintAgree")
		}
		// The bank sees the new IOU, not the agreement.
		fetch(t, "FetchIou", "iouCid", bank, newIou, nil)
		fetch(t, "FetchPaintAgree", "agreeCid", bank, agreement, &notFound)
		// The house owner and the painter see the agreement.
		fetch(t, "FetchPaintAgree", "agreeCid", painter, agreement, nil)
		fetch(t, "FetchPaintAgree", "agreeCid", houseOwner, agreement, nil)
		// The painter sees its new IOU, the house owner does not.
		fetch(t, "FetchIou", "iouCid", painter, newIou, nil)
		fetch(t, "FetchIou", "iouCid", houseOwner, newIou, &notFound)

		// Disclosed to the house owner, the new IOU is known but the
		// house owner is no stakeholder: the fetch is not authorized.
		var created []*ledgerapi.CreatedEvent
		for _, tx := range p.transactionsOfTemplate(t, bank, tpl("Iou")) {
			created = append(created, createdEvents(tx)...)
		}
		if len(created) < 2 || created[1].ContractID != newIou {
			t.Fatalf("the bank's second Iou create is not the new IOU %s: %d creates", newIou, len(created))
		}
		fetch(t, "FetchIou", "iouCid", houseOwner, newIou,
			&failure{code: "DAML_AUTHORIZATION_ERROR", cause: "requires one of the stakeholders", definite: true},
			disclosedOf(created[1]))
	})

	t.Run("SemanticDivulgence", func(t *testing.T) {
		issuer, owner, delegate := p.allocate(t, "issuer"), p.allocate(t, "owner"), p.allocate(t, "delegate")
		token := p.create(t, issuer, tpl("Token"), map[string]any{"issuer": issuer, "owner": owner, "id": 1})
		delegationArgs := map[string]any{"owner": owner, "delegate": delegate}
		delegation := p.create(t, owner, tpl("Delegation"), delegationArgs)
		consume := exerciseCmd(tpl("Delegation"), delegation, "Delegation_Token_Consume", map[string]any{"tokenId": token})

		// Divulging with a non-consuming choice does not make the token
		// usable to the delegate…
		noDivulge := p.create(t, owner, tpl("Delegation"), delegationArgs)
		p.exercise(t, owner, tpl("Delegation"), noDivulge, "Delegation_Wrong_Divulge_Token", map[string]any{"tokenId": token})
		mustFail(t, delegate, consume, notFound)
		// …nor with a consuming one.
		divulge := p.create(t, owner, tpl("Delegation"), delegationArgs)
		p.exercise(t, owner, tpl("Delegation"), divulge, "Delegation_Divulge_Token", map[string]any{"tokenId": token})
		mustFail(t, delegate, consume, notFound)
	})
}

// transactionsOfTemplate lists party's ACS-delta transactions filtered to
// template, with created event blobs.
func (p *participant) transactionsOfTemplate(t *testing.T, party, template string) []ledgerapi.Transaction {
	t.Helper()
	var els []struct {
		Update ledgerapi.JsUpdate `json:"update"`
	}
	p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0, "endInclusive": p.ledgerEnd(t),
		"updateFormat": map[string]any{"includeTransactions": map[string]any{
			"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{template}, nil, true), "transactionShape": ledgerapi.TransactionShapeACSDelta}}}, &els)
	var out []ledgerapi.Transaction
	for _, el := range els {
		if el.Update.Transaction != nil {
			out = append(out, *el.Update.Transaction)
		}
	}
	return out
}

// disclosedOf is the disclosed contract of a created event read with its blob.
func disclosedOf(c *ledgerapi.CreatedEvent) map[string]any {
	return map[string]any{"templateId": c.TemplateID, "contractId": c.ContractID,
		"createdEventBlob": base64.StdEncoding.EncodeToString(c.CreatedEventBlob), "synchronizerId": ""}
}
