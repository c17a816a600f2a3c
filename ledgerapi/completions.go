package ledgerapi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// CompletionStreamRequest is the body of POST /v2/commands/completions (and
// the first websocket frame). Query parameters limit and
// stream_idle_timeout_ms travel outside the body.
type CompletionStreamRequest struct {
	UserID         string       `json:"userId"`
	Parties        List[string] `json:"parties"`
	BeginExclusive Int64        `json:"beginExclusive"`
}

// GetCompletionsRequest is the body of /v2/commands/command-completions
// (Canton 3.5.7+): no user filter.
type GetCompletionsRequest struct {
	Parties        List[string] `json:"parties"`
	BeginExclusive Int64        `json:"beginExclusive"`
}

// SynchronizerTime is a record time reached on one synchronizer.
type SynchronizerTime struct {
	SynchronizerID string    `json:"synchronizerId"`
	RecordTime     Timestamp `json:"recordTime"`
}

// OffsetCheckpoint says the stream has delivered everything up to Offset.
type OffsetCheckpoint struct {
	Offset            Int64                  `json:"offset"`
	SynchronizerTimes List[SynchronizerTime] `json:"synchronizerTimes"`
}

// Completion is the outcome of one submission. Status is OK (code 0) for a
// success, which alone carries an UpdateID.
type Completion struct {
	CommandID           string              `json:"commandId"`
	Status              *JsStatus           `json:"status"`
	UpdateID            string              `json:"updateId"`
	UserID              string              `json:"userId"`
	ActAs               List[string]        `json:"actAs"`
	SubmissionID        string              `json:"submissionId"`
	DeduplicationPeriod DeduplicationPeriod `json:"deduplicationPeriod"`
	TraceContext        *TraceContext       `json:"traceContext"`
	Offset              Int64               `json:"offset"`
	SynchronizerTime    SynchronizerTime    `json:"synchronizerTime"`
	PaidTrafficCost     Int64               `json:"paidTrafficCost"` // 3.4+
}

// Succeeded reports whether the completion has an OK status.
func (c *Completion) Succeeded() bool { return c.Status == nil || c.Status.Code == 0 }

// CompletionStreamResponse is one element of the completion stream; at most
// one field is set (neither: the Empty arm, which Canton does not send).
// Wire: {"completionResponse":{"Completion":{"value":{...}}}} |
// {"completionResponse":{"OffsetCheckpoint":{"value":{...}}}} |
// {"completionResponse":{"Empty":{}}}.
type CompletionStreamResponse struct {
	Completion       *Completion
	OffsetCheckpoint *OffsetCheckpoint
}

var completionResponseArms = []string{"Completion", "OffsetCheckpoint"}

// Offset returns the stream offset of whichever element is set (0 if none):
// the value to pass as beginExclusive to resume after this element.
func (r CompletionStreamResponse) Offset() int64 {
	switch {
	case r.Completion != nil:
		return int64(r.Completion.Offset)
	case r.OffsetCheckpoint != nil:
		return int64(r.OffsetCheckpoint.Offset)
	}
	return 0
}

func (r CompletionStreamResponse) MarshalJSON() ([]byte, error) {
	var inner []byte
	var err error
	switch {
	case r.Completion != nil && r.OffsetCheckpoint != nil:
		return nil, fmt.Errorf("completion response has both completion and checkpoint set")
	case r.Completion != nil:
		inner, err = encodeValueArm("Completion", r.Completion)
	case r.OffsetCheckpoint != nil:
		inner, err = encodeValueArm("OffsetCheckpoint", r.OffsetCheckpoint)
	default:
		inner = emptyArm
	}
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"completionResponse":`), inner...), '}'), nil
}

func (r *CompletionStreamResponse) UnmarshalJSON(b []byte) error {
	if fastDecodeCompletionResponse(b, r) {
		return nil
	}
	return r.unmarshalGeneral(b)
}

// unmarshalGeneral decodes any input the fast decoder leaves, with the
// error messages the element's rules call for.
func (r *CompletionStreamResponse) unmarshalGeneral(b []byte) error {
	*r = CompletionStreamResponse{}
	if isNull(b) {
		return nil
	}
	if !isJSONObject(b) {
		return fmt.Errorf(`completion stream element must be an object {"completionResponse": ...}`)
	}
	var w struct {
		CompletionResponse json.RawMessage `json:"completionResponse"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("completion stream element: %w", unwrapJSONError(err))
	}
	arm, body, err := decodeOneof(w.CompletionResponse, "completionResponse", completionResponseArms)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "completionResponse."+arm)
	if err != nil {
		return err
	}
	if !isJSONObject(v) {
		return fmt.Errorf("completionResponse.%s.value must be an object", arm)
	}
	if arm == "Completion" {
		r.Completion = new(Completion)
		err = json.Unmarshal(v, r.Completion)
	} else {
		r.OffsetCheckpoint = new(OffsetCheckpoint)
		err = json.Unmarshal(v, r.OffsetCheckpoint)
	}
	if err != nil {
		return fmt.Errorf("completionResponse.%s: %w", arm, unwrapJSONError(err))
	}
	return nil
}

// JsStatus is a google.rpc.Status: code 0 is OK; otherwise a gRPC code, the
// message "ERROR_ID(category,correlation): cause" and rich details.
type JsStatus struct {
	Code    Int32          `json:"code"`
	Message string         `json:"message"`
	Details List[ProtoAny] `json:"details"`
}

// StatusOK is the status of a successful completion.
func StatusOK() *JsStatus { return &JsStatus{Details: List[ProtoAny]{}} }

// ProtoAny is a google.protobuf.Any: a type URL and the message's binary
// protobuf (Base64). ValueDecoded is a best-effort JSON rendering of known
// detail types as a string; decoding also accepts it as a JSON object or
// array, which is then kept as its JSON text.
type ProtoAny struct {
	TypeURL       string          `json:"typeUrl"`
	Value         Bytes           `json:"value"`
	UnknownFields json.RawMessage `json:"unknownFields"`
	ValueDecoded  *string         `json:"valueDecoded"`
}

func (a ProtoAny) MarshalJSON() ([]byte, error) {
	type plain ProtoAny
	p := plain(a)
	p.UnknownFields = unknownFields
	return json.Marshal(p)
}

func (a *ProtoAny) UnmarshalJSON(b []byte) error {
	var w struct {
		TypeURL      string          `json:"typeUrl"`
		Value        Bytes           `json:"value"`
		ValueDecoded json.RawMessage `json:"valueDecoded"`
	}
	if !isJSONObject(b) && !isNull(b) {
		return fmt.Errorf("status detail must be an object")
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("status detail: %w", unwrapJSONError(err))
	}
	*a = ProtoAny{TypeURL: w.TypeURL, Value: w.Value}
	if v := bytes.TrimSpace(w.ValueDecoded); len(v) > 0 && !isNull(v) {
		s := string(v)
		if v[0] == '"' {
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("status detail valueDecoded: %w", err)
			}
		}
		a.ValueDecoded = &s
	}
	return nil
}
