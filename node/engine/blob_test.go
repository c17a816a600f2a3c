package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// TestDisclosedBlobNoOracle: carol, no stakeholder of alice's Ping, sends
// AbortPing (which she may exercise once the Ping is disclosed to her)
// with a hand-built blob. Whether the blob describes the Ping exactly or
// differs in a field she guessed, she gets the same bytes back; only the
// blob the node gave out lets her through. Alice, who sees the Ping, may
// send a hand-built blob that matches and is told when it does not.
func TestDisclosedBlobNoOracle(t *testing.T) {
	f := damlFixture(t)
	carol := f.ledger.party("carol")
	o, _ := f.submit([]string{f.alice}, createCmd(pingTmpl, pingArgs(f.alice, f.bob)))
	ping := o.Transaction.Created[0]
	stored, _ := f.ledger.LookupContract(context.Background(), ping.ContractID)
	sealed, err := f.eng.CreatedEventBlob(stored)
	if err != nil {
		t.Fatal(err)
	}
	if !f.eng.sealed(sealed) {
		t.Fatal("the node's blob is not sealed")
	}
	handMatching := sealed[:len(sealed)-sealLen]
	if f.eng.sealed(handMatching) {
		t.Fatal("a blob without the seal counts as sealed")
	}
	ic := &damlpb.Metadata_InputContract{}
	if err := proto.Unmarshal(handMatching, ic); err != nil {
		t.Fatal(err)
	}
	// the guess of the id field is wrong
	for _, fl := range ic.GetV1().GetArgument().GetRecord().GetFields() {
		if fl.GetLabel() == "id" {
			fl.Value = &damlpb.Value{Sum: &damlpb.Value_Text{Text: "ping-2"}}
		}
	}
	handWrong, err := proto.MarshalOptions{Deterministic: true}.Marshal(ic)
	if err != nil {
		t.Fatal(err)
	}
	// and a wrong guess carrying the node's seal of the right one
	forgedSeal := append(append([]byte{}, handWrong...), sealed[len(handMatching):]...)

	abort := func(actAs string, blob []byte) (*Outcome, error) {
		return f.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: "abort", ActAs: []string{actAs},
			Commands:           []ledgerapi.Command{exerciseCmd(pingTmpl, ping.ContractID, "AbortPing", `{"anyone":"`+actAs+`"}`)},
			DisclosedContracts: []ledgerapi.DisclosedContract{{ContractID: ping.ContractID, TemplateID: pingTmpl, CreatedEventBlob: blob}}}, "user1")
	}
	answer := func(blob []byte) string {
		_, err := abort(carol, blob)
		b, _ := json.Marshal(err)
		if errorID(err) != "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED" {
			t.Errorf("carol's hand-built blob: %v", err)
		}
		return string(b)
	}
	matching, wrong, forged := answer(handMatching), answer(handWrong), answer(forgedSeal)
	if matching != wrong || matching != forged {
		t.Errorf("carol tells the blobs apart:\n matching %s\n    wrong %s\n   forged %s", matching, wrong, forged)
	}
	if strings.Contains(matching, "ping-1") || strings.Contains(matching, f.bob) {
		t.Errorf("the answer names the contract's content: %s", matching)
	}

	// alice, a stakeholder: told of a wrong blob, a matching one proceeds
	if _, err := abort(f.alice, handWrong); errorID(err) != "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED" ||
		!strings.Contains(err.Error(), "does not match the contract") {
		t.Errorf("alice's wrong blob: %v", err)
	}
	if _, err := abort(f.alice, handMatching); err != nil {
		t.Errorf("alice's matching hand-built blob: %v", err)
	}
	// carol with the blob the node gave out
	if o, err := abort(carol, sealed); err != nil || o.Transaction.Archived[0] != ping.ContractID {
		t.Errorf("carol with the node's blob: %v", err)
	}
	// another node's seal (another key) is no seal here
	other := damlFixture(t)
	if other.eng.sealed(sealed) {
		t.Error("a blob sealed by one engine is sealed for another")
	}
}

