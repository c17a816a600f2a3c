package ledgerapi

import (
	"encoding/json"
	"strings"
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

// TestActiveContractPartsArgument: the argument read back from an unkeyed
// contract's parts is byte for byte what the event shows after
// "createArgument", whatever the ids and the argument hold; a keyed
// contract's parts, and bytes not made by EncodeActiveContractParts, give
// none.
func TestActiveContractPartsArgument(t *testing.T) {
	marker := `,"contractKey":null,"contractKeyHash":"","createArgument":{"x":1}`
	for i, tc := range []struct {
		ev   CreatedEvent
		want string // "" when none
	}{
		{CreatedEvent{NodeID: 3, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", ContractKeyHash: Bytes{},
			CreateArgument: json.RawMessage(`{"owner":"Alice::1220","note":"x"}`), Signatories: List[string]{"Alice::1220"}},
			`{"owner":"Alice::1220","note":"x"}`},
		{CreatedEvent{NodeID: 12, ContractID: "00cd", TemplateID: `p:M:T` + marker,
			CreateArgument: json.RawMessage(`{"a":"` + strings.ReplaceAll(marker, `"`, `\"`) + `","b":{"contractKey":null,"createArgument":2}}`)},
			`{"a":"` + strings.ReplaceAll(marker, `"`, `\"`) + `","b":{"contractKey":null,"createArgument":2}}`},
		{CreatedEvent{ContractID: `0\"0`, TemplateID: "a\\", CreateArgument: json.RawMessage("{ \"spaced\" : [1, 2], \"html\": \"<&>\" }")},
			`{"spaced":[1,2],"html":"\u003c\u0026\u003e"}`},
		{CreatedEvent{ContractID: "00ef", TemplateID: "p:M:T", ContractKey: json.RawMessage(`null`),
			CreateArgument: json.RawMessage(`"a\u0000b"`)}, `"a\u0000b"`},
		// Keyed: the key could hold anything, so the parts are not read.
		{CreatedEvent{ContractID: "00ef", TemplateID: "p:M:T", ContractKey: json.RawMessage(`{"k":"v"}`), ContractKeyHash: Bytes{1},
			CreateArgument: json.RawMessage(`{"x":1}`)}, ""},
		{CreatedEvent{ContractID: "00ef", TemplateID: "p:M:T", ContractKeyHash: Bytes{1}, CreateArgument: json.RawMessage(`{"x":1}`)}, ""},
	} {
		parts, err := EncodeActiveContractParts("wf\x00"+marker, &tc.ev)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, ok := ActiveContractPartsArgument(parts)
		if tc.want == "" {
			if ok {
				t.Errorf("case %d: argument %s read from the parts of a keyed contract", i, got)
			}
			continue
		}
		if !ok || string(got) != tc.want {
			t.Errorf("case %d: argument %s, %v; want %s", i, got, ok, tc.want)
		}
	}
	for _, parts := range []string{"", "\x00", "\x00\x00", "\"\"\x00\"nodeId\":\x00", "\"\"\x00\"nodeId\":1,\"contractId\":\"ab\x00",
		"\"\"\x00\"nodeId\":1,\"contractId\":\"a\",\"templateId\":\"t\",\"contractKey\":null,\"contractKeyHash\":\"\",\"createArgument\":\x00[]",
		"\"\"\x00\"nodeId\":1,\"contractId\":\"a\",\"templateId\":\"t\",\"contractKey\":{},\"contractKeyHash\":\"\",\"createArgument\":1\x00[]"} {
		if got, ok := ActiveContractPartsArgument([]byte(parts)); ok {
			t.Errorf("parts %q: argument %q read", parts, got)
		}
	}
}

// FuzzActiveContractPartsArgument: whatever the ids, key and argument, an
// argument read back from the parts is the one the event shows.
func FuzzActiveContractPartsArgument(f *testing.F) {
	f.Add("00ab", "pkg:Iou:Iou", []byte(`{"owner":"Alice"}`), []byte(nil))
	f.Add(`0"0`, `t","contractKey":null`, []byte(`{"k":"\"createArgument\":"}`), []byte(`{"k":1}`))
	f.Fuzz(func(t *testing.T, id, tmpl string, arg, key []byte) {
		if !json.Valid(arg) || len(key) > 0 && !json.Valid(key) {
			return
		}
		ev := CreatedEvent{ContractID: id, TemplateID: tmpl, CreateArgument: arg, ContractKey: key}
		parts, err := EncodeActiveContractParts("wf", &ev)
		if err != nil {
			return
		}
		got, ok := ActiveContractPartsArgument(parts)
		if !ok {
			return
		}
		want, err := appendRaw(nil, arg)
		if err != nil {
			t.Fatal(err)
		}
		keyJSON, err := appendRaw(nil, key)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) || string(keyJSON) != "null" {
			t.Errorf("argument %q read from the parts of %+v, want %q and no key", got, ev, want)
		}
	})
}
