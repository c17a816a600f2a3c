package ledgerapi

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAppendActiveContractMatchesEncodingJSON pins the hand-written encoder
// of the active contract set to encoding/json's output of the same value.
func TestAppendActiveContractMatchesEncodingJSON(t *testing.T) {
	views := List[InterfaceView]{{InterfaceID: "p:M:I", ViewStatus: JsStatus{Details: List[ProtoAny]{}}}}
	for _, ev := range []CreatedEvent{
		{},
		{Offset: 42, NodeID: 3, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", ContractKey: json.RawMessage(`{"k":"v"}`),
			ContractKeyHash: Bytes{1, 2}, CreateArgument: json.RawMessage(`{"owner":"Alice::1220","note":"<&> é"}`),
			CreatedEventBlob: Bytes("blob"), InterfaceViews: views, WitnessParties: List[string]{"Alice::1220"},
			Signatories: List[string]{"Alice::1220"}, Observers: List[string]{}, CreatedAt: NewTimestamp(time.Date(2026, 7, 24, 11, 59, 2, 100000000, time.UTC)),
			PackageName: "iou", RepresentativePackageID: "pkg", ACSDelta: true},
		{CreateArgument: json.RawMessage("{ \"spaced\" : [1, 2] }"), WitnessParties: List[string]{"a\"b"}},
	} {
		want, err := json.Marshal(JsGetActiveContractsResponse{WorkflowID: "wf", StreamContinuationToken: "tok",
			ContractEntry: JsContractEntry{ActiveContract: &JsActiveContract{CreatedEvent: ev, SynchronizerID: "sync::1220"}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendActiveContract(nil, "wf", &ev, "sync::1220", "tok")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("AppendActiveContract:\n got %s\nwant %s", got, want)
		}
		var back JsGetActiveContractsResponse
		if err := json.Unmarshal(got, &back); err != nil || back.ContractEntry.ActiveContract == nil ||
			back.ContractEntry.ActiveContract.CreatedEvent.Offset != ev.Offset {
			t.Errorf("round trip: %+v %v", back, err)
		}
	}
}

// writtenAsIsPlain is writtenAsIs as it was first written, one byte at a
// time: the table-driven one must agree with it on every input.
func writtenAsIsPlain(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case c == '<' || c == '>' || c == '&' || c >= 0x80:
			return false
		case !inString && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return false
		}
	}
	return true
}

var writtenAsIsCases = []string{
	``, `{}`, `null`, `"`, `"\`, `\`, `\"`, `"\"`, `"a\"b"`, `"a\\"`, `"a\\" `, `"a b"`, `a b`, "\"a\tb\"", "a\tb", "a\nb", "a\rb",
	`{"amount":"1000.25","currency":"USD","issuer":"Bench::1220ac","note":"a bench contract"}`,
	`{"a":[1,2,{"b":null}]}`, `{"a": 1}`, `{"a":"<"}`, `{"a":">"}`, `{"a":"&"}`, `<`, `"é"`, "\"\x80\"", "\x80", `"\<"`,
	`"\u00e9"`, `x"y"z`, `"a"b"c"`, `"""`, `"\` + "\x80", `\<`, "\"\x01\"", `{"k":"v"} `,
}

func TestWrittenAsIsAgrees(t *testing.T) {
	for _, c := range writtenAsIsCases {
		if got, want := writtenAsIs([]byte(c)), writtenAsIsPlain([]byte(c)); got != want {
			t.Errorf("writtenAsIs(%q) = %v, want %v", c, got, want)
		}
	}
}

func FuzzWrittenAsIs(f *testing.F) {
	for _, c := range writtenAsIsCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := writtenAsIs(raw), writtenAsIsPlain(raw); got != want {
			t.Errorf("writtenAsIs(%q) = %v, want %v", raw, got, want)
		}
	})
}

func BenchmarkWrittenAsIs(b *testing.B) {
	raw := []byte(`{"amount":"1000.25","currency":"USD","issuer":"Bench::1220acb93f55ac5861621c222d37895ed98162bb9b0804a7b46172b2f5abf5c8b70e","note":"a bench contract","owner":"Bench::1220acb93f55ac5861621c222d37895ed98162bb9b0804a7b46172b2f5abf5c8b70e"}`)
	b.Run("table", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			writtenAsIs(raw)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			writtenAsIsPlain(raw)
		}
	})
}

// TestActiveContractPartsMatch: an element spliced from a created event
// encoded ahead is byte for byte the element AppendActiveContract writes
// (and so encoding/json's).
func TestActiveContractPartsMatch(t *testing.T) {
	at := NewTimestamp(time.Date(2026, 7, 24, 11, 59, 2, 123456000, time.UTC))
	for i, ev := range []CreatedEvent{
		{},
		{NodeID: 3, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", CreateArgument: json.RawMessage(`{"owner":"Alice::1220","note":"x"}`),
			Signatories: List[string]{"Alice::1220"}, Observers: List[string]{"Bob::1220"}, CreatedAt: at,
			PackageName: "iou", RepresentativePackageID: "pkg"},
		{NodeID: 1 << 30, ContractID: "00cd", TemplateID: "p:M:T", ContractKey: json.RawMessage(`{"k":"v"}`), ContractKeyHash: Bytes{1, 2, 3},
			CreateArgument: json.RawMessage("{ \"spaced\" : [1, 2], \"html\": \"<&>\", \"zero\": \"\\u0000\" }"),
			Signatories:    List[string]{"a\"b", "c\\d", "é"}, Observers: List[string]{}, CreatedAt: at, PackageName: "p\x00q", RepresentativePackageID: "r"},
		{ContractID: "00ef", CreateArgument: json.RawMessage(`{"acsDelta":false},"createdEventBlob":"","interfaceViews":[],"witnessParties":[],"signatories":[]`)},
	} {
		parts, err := EncodeActiveContractParts("wf<1>", &ev)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, w := range []List[string]{nil, {"Alice::1220"}, {"Alice::1220", "B<o>b"}} {
			full := ev
			full.Offset, full.WitnessParties, full.ACSDelta = 7, w, true
			full.ContractKeyHash, full.CreatedEventBlob, full.InterfaceViews = ev.ContractKeyHash, Bytes{}, List[InterfaceView]{}
			want, err := AppendActiveContract([]byte("prefix"), "wf<1>", &full, "sync::1220", "tok")
			if err != nil {
				t.Fatal(err)
			}
			got, ok := AppendActiveContractParts([]byte("prefix"), 7, parts, w, "sync::1220", "tok")
			if !ok || string(got) != string(want) {
				t.Errorf("case %d, witnesses %q:\n got %s\nwant %s", i, w, got, want)
			}
		}
	}
	if _, err := EncodeActiveContractParts("", &CreatedEvent{WitnessParties: List[string]{"A"}}); err == nil {
		t.Error("an event with witnesses was encoded ahead")
	}
	for _, parts := range []string{`"nodeId":0`, "\"\"\x00\"nodeId\":0"} {
		if _, ok := AppendActiveContractParts(nil, 1, []byte(parts), nil, "", ""); ok {
			t.Errorf("parts %q without their cuts were spliced", parts)
		}
	}
}
