package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// blobVariant decodes blob, edits its contract and encodes it again.
func blobVariant(t testing.TB, blob []byte, edit func(c *contract.Contract)) []byte {
	t.Helper()
	c, err := contract.DecodeBlob(blob)
	if err != nil {
		t.Fatal(err)
	}
	edit(c)
	out, err := contract.EncodeBlob(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// otherDiscriminator is id with another discriminator and the same suffix:
// a contract id the node never made.
func otherDiscriminator(id value.ContractID) value.ContractID {
	b := []byte(id)
	if b[2] == 'f' {
		b[2] = '0'
	} else {
		b[2] = 'f'
	}
	return value.ContractID(b)
}

// editFirstText changes the first text field of a record argument.
func editFirstText(c *contract.Contract, to string) {
	r := c.Argument.(*value.Record)
	fields := append([]value.Field(nil), r.Fields...)
	for i, f := range fields {
		if _, ok := f.Value.(value.Text); ok {
			fields[i].Value = value.Text(to)
			break
		}
	}
	c.Argument = &value.Record{TypeCon: r.TypeCon, Fields: fields}
}

// TestDisclosedBlobNoOracle: carol, no stakeholder of alice's Ping, sends
// AbortPing (which she may exercise once the Ping is disclosed to her).
// The blob the node gave out lets her through. A blob with another salt,
// another created_at or another argument is refused with
// DISCLOSED_CONTRACT_AUTHENTICATION_FAILED, and with the same answer as the
// same blob naming a contract id the node does not hold: what she learns
// depends on what she sent only, never on the Ping. Alice, a stakeholder,
// gets the same answers.
func TestDisclosedBlobNoOracle(t *testing.T) {
	f := damlFixture(t)
	carol := f.ledger.party("carol")
	o, _ := f.submit([]string{f.alice}, createCmd(pingTmpl, pingArgs(f.alice, f.bob)))
	ping := o.Transaction.Created[0]
	stored, _ := f.ledger.LookupContract(context.Background(), ping.ContractID)
	blob, err := f.eng.CreatedEventBlob(stored)
	if err != nil {
		t.Fatal(err)
	}
	abort := func(actAs string, cid value.ContractID, blob []byte) (*Outcome, error) {
		return f.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: "abort", ActAs: []string{actAs},
			Commands:           []ledgerapi.Command{exerciseCmd(pingTmpl, string(cid), "AbortPing", `{"anyone":"`+actAs+`"}`)},
			DisclosedContracts: []ledgerapi.DisclosedContract{{ContractID: string(cid), TemplateID: pingTmpl, CreatedEventBlob: blob}}}, "user1")
	}
	answer := func(actAs string, cid value.ContractID, blob []byte) string {
		_, err := abort(actAs, cid, blob)
		if errorID(err) != "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED" {
			t.Errorf("%s's blob for %s: %v", actAs, cid, err)
		}
		b, _ := json.Marshal(err)
		return strings.ReplaceAll(string(b), string(cid), "CID")
	}
	for name, edit := range map[string]func(c *contract.Contract){
		"another salt":       func(c *contract.Contract) { c.AuthenticationData = contract.AuthenticationDataV1(contract.Salt{1}) },
		"another created_at": func(c *contract.Contract) { c.CreatedAt++ },
		"another argument":   func(c *contract.Contract) { editFirstText(c, "ping-2") },
	} {
		held := blobVariant(t, blob, edit)
		unheld := blobVariant(t, held, func(c *contract.Contract) { c.ID = otherDiscriminator(c.ID) })
		unheldID := otherDiscriminator(value.ContractID(ping.ContractID))
		for _, party := range []string{carol, f.alice} {
			a, b := answer(party, value.ContractID(ping.ContractID), held), answer(party, unheldID, unheld)
			if a != b {
				t.Errorf("%s, %s: the answer tells a held contract from one the node does not hold:\n held %s\n none %s", name, party, a, b)
			}
			if strings.Contains(a, "ping-1") || strings.Contains(a, f.bob) {
				t.Errorf("%s: the answer names the contract's content: %s", name, a)
			}
		}
	}
	if o, err := abort(carol, value.ContractID(ping.ContractID), blob); err != nil || o.Transaction.Archived[0] != ping.ContractID {
		t.Errorf("carol with the node's blob: %v", err)
	}
}

