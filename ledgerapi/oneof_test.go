package ledgerapi

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// roundTrip encodes v, checks the wire text, decodes it into a fresh value
// of the same type and checks it equals v.
func roundTrip[T any](t *testing.T, v T, wire string) {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %+v: %v", v, err)
	}
	if !sameJSON(t, out, []byte(wire)) {
		t.Errorf("marshal %+v\n got: %s\nwant: %s", v, out, wire)
	}
	var back T
	if err := json.Unmarshal([]byte(wire), &back); err != nil {
		t.Fatalf("unmarshal %s: %v", wire, err)
	}
	// Decoding fills empty lists and null raw values that v may leave nil,
	// so compare what the decoded value encodes to.
	again, err := json.Marshal(back)
	if err != nil || !sameJSON(t, again, []byte(wire)) {
		t.Errorf("unmarshal %s = %+v, re-encodes to %s (%v)", wire, back, again, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestDeduplicationPeriodArms(t *testing.T) {
	roundTrip(t, DeduplicationPeriod{Duration: &Duration{Seconds: 60, Nanos: 1}},
		`{"DeduplicationDuration":{"value":{"seconds":60,"nanos":1,"unknownFields":{"fields":{}}}}}`)
	roundTrip(t, DeduplicationPeriod{Offset: ptr(int64(1<<53 + 1))}, `{"DeduplicationOffset":{"value":9007199254740993}}`)
	roundTrip(t, DeduplicationPeriod{}, `{"Empty":{}}`)
	var p DeduplicationPeriod
	if err := json.Unmarshal([]byte(`{"DeduplicationOffset":{"value":"12"}}`), &p); err != nil || !reflect.DeepEqual(p, DeduplicationPeriod{Offset: ptr(int64(12))}) {
		t.Errorf("decoded %+v, %v", p, err)
	}
	if _, err := json.Marshal(DeduplicationPeriod{Duration: &Duration{}, Offset: ptr(int64(1))}); err == nil {
		t.Error("both arms marshalled")
	}
}

func TestMinLedgerTimeArms(t *testing.T) {
	ts, _ := ParseTimestamp("2027-01-15T08:00:00Z")
	roundTrip(t, MinLedgerTime{Abs: &ts}, `{"time":{"MinLedgerTimeAbs":{"value":"2027-01-15T08:00:00Z"}}}`)
	roundTrip(t, MinLedgerTime{Rel: &Duration{Seconds: 5}}, `{"time":{"MinLedgerTimeRel":{"value":{"seconds":5,"nanos":0,"unknownFields":{"fields":{}}}}}}`)
	roundTrip(t, MinLedgerTime{}, `{"time":{"Empty":{}}}`)
	if _, err := json.Marshal(MinLedgerTime{Abs: &ts, Rel: &Duration{}}); err == nil {
		t.Error("both arms marshalled")
	}
}

func TestRightArms(t *testing.T) {
	for _, kind := range rightKinds {
		r := Right{Kind: RightKind(kind)}
		wire := `{"kind":{"` + kind + `":{"value":{}}}}`
		if r.Kind.HasParty() {
			r.Party = "P::1220aa"
			wire = `{"kind":{"` + kind + `":{"value":{"party":"P::1220aa"}}}}`
		}
		roundTrip(t, r, wire)
	}
	roundTrip(t, Right{}, `{"kind":{"Empty":{}}}`)
	if got := CanActAs("A::1").String(); got != "CanActAs(A::1)" {
		t.Errorf("String = %s", got)
	}
	if _, err := json.Marshal(Right{Kind: "CanFly"}); err == nil {
		t.Error("unknown kind marshalled")
	}
}

func TestCommandArms(t *testing.T) {
	roundTrip(t, Command{Create: &CreateCommand{TemplateID: "p:M:T", CreateArguments: json.RawMessage(`{"a":"1"}`)}},
		`{"CreateCommand":{"templateId":"p:M:T","createArguments":{"a":"1"}}}`)
	roundTrip(t, Command{Exercise: &ExerciseCommand{TemplateID: "p:M:T", ContractID: "00aa", Choice: "C", ChoiceArgument: json.RawMessage(`{}`)}},
		`{"ExerciseCommand":{"templateId":"p:M:T","contractId":"00aa","choice":"C","choiceArgument":{}}}`)
	roundTrip(t, Command{CreateAndExercise: &CreateAndExerciseCommand{TemplateID: "p:M:T", CreateArguments: json.RawMessage(`{}`), Choice: "C", ChoiceArgument: json.RawMessage(`[]`)}},
		`{"CreateAndExerciseCommand":{"templateId":"p:M:T","createArguments":{},"choice":"C","choiceArgument":[]}}`)
	roundTrip(t, Command{ExerciseByKey: &ExerciseByKeyCommand{TemplateID: "p:M:T", ContractKey: json.RawMessage(`"k"`), Choice: "C", ChoiceArgument: json.RawMessage(`{}`)}},
		`{"ExerciseByKeyCommand":{"templateId":"p:M:T","contractKey":"k","choice":"C","choiceArgument":{}}}`)
	if _, err := json.Marshal(Command{}); err == nil {
		t.Error("empty command marshalled")
	}
	if got := (Command{ExerciseByKey: &ExerciseByKeyCommand{}}).Kind(); got != "ExerciseByKeyCommand" {
		t.Errorf("Kind = %s", got)
	}
}

func TestEventArms(t *testing.T) {
	roundTrip(t, TreeEvent{Created: &CreatedEvent{NodeID: 1, TemplateID: "p:M:T", CreateArgument: json.RawMessage(`{}`)}},
		`{"CreatedTreeEvent":{"value":{"offset":0,"nodeId":1,"contractId":"","templateId":"p:M:T","contractKey":null,"contractKeyHash":"","createArgument":{},"createdEventBlob":"","interfaceViews":[],"witnessParties":[],"signatories":[],"observers":[],"createdAt":null,"packageName":"","representativePackageId":"","acsDelta":false}}}`)
	roundTrip(t, TreeEvent{Exercised: &ExercisedEvent{NodeID: 2, LastDescendantNodeID: 4, ChoiceArgument: json.RawMessage(`{}`)}},
		`{"ExercisedTreeEvent":{"value":{"offset":0,"nodeId":2,"contractId":"","templateId":"","interfaceId":null,"choice":"","choiceArgument":{},"actingParties":[],"consuming":false,"witnessParties":[],"lastDescendantNodeId":4,"exerciseResult":null,"packageName":"","implementedInterfaces":[],"acsDelta":false}}}`)
	roundTrip(t, Event{Archived: &ArchivedEvent{NodeID: 3, ContractID: "00aa"}},
		`{"ArchivedEvent":{"offset":0,"nodeId":3,"contractId":"00aa","templateId":"","witnessParties":[],"packageName":"","implementedInterfaces":[]}}`)
	if _, err := json.Marshal(TreeEvent{}); err == nil {
		t.Error("empty tree event marshalled")
	}
	if _, err := json.Marshal(Event{}); err == nil {
		t.Error("empty event marshalled")
	}
}

func TestCompletionResponseArms(t *testing.T) {
	roundTrip(t, CompletionStreamResponse{OffsetCheckpoint: &OffsetCheckpoint{Offset: 5}},
		`{"completionResponse":{"OffsetCheckpoint":{"value":{"offset":5,"synchronizerTimes":[]}}}}`)
	roundTrip(t, CompletionStreamResponse{}, `{"completionResponse":{"Empty":{}}}`)
	c := CompletionStreamResponse{Completion: &Completion{CommandID: "c", Status: StatusOK(), Offset: 9}}
	out, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(out), `"Completion":{"value":{"commandId":"c","status":{"code":0,"message":"","details":[]}`) {
		t.Errorf("completion = %s, %v", out, err)
	}
}

func TestIdentifierFilterArms(t *testing.T) {
	roundTrip(t, IdentifierFilter{Wildcard: &WildcardFilter{IncludeCreatedEventBlob: true}}, `{"WildcardFilter":{"value":{"includeCreatedEventBlob":true}}}`)
	roundTrip(t, IdentifierFilter{Template: &TemplateFilter{TemplateID: "p:M:T"}}, `{"TemplateFilter":{"value":{"templateId":"p:M:T","includeCreatedEventBlob":false}}}`)
	roundTrip(t, IdentifierFilter{Interface: &InterfaceFilter{InterfaceID: "p:M:I", IncludeInterfaceView: true}}, `{"InterfaceFilter":{"value":{"interfaceId":"p:M:I","includeInterfaceView":true,"includeCreatedEventBlob":false}}}`)
	roundTrip(t, IdentifierFilter{}, `{"Empty":{}}`)
}

func TestOneofRejects(t *testing.T) {
	tests := []struct {
		name    string
		target  any
		in      string
		wantErr string
	}{
		{"two keys", new(DeduplicationPeriod), `{"DeduplicationOffset":{"value":1},"Empty":{}}`, "exactly one key"},
		{"unknown arm", new(DeduplicationPeriod), `{"DeduplicationTime":{"value":1}}`, "DeduplicationDuration, DeduplicationOffset, Empty"},
		{"not object", new(DeduplicationPeriod), `"60s"`, "must be an object"},
		{"bad value", new(DeduplicationPeriod), `{"DeduplicationOffset":{"value":"x"}}`, "DeduplicationOffset.value"},
		{"value not object", new(DeduplicationPeriod), `{"DeduplicationOffset":7}`, "must be an object"},
		{"command unknown", new(Command), `{"ArchiveCommand":{}}`, "unknown variant"},
		{"command empty", new(Command), `{}`, "must be one of"},
		{"command not object", new(Command), `{"CreateCommand":[1]}`, "must be an object"},
		{"right two kinds", new(Right), `{"kind":{"CanActAs":{"value":{"party":"a"}},"CanReadAs":{"value":{"party":"b"}}}}`, "exactly one key"},
		{"right party not object", new(Right), `{"kind":{"CanActAs":{"value":"a"}}}`, "must be an object"},
		{"tree event value", new(TreeEvent), `{"CreatedTreeEvent":{"value":3}}`, "must be an object"},
		{"min ledger time", new(MinLedgerTime), `{"time":{"MinLedgerTimeAbs":{"value":"soon"}}}`, "invalid timestamp"},
		{"completion", new(CompletionStreamResponse), `{"completionResponse":{"Completion":{"value":[]}}}`, "must be an object"},
	}
	for _, tt := range tests {
		err := json.Unmarshal([]byte(tt.in), tt.target)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestPartySignaturesAdd(t *testing.T) {
	var ps PartySignatures
	ps.Add("A::1", Signature{SignedBy: "k1"})
	ps.Add("B::1", Signature{SignedBy: "k2"})
	ps.Add("A::1", Signature{SignedBy: "k3"})
	if len(ps.Signatures) != 2 || len(ps.Signatures[0].Signatures) != 2 || ps.Signatures[0].Signatures[1].SignedBy != "k3" {
		t.Errorf("Add result = %+v", ps)
	}
}

func TestOneofManyKeysReported(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 200000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `` + itoa(i) + `":{}`)
	}
	b.WriteString("}")
	var p DeduplicationPeriod
	err := json.Unmarshal([]byte(b.String()), &p)
	if err == nil || !strings.Contains(err.Error(), "200000 keys") {
		t.Errorf("err = %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