// FuzzDisclosedBlobOutsider sends an outsider's AbortPing with any blob
// for alice's Ping. Whatever the bytes, the engine does not panic, and a
// blob that names the Ping and is not the node's own sealed blob gets the
// one answer a hand-built copy of the Ping gets: nothing an outsider
// sends can make the answer depend on the Ping's content.
func FuzzDisclosedBlobOutsider(f *testing.F) {
	fx := damlFixture(f)
	carol := fx.ledger.party("carol")
	o, _ := fx.submit([]string{fx.alice}, createCmd(pingTmpl, pingArgs(fx.alice, fx.bob)))
	ping := o.Transaction.Created[0]
	stored, _ := fx.ledger.LookupContract(context.Background(), ping.ContractID)
	sealed, err := fx.eng.CreatedEventBlob(stored)
	if err != nil {
		f.Fatal(err)
	}
	abort := func(blob []byte) error {
		_, err := fx.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: "abort", ActAs: []string{carol},
			Commands:           []ledgerapi.Command{exerciseCmd(pingTmpl, ping.ContractID, "AbortPing", `{"anyone":"`+carol+`"}`)},
			DisclosedContracts: []ledgerapi.DisclosedContract{{CreatedEventBlob: blob}}}, "user1")
		return err
	}
	uniform, _ := json.Marshal(abort(sealed[:len(sealed)-sealLen]))
	f.Add(sealed[:len(sealed)-sealLen])
	f.Add(sealed[:len(sealed)-1])
	f.Add(append(append([]byte{}, sealed[:len(sealed)-sealLen]...), 0x08, 0x01))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, blob []byte) {
		err := abort(blob)
		ic := &damlpb.Metadata_InputContract{}
		if proto.Unmarshal(blob, ic) != nil || ic.GetV1().GetContractId() != ping.ContractID || bytes.Equal(blob, sealed) {
			return
		}
		if got, _ := json.Marshal(err); !bytes.Equal(got, uniform) {
			t.Fatalf("blob %x answers\n %s\nnot\n %s", blob, got, uniform)
		}
	})
}

// TestExecuteInputContractNoOracle: alice, an external party and no
// stakeholder of bob's contract, executes an exercise on it that she
// prepared with the contract disclosed — the node's blob goes through. A
// prepared transaction she builds herself, with an input contract that
// matches the stored one but lacks the seal, or differs from it, is
// answered the same bytes, on the generic model and on a Daml template.
func TestExecuteInputContractNoOracle(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     *fixture
		tmpl  string
		args  func(f *fixture) string
		exer  func(f *fixture, cid string) ledgerapi.Command
		field string
	}{
		{"generic", newFixture(t), iouTemplate, func(f *fixture) string { return iouArgs(f.bob, f.bob) },
			func(f *fixture, cid string) ledgerapi.Command { return exerciseCmd(iouTemplate, cid, "Transfer", `{}`) }, "amount"},
		{"daml", damlFixture(t), pingTmpl, func(f *fixture) string { return pingArgs(f.bob, f.bob) },
			func(f *fixture, cid string) ledgerapi.Command {
				return exerciseCmd(pingTmpl, cid, "AbortPing", `{"anyone":"`+f.alice+`"}`)
			}, "id"},
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
			if _, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys); err != nil {
				t.Fatalf("execute as prepared: %v", err)
			}
			answer := func(edit func(ic *damlpb.Metadata_InputContract)) string {
				pt := proto.Clone(p.PreparedTransaction).(*damlpb.PreparedTransaction)
				ic := pt.GetMetadata().GetInputContracts()[0]
				edit(ic)
				_, err := f.eng.Execute(context.Background(), f.resign(p, pt), "user1", f.ledger.lookupKeys)
				if errorID(err) != "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED" {
					t.Errorf("a hand-built input contract: %v", err)
				}
				b, _ := json.Marshal(err)
				return string(b)
			}
			matching := answer(func(ic *damlpb.Metadata_InputContract) { ic.EventBlob = ic.EventBlob[:len(ic.EventBlob)-sealLen] })
			wrong := answer(func(ic *damlpb.Metadata_InputContract) {
				for _, fl := range ic.GetV1().GetArgument().GetRecord().GetFields() {
					if fl.GetLabel() == c.field {
						fl.Value = &damlpb.Value{Sum: &damlpb.Value_Text{Text: "guess"}}
					}
				}
				ic.EventBlob = nil
				b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(ic)
				ic.EventBlob = b
			})
			kept := answer(func(ic *damlpb.Metadata_InputContract) { // the seal kept, the content changed
				for _, fl := range ic.GetV1().GetArgument().GetRecord().GetFields() {
					if fl.GetLabel() == c.field {
						fl.Value = &damlpb.Value{Sum: &damlpb.Value_Text{Text: "guess"}}
					}
				}
			})
			if matching != wrong || matching != kept {
				t.Errorf("alice tells the input contracts apart:\n matching %s\n    wrong %s\n     kept %s", matching, wrong, kept)
			}
		})
	}
}
