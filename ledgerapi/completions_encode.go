package ledgerapi

import (
	"encoding/json"
	"strconv"
	"strings"
)

// AppendCompletionResponse appends the JSON of one completion stream
// element holding c, exactly as encoding/json writes
// CompletionStreamResponse{Completion: c} but without reflection: serving
// completions is the node's hottest read path, and DecodeCompletions is its
// counterpart on the reading side. A nil Status is written as OK (the node
// never stores one); a non-OK status and an unusual deduplication period go
// through encoding/json.
func AppendCompletionResponse(b []byte, c *Completion) ([]byte, error) {
	b = append(b, `{"completionResponse":{"Completion":{"value":{"commandId":`...)
	b = appendJSONString(b, c.CommandID)
	b = append(b, `,"status":`...)
	if c.Status == nil || c.Status.Code == 0 && c.Status.Message == "" && len(c.Status.Details) == 0 {
		b = append(b, `{"code":0,"message":"","details":[]}`...)
	} else {
		st, err := json.Marshal(c.Status)
		if err != nil {
			return nil, err
		}
		b = append(b, st...)
	}
	b = append(b, `,"updateId":`...)
	b = appendJSONString(b, c.UpdateID)
	b = append(b, `,"userId":`...)
	b = appendJSONString(b, c.UserID)
	b = append(b, `,"actAs":[`...)
	for i, p := range c.ActAs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, p)
	}
	b = append(b, `],"submissionId":`...)
	b = appendJSONString(b, c.SubmissionID)
	b = append(b, `,"deduplicationPeriod":`...)
	switch d := c.DeduplicationPeriod; {
	case d.Duration != nil && d.Offset == nil:
		b = append(b, `{"DeduplicationDuration":{"value":{"seconds":`...)
		b = strconv.AppendInt(b, int64(d.Duration.Seconds), 10)
		b = append(b, `,"nanos":`...)
		b = strconv.AppendInt(b, int64(d.Duration.Nanos), 10)
		b = append(b, `,"unknownFields":{"fields":{}}}}}`...)
	case d.Offset != nil && d.Duration == nil:
		b = append(b, `{"DeduplicationOffset":{"value":`...)
		b = strconv.AppendInt(b, *d.Offset, 10)
		b = append(b, `}}`...)
	default:
		dj, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		b = append(b, dj...)
	}
	b = append(b, `,"traceContext":`...)
	b = appendTraceContext(b, c.TraceContext)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(c.Offset), 10)
	b = append(b, `,"synchronizerTime":{"synchronizerId":`...)
	b = appendJSONString(b, c.SynchronizerTime.SynchronizerID)
	b = append(b, `,"recordTime":`...)
	if rt := c.SynchronizerTime.RecordTime; rt.IsZero() {
		b = append(b, "null"...)
	} else {
		b = append(rt.AppendString(append(b, '"')), '"') // needs no escapes
	}
	b = append(b, `},"paidTrafficCost":`...)
	b = strconv.AppendInt(b, int64(c.PaidTrafficCost), 10)
	return append(b, "}}}}"...), nil
}

func appendTraceContext(b []byte, tc *TraceContext) []byte {
	if tc == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"traceparent":`...)
	b = appendOptionalString(b, tc.Traceparent)
	b = append(b, `,"tracestate":`...)
	b = appendOptionalString(b, tc.Tracestate)
	return append(b, '}')
}

func appendOptionalString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

// appendJSONString appends s as encoding/json would: plain printable ASCII
// directly, anything needing escapes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// jsonPlain marks the bytes encoding/json writes as they are inside a
// string: printable ASCII except the quote, the backslash and the HTML
// characters it escapes.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return t
}()
