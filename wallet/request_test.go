package wallet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/wallet/review"
)

func s(kind, text string) *review.Value { return &review.Value{Kind: kind, Text: &text} }

func rec(fields ...any) *review.Value {
	v := &review.Value{Kind: review.ValueRecord}
	for i := 0; i < len(fields); i += 2 {
		v.Fields = append(v.Fields, review.Field{Label: fields[i].(string), Value: fields[i+1].(*review.Value)})
	}
	return v
}

func none() *review.Value                { return &review.Value{Kind: review.ValueOptional} }
func some(v *review.Value) *review.Value { return &review.Value{Kind: review.ValueOptional, Inner: v} }

// Daml-LF JSON and the prepared value are compared by meaning: the
// representations the JSON API accepts for one value are all the same.
func TestSameValue(t *testing.T) {
	iou := rec("owner", s(review.ValueParty, "alice::1220aa"), "amount", s(review.ValueNumeric, "100.0000000000"),
		"count", s(review.ValueInt64, "7"), "note", none(), "due", s(review.ValueTimestamp, "2025-08-07T02:00:00Z"),
		"tags", &review.Value{Kind: review.ValueList, Elements: []*review.Value{s(review.ValueText, "a")}},
		"nested", some(some(s(review.ValueText, "x"))), "empty", some(none()),
		"side", &review.Value{Kind: review.ValueVariant, Constructor: "Left", Inner: s(review.ValueInt64, "3")},
		"color", &review.Value{Kind: review.ValueEnum, Constructor: "Red"})
	good := []string{
		`{"owner":"alice::1220aa","amount":"100","count":"7","due":"2025-08-07T02:00:00.000000Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`,
		`{"owner":"alice::1220aa","amount":100.0,"count":7,"note":null,"due":"2025-08-07T02:00:00Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":"3"},"color":"Red"}`,
	}
	for _, j := range good {
		if path, ok := sameValue(json.RawMessage(j), iou, "argument"); !ok {
			t.Errorf("%s differs at %s", j, path)
		}
	}
	bad := map[string]string{
		`{"owner":"eve::1220ee","amount":"100","count":"7","due":"2025-08-07T02:00:00Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`:               "argument.owner",
		`{"owner":"alice::1220aa","amount":"1000","count":"7","due":"2025-08-07T02:00:00Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`:            "argument.amount",
		`{"owner":"alice::1220aa","amount":"100","count":"7","due":"2025-08-07T02:00:00Z","tags":["a","b"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`:         "argument.tags",
		`{"owner":"alice::1220aa","amount":"100","count":"7","due":"2025-08-07T02:00:00Z","tags":["a"],"nested":"x","empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`:               "argument.nested",
		`{"owner":"alice::1220aa","amount":"100","count":"7","due":"2025-08-07T02:00:00Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Right","value":3},"color":"Red"}`:            "argument.side",
		`{"owner":"alice::1220aa","amount":"100","count":"7","due":"2025-08-07T02:00:00Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red","x":1}`:       "argument",
		`{"owner":"alice::1220aa","amount":"100","count":"7","due":"2025-08-07T02:00:01Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`:             "argument.due",
		`{"owner":"alice::1220aa","amount":"100","count":"7","note":"hi","due":"2025-08-07T02:00:00Z","tags":["a"],"nested":["x"],"empty":[],"side":{"tag":"Left","value":3},"color":"Red"}`: "argument.note",
	}
	for j, want := range bad {
		if path, ok := sameValue(json.RawMessage(j), iou, "argument"); ok || path != want {
			t.Errorf("%s: same=%v at %q, want a difference at %q", j, ok, path, want)
		}
	}
}

func TestRequestWarnings(t *testing.T) {
	node := &review.Node{Kind: review.KindExercise, ContractID: "00cid", Choice: "Transfer",
		Template: &review.Identifier{Name: "Iou:Iou", PackageID: "pkg1", ModuleName: "Iou", EntityName: "Iou"}, PackageName: "iou",
		Argument: rec("newOwner", s(review.ValueParty, "bob::1220bb"))}
	r := &review.Review{Submitter: review.Submitter{ActAs: []string{"alice::1220aa"}, CommandID: "c1"}, Nodes: []*review.Node{node}}
	env := func(req string) *Envelope {
		return &Envelope{Info: &EnvelopeInfo{PrepareRequest: json.RawMessage(req)}}
	}
	same := `{"actAs":["alice::1220aa"],"commandId":"c1","commands":[{"ExerciseCommand":{"templateId":"#iou:Iou:Iou","contractId":"00cid","choice":"Transfer","choiceArgument":{"newOwner":"bob::1220bb"}}}]}`
	if w := requestWarnings(env(same), r); len(w) != 0 {
		t.Errorf("warnings for a matching request: %q", w)
	}
	if w := requestWarnings(&Envelope{}, r); len(w) != 0 {
		t.Errorf("warnings without a recorded request: %q", w)
	}
	other := `{"actAs":["alice::1220aa"],"commandId":"c1","commands":[{"ExerciseCommand":{"templateId":"pkg2:Iou:Iou","contractId":"00other","choice":"Archive","choiceArgument":{"newOwner":"eve::1220ee"}}}]}`
	w := strings.Join(requestWarnings(env(other), r), "\n")
	for _, want := range []string{
		"the exercise's template: requested pkg2:Iou:Iou, prepared #iou:Iou:Iou",
		"the exercise's contract id: requested 00other, prepared 00cid",
		"the exercise's choice: requested Archive, prepared Transfer",
		`the exercise's argument.newOwner: requested {"newOwner":"eve::1220ee"}, prepared {newOwner = 'bob::1220bb'}`,
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	// An exercise through an interface may name the interface, by package
	// name (the transaction does not carry the interface's) or by id.
	node.Interface = &review.Identifier{Name: "Api.Token:Holding", PackageID: "api1", ModuleName: "Api.Token", EntityName: "Holding"}
	for _, tmpl := range []string{"#token-api:Api.Token:Holding", "api1:Api.Token:Holding", "#iou:Iou:Iou"} {
		req := strings.Replace(same, "#iou:Iou:Iou", tmpl, 1)
		if w := requestWarnings(env(req), r); len(w) != 0 {
			t.Errorf("warnings for an exercise requested as %s: %q", tmpl, w)
		}
	}
	for _, tmpl := range []string{"#token-api:Api.Token:Other", "api2:Api.Token:Holding"} {
		req := strings.Replace(same, "#iou:Iou:Iou", tmpl, 1)
		if w := requestWarnings(env(req), r); len(w) != 1 || !strings.Contains(w[0], "the exercise's template: requested "+tmpl) {
			t.Errorf("an exercise requested as %s: %q", tmpl, w)
		}
	}
	node.Interface = nil
	created := `{"actAs":["alice::1220aa"],"commands":[{"CreateCommand":{"templateId":"#iou:Iou:Iou","createArguments":{}}}]}`
	if w := requestWarnings(env(created), r); len(w) != 1 || !strings.Contains(w[0], "asks for the create of #iou:Iou:Iou, but the transaction has an exercise node there") {
		t.Errorf("a create request on an exercise: %q", w)
	}
}