// FuzzDisclosedBlobOutsider sends an outsider's AbortPing with any blob.
// Whatever the bytes, the engine does not panic; a contract other than
// the node's own blob is answered exactly as the same contract under an id
// the node does not hold: nothing an outsider sends can make the answer
// depend on the Ping's content.
func FuzzDisclosedBlobOutsider(f *testing.F) {
	fx := damlFixture(f)
	carol := fx.ledger.party("carol")
	o, _ := fx.submit([]string{fx.alice}, createCmd(pingTmpl, pingArgs(fx.alice, fx.bob)))
	ping := o.Transaction.Created[0]
	stored, _ := fx.ledger.LookupContract(context.Background(), ping.ContractID)
	blob, err := fx.eng.CreatedEventBlob(stored)
	if err != nil {
		f.Fatal(err)
	}
	abort := func(cid value.ContractID, blob []byte) string {
		_, err := fx.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: "abort", ActAs: []string{carol},
			Commands:           []ledgerapi.Command{exerciseCmd(pingTmpl, string(cid), "AbortPing", `{"anyone":"`+carol+`"}`)},
			DisclosedContracts: []ledgerapi.DisclosedContract{{CreatedEventBlob: blob}}}, "user1")
		b, _ := json.Marshal(err)
		return strings.ReplaceAll(string(b), string(cid), "CID")
	}
	f.Add(blob)
	f.Add(blob[:len(blob)-1])
	f.Add(blobVariant(f, blob, func(c *contract.Contract) { c.CreatedAt++ }))
	f.Add(blobVariant(f, blob, func(c *contract.Contract) { editFirstText(c, "ping-2") }))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got := abort(value.ContractID(ping.ContractID), b)
		c, err := contract.DecodeBlob(b)
		if err != nil || string(c.ID) != ping.ContractID || bytes.Equal(b, blob) {
			return
		}
		c.ID = otherDiscriminator(c.ID)
		other, err := contract.EncodeBlob(c)
		if err != nil {
			return
		}
		if want := abort(c.ID, other); got != want {
			t.Fatalf("blob %x answers\n %s\nbut under an id the node does not hold\n %s", b, got, want)
		}
	})
}

// TestExecuteInputContractNoOracle: alice, an external party and no
// stakeholder of bob's contract, executes an exercise on it that she
// prepared with the contract disclosed — the node's blob goes through. A
// prepared transaction she edits herself, with an input contract whose
// blob has another salt, another created_at or another argument, is
// refused as DISCLOSED_CONTRACT_AUTHENTICATION_FAILED before the store is
// asked: the same answer as for a contract id the node does not hold, on
// the generic model and on a Daml template.
func TestExecuteInputContractNoOracle(t *testing.T) {
	for _, c := range []struct {
		name string
		f    *fixture
		tmpl string
		args func(f *fixture) string
		exer func(f *fixture, cid string) ledgerapi.Command
	}{
		{"generic", newFixture(t), iouTemplate, func(f *fixture) string { return iouArgs(f.bob, f.bob) },
			func(f *fixture, cid string) ledgerapi.Command { return exerciseCmd(iouTemplate, cid, "Transfer", `{}`) }},
		{"daml", damlFixture(t), pingTmpl, func(f *fixture) string { return pingArgs(f.bob, f.bob) },
			func(f *fixture, cid string) ledgerapi.Command {
				return exerciseCmd(pingTmpl, cid, "AbortPing", `{"anyone":"`+f.alice+`"}`)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.f
			o, _ := f.submit([]string{f.bob}, createCmd(c.tmpl, c.args(f)))
			cid := o.Transaction.Created[0].ContractID
			stored, _ := f.ledger.LookupContract(context.Background(), cid)
			blob, err := f.eng.CreatedEventBlob(stored)
			if err != nil {
				t.Fatal(err)
			}
			req := prepareReq(f.alice, c.exer(f, cid))
			req.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: cid, CreatedEventBlob: blob}}
			p, err := f.eng.Prepare(context.Background(), req, "user1")
			if err != nil {
				t.Fatalf("prepare with the node's blob: %v", err)
			}
			answer := func(edit func(c *contract.Contract), unheld bool) string {
				pt := proto.Clone(p.PreparedTransaction).(*damlpb.PreparedTransaction)
				ic := pt.GetMetadata().GetInputContracts()[0]
				ic.EventBlob = blobVariant(t, ic.EventBlob, edit)
				id := cid
				if unheld {
					id = string(otherDiscriminator(value.ContractID(cid)))
					ic.EventBlob = blobVariant(t, ic.EventBlob, func(c *contract.Contract) { c.ID = value.ContractID(id) })
					ic.GetV1().ContractId = id
					// the nodes use the same id, so that the request is
					// consistent and only the store could tell them apart
					for _, n := range pt.GetTransaction().GetNodes() {
						if ex := n.GetV1().GetExercise(); ex != nil && ex.ContractId == cid {
							ex.ContractId = id
						}
					}
				}
				_, err := f.eng.Execute(context.Background(), f.resign(p, pt), "user1", f.ledger.lookupKeys)
				if errorID(err) != "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED" {
					t.Errorf("an edited input contract: %v", err)
				}
				b, _ := json.Marshal(err)
				return strings.ReplaceAll(string(b), id, "CID")
			}
			for name, edit := range map[string]func(c *contract.Contract){
				"another salt":       func(c *contract.Contract) { c.AuthenticationData = contract.AuthenticationDataV1(contract.Salt{1}) },
				"another created_at": func(c *contract.Contract) { c.CreatedAt++ },
				"another argument":   func(c *contract.Contract) { editFirstText(c, "guess") },
			} {
				if held, none := answer(edit, false), answer(edit, true); held != none {
					t.Errorf("%s: alice tells a held contract from one the node does not hold:\n held %s\n none %s", name, held, none)
				}
			}
			if _, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys); err != nil {
				t.Fatalf("execute as prepared: %v", err)
			}
		})
	}
}
