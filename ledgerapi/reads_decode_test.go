package ledgerapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func sampleEvents() (CreatedEvent, ArchivedEvent, ExercisedEvent) {
	iface := "p:M:I"
	c := CreatedEvent{Offset: 42, NodeID: 3, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", ContractKey: json.RawMessage(`{"k":"v"}`),
		ContractKeyHash: Bytes{1, 2}, CreateArgument: json.RawMessage(`{"owner":"Alice::1220","note":"tab\t é"}`),
		CreatedEventBlob: Bytes("blob"), InterfaceViews: List[InterfaceView]{}, WitnessParties: List[string]{"Alice::1220", "Bob::1220"},
		Signatories: List[string]{"Alice::1220"}, Observers: List[string]{"Bob::1220"},
		CreatedAt:   NewTimestamp(time.Date(2026, 7, 24, 11, 59, 2, 100000000, time.UTC)),
		PackageName: "iou", RepresentativePackageID: "pkg", ACSDelta: true}
	a := ArchivedEvent{Offset: 43, NodeID: 0, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", WitnessParties: List[string]{"Alice::1220"},
		PackageName: "iou", ImplementedInterfaces: List[string]{}}
	e := ExercisedEvent{Offset: 43, NodeID: 0, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", InterfaceID: &iface, Choice: "Archive",
		ChoiceArgument: json.RawMessage(`{}`), ActingParties: List[string]{"Alice::1220"}, Consuming: true,
		WitnessParties: List[string]{"Alice::1220"}, LastDescendantNodeID: 2, ExerciseResult: json.RawMessage(`null`),
		PackageName: "iou", ImplementedInterfaces: List[string]{}, ACSDelta: true}
	return c, a, e
}

// TestFastReadDecodersAgree decodes elements of the active contract set and
// of the update stream with the fast decoders and with json.Unmarshal: the
// results (and, for malformed input, the failures) must be the same.
func TestFastReadDecodersAgree(t *testing.T) {
	c, a, e := sampleEvents()
	empty := CreatedEvent{}
	var acs [][]byte
	for _, ev := range []*CreatedEvent{&c, &empty} {
		b, err := AppendActiveContract(nil, "wf", ev, "sync::1220", "tok")
		if err != nil {
			t.Fatal(err)
		}
		acs = append(acs, b)
	}
	acs = append(acs,
		[]byte(`{"workflowId":"","contractEntry":{"JsEmpty":{}},"streamContinuationToken":""}`),
		[]byte(` {"contractEntry":{"JsActiveContract":{"createdEvent":{"offset":"7","nodeId":1,"createArgument":null},"synchronizerId":"s","reassignmentCounter":0}}} `),
		[]byte(`{"contractEntry":{"JsActiveContract":{"createdEvent":{"offset":1,"offset":2}}}}`),
		[]byte(`{"contractEntry":{"JsActiveContract":{"createdEvent":{"createArgument":{"a":"\u00e9\x"}}}}}`),
		[]byte(`{"contractEntry":{"JsActiveContract":{"createdEvent":{"createdEventBlob":"not base64!"}}}}`),
		[]byte(`{"contractEntry":{"JsActiveContract":{},"JsEmpty":{}}}`),
		[]byte(`{"unknown":1}`),
		[]byte(`[]`),
	)
	var stream StreamDecoder // one decoder across the elements, as a stream reads them
	for _, in := range append(acs, acs...) {
		got, gerr := stream.ActiveContract(in)
		var want JsGetActiveContractsResponse
		werr := json.Unmarshal(in, &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("active contract %s:\nfast    %+v %v\ngeneral %+v %v", in, got, gerr, want, werr)
		}
	}
	trace := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	hash := "ab12"
	tx := Transaction{UpdateID: "1220ab", CommandID: "cmd", WorkflowID: "", EffectiveAt: c.CreatedAt,
		Events: List[Event]{{Created: &c}, {Archived: &a}, {Exercised: &e}}, Offset: 43, SynchronizerID: "sync::1220",
		TraceContext: &TraceContext{Traceparent: &trace}, RecordTime: c.CreatedAt, ExternalTransactionHash: &hash, PaidTrafficCost: 9}
	var ups [][]byte
	for _, u := range []JsUpdate{{Transaction: &tx}, {Transaction: &Transaction{}}, {OffsetCheckpoint: &OffsetCheckpoint{Offset: 5}},
		{TransactionTree: &TransactionTree{Offset: 3, EventsByID: Map[TreeEvent]{}}}} {
		b, err := json.Marshal(JsGetUpdatesResponse{Update: u})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := AppendUpdateResponse(nil, &u)
		if err != nil || string(fast) != string(b) {
			t.Errorf("AppendUpdateResponse:\n got %s %v\nwant %s", fast, err, b)
		}
		ups = append(ups, b)
	}
	ups = append(ups,
		[]byte(`{"update":{"Transaction":{"value":{"events":[{"CreatedEvent":{},"ArchivedEvent":{}}]}}}}`),
		[]byte(`{"update":{"Transaction":{"value":{"events":[{"Nope":{}}]}}}}`),
		[]byte(`{"update":{"Transaction":{"value":{"offset":1.5}}}}`),
		[]byte(`{"update":null}`),
	)
	for _, in := range append(ups, ups...) {
		got, gerr := stream.Update(in)
		var want JsGetUpdatesResponse
		werr := json.Unmarshal(in, &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("update %s:\nfast    %+v %v\ngeneral %+v %v", in, got, gerr, want, werr)
		}
	}
}

