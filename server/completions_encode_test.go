package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestAppendCompletionResponse: the hand-written encoder writes exactly what
// encoding/json writes, for every form of the fields.
func TestAppendCompletionResponse(t *testing.T) {
	tp, ts := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v"
	d := ledgerapi.DurationOf(604800*time.Second + 7)
	off := int64(42)
	rej := ledgerapi.NewError(ledgerapi.CodeDuplicateCommand, "dup <&> \"quoted\"", map[string]string{"completion_offset": "3"}).WithCorrelationID("sub")
	cases := []*ledgerapi.Completion{
		{CommandID: "c-1", Status: ledgerapi.StatusOK(), UpdateID: "1220ab", UserID: "alice", ActAs: ledgerapi.List[string]{"A::1220", "B::1220"},
			SubmissionID: "s", DeduplicationPeriod: ledgerapi.DeduplicationPeriod{Duration: &d},
			TraceContext: &ledgerapi.TraceContext{Traceparent: &tp}, Offset: 9,
			SynchronizerTime: ledgerapi.SynchronizerTime{SynchronizerID: "local::1220", RecordTime: ledgerapi.NewTimestamp(time.Unix(1700000000, 123456000))},
			PaidTrafficCost:  2048},
		{CommandID: "ü<weird>\"\\", Status: rej.Status(), ActAs: ledgerapi.List[string]{},
			DeduplicationPeriod: ledgerapi.DeduplicationPeriod{Offset: &off},
			TraceContext:        &ledgerapi.TraceContext{Traceparent: &tp, Tracestate: &ts},
			SynchronizerTime:    ledgerapi.SynchronizerTime{RecordTime: ledgerapi.NewTimestamp(time.Unix(1700000000, 0))}},
		{Status: nil, DeduplicationPeriod: ledgerapi.DeduplicationPeriod{}, ActAs: ledgerapi.List[string]{"x\n"}},
	}
	for i, c := range cases {
		want, err := json.Marshal(ledgerapi.CompletionStreamResponse{Completion: c})
		if err != nil {
			t.Fatal(err)
		}
		if c.Status == nil { // encoding/json writes null; the node never stores a nil status
			c.Status = ledgerapi.StatusOK()
			want, _ = json.Marshal(ledgerapi.CompletionStreamResponse{Completion: c})
		}
		got, err := appendCompletionResponse(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
