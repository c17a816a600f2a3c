package ledgerapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// encoderCases hold every form of the fields AppendCompletionResponse writes
// differently: OK and error statuses (with characters JSON escapes), both
// deduplication arms and the empty one, a trace context with and without a
// tracestate and none, record times with and without fractions, and party
// ids that need escaping.
func encoderCases() []*Completion {
	tp, ts := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v"
	d := DurationOf(604800*time.Second + 7)
	off := int64(42)
	rej := NewError(CodeDuplicateCommand, "dup <&> \"quoted\"", map[string]string{"completion_offset": "3"}).WithCorrelationID("sub")
	return []*Completion{
		{CommandID: "c-1", Status: StatusOK(), UpdateID: "1220ab", UserID: "alice", ActAs: List[string]{"A::1220", "B::1220"},
			SubmissionID: "s", DeduplicationPeriod: DeduplicationPeriod{Duration: &d},
			TraceContext: &TraceContext{Traceparent: &tp}, Offset: 9,
			SynchronizerTime: SynchronizerTime{SynchronizerID: "local::1220", RecordTime: NewTimestamp(time.Unix(1700000000, 123456000))},
			PaidTrafficCost:  2048},
		{CommandID: "ü<weird>\"\\", Status: rej.Status(), ActAs: List[string]{},
			DeduplicationPeriod: DeduplicationPeriod{Offset: &off},
			TraceContext:        &TraceContext{Traceparent: &tp, Tracestate: &ts},
			SynchronizerTime:    SynchronizerTime{RecordTime: NewTimestamp(time.Unix(1700000000, 0))}},
		{Status: nil, DeduplicationPeriod: DeduplicationPeriod{}, ActAs: List[string]{"x\n"}},
	}
}

// TestAppendCompletionResponse: the hand-written encoder writes exactly what
// encoding/json writes, for every form of the fields.
func TestAppendCompletionResponse(t *testing.T) {
	for i, c := range encoderCases() {
		if c.Status == nil { // encoding/json writes null; the node never stores a nil status
			c.Status = StatusOK()
		}
		want, err := json.Marshal(CompletionStreamResponse{Completion: c})
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendCompletionResponse(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestCompletionEncodeDecodeRoundTrip: what AppendCompletionResponse writes,
// the one-pass decoder and the general decoder both read back as the
// completion it was written from.
func TestCompletionEncodeDecodeRoundTrip(t *testing.T) {
	for i, c := range encoderCases() {
		b, err := AppendCompletionResponse(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		want := *c
		if want.Status == nil {
			want.Status = StatusOK() // as written
		}
		fast, err := DecodeCompletionResponse(b)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		var general CompletionStreamResponse
		if err := general.unmarshalGeneral(b); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for name, r := range map[string]CompletionStreamResponse{"one-pass": fast, "general": general} {
			if r.Completion == nil || r.OffsetCheckpoint != nil {
				t.Fatalf("case %d, %s decoder: %+v", i, name, r)
			}
			if !reflect.DeepEqual(*r.Completion, want) {
				t.Errorf("case %d, %s decoder:\n got %#v\nwant %#v", i, name, *r.Completion, want)
			}
		}
	}
}