// FuzzFastReadDecoders holds the fast decoders to json.Unmarshal on any input.
func FuzzFastReadDecoders(f *testing.F) {
	c, a, e := sampleEvents()
	b, _ := AppendActiveContract(nil, "wf", &c, "s", "t")
	f.Add(b)
	u, _ := json.Marshal(JsGetUpdatesResponse{Update: JsUpdate{Transaction: &Transaction{Events: List[Event]{{Archived: &a}, {Exercised: &e}}}}})
	f.Add(u)
	f.Fuzz(func(t *testing.T, in []byte) {
		got, gerr := DecodeActiveContract(in)
		var want JsGetActiveContractsResponse
		werr := json.Unmarshal(in, &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("active contract %q: fast %+v %v, general %+v %v", in, got, gerr, want, werr)
		}
		gu, gerr := DecodeUpdate(in)
		var wu JsGetUpdatesResponse
		werr = json.Unmarshal(in, &wu)
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(gu, wu) {
			t.Fatalf("update %q: fast %+v %v, general %+v %v", in, gu, gerr, wu, werr)
		}
	})
}

// benchContract is the created event of the read benchmarks' contract (an
// Iou with five fields, one party).
func benchContract() CreatedEvent {
	party := "Bench::1220acb93f55ac5861621c222d37895ed98162bb9b0804a7b46172b2f5abf5c8b70e"
	return CreatedEvent{Offset: 5000, ContractID: "000000000000000000000000000000000000000000000000000000000000001387",
		TemplateID: "8925260c8cb280b26321501c75eec6ffadccc51f05f1c0c54fd1a4f2a4e46861:Iou:Iou", ContractKeyHash: Bytes{},
		CreateArgument:   json.RawMessage(`{"amount":"1000.25","currency":"USD","issuer":"` + party + `","note":"a bench contract","owner":"` + party + `"}`),
		CreatedEventBlob: Bytes{}, InterfaceViews: List[InterfaceView]{}, WitnessParties: List[string]{party},
		Signatories: List[string]{party}, Observers: List[string]{}, CreatedAt: NewTimestamp(time.Date(2026, 11, 25, 10, 15, 21, 817713000, time.UTC)),
		PackageName: "iou", RepresentativePackageID: "8925260c8cb280b26321501c75eec6ffadccc51f05f1c0c54fd1a4f2a4e46861", ACSDelta: true}
}

// BenchmarkDecodeReads decodes the read benchmarks' elements as their
// clients do (one StreamDecoder per stream).
func BenchmarkDecodeReads(b *testing.B) {
	ev := benchContract()
	acs, err := AppendActiveContract(nil, "", &ev, "local::1220acb93f55ac5861621c222d37895ed98162bb9b0804a7b46172b2f5abf5c8b70e", "tok-5000")
	if err != nil {
		b.Fatal(err)
	}
	tx := Transaction{UpdateID: "1220000000000000000000000000000000000000000000000000000000001387", CommandID: "cmd-5000",
		EffectiveAt: ev.CreatedAt, Events: List[Event]{{Created: &ev}}, Offset: 5000, SynchronizerID: "local::1220acb93f55ac5861621c222d37895ed98162bb9b0804a7b46172b2f5abf5c8b70e",
		RecordTime: ev.CreatedAt, PaidTrafficCost: 2048}
	upd, err := AppendUpdateResponse(nil, &JsUpdate{Transaction: &tx})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("active-contract", func(b *testing.B) {
		var d StreamDecoder
		b.SetBytes(int64(len(acs)))
		for b.Loop() {
			if _, err := d.ActiveContract(acs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		var d StreamDecoder
		b.SetBytes(int64(len(upd)))
		for b.Loop() {
			if _, err := d.Update(upd); err != nil {
				b.Fatal(err)
			}
		}
	})
}
