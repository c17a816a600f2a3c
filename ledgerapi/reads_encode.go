package ledgerapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
)

// AppendActiveContract appends the JSON of one element of the active
// contract set, exactly as encoding/json writes JsGetActiveContractsResponse
// holding a JsActiveContract with ev, but without reflection: serving the
// active contract set is the node's biggest read. Interface views, if any,
// go through encoding/json.
func AppendActiveContract(b []byte, workflowID string, ev *CreatedEvent, synchronizerID, token string) ([]byte, error) {
	b = append(b, `{"workflowId":`...)
	b = appendJSONString(b, workflowID)
	b = append(b, `,"contractEntry":{"JsActiveContract":{"createdEvent":`...)
	b, err := AppendCreatedEvent(b, ev)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"synchronizerId":`...)
	b = appendJSONString(b, synchronizerID)
	b = append(b, `,"reassignmentCounter":0}},"streamContinuationToken":`...)
	b = appendJSONString(b, token)
	return append(b, '}'), nil
}

// AppendCreatedEvent appends ev as encoding/json writes it.
func AppendCreatedEvent(b []byte, ev *CreatedEvent) ([]byte, error) {
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, int64(ev.Offset), 10)
	b = append(b, `,"nodeId":`...)
	b = strconv.AppendInt(b, int64(ev.NodeID), 10)
	b = append(b, `,"contractId":`...)
	b = appendJSONString(b, ev.ContractID)
	b = append(b, `,"templateId":`...)
	b = appendJSONString(b, ev.TemplateID)
	b = append(b, `,"contractKey":`...)
	b, err := appendRaw(b, ev.ContractKey)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"contractKeyHash":`...)
	b = appendBase64(b, ev.ContractKeyHash)
	b = append(b, `,"createArgument":`...)
	if b, err = appendRaw(b, ev.CreateArgument); err != nil {
		return nil, err
	}
	b = append(b, `,"createdEventBlob":`...)
	b = appendBase64(b, ev.CreatedEventBlob)
	b = append(b, `,"interfaceViews":`...)
	if len(ev.InterfaceViews) == 0 {
		b = append(b, "[]"...)
	} else {
		v, err := json.Marshal(ev.InterfaceViews)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	b = append(b, `,"witnessParties":`...)
	b = appendStrings(b, ev.WitnessParties)
	b = append(b, `,"signatories":`...)
	b = appendStrings(b, ev.Signatories)
	b = append(b, `,"observers":`...)
	b = appendStrings(b, ev.Observers)
	b = append(b, `,"createdAt":`...)
	b = appendTimestamp(b, ev.CreatedAt)
	b = append(b, `,"packageName":`...)
	b = appendJSONString(b, ev.PackageName)
	b = append(b, `,"representativePackageId":`...)
	b = appendJSONString(b, ev.RepresentativePackageID)
	b = append(b, `,"acsDelta":`...)
	b = strconv.AppendBool(b, ev.ACSDelta)
	return append(b, '}'), nil
}

// An element of the active contract set encoded ahead
// (EncodeActiveContractParts) is the JSON of its workflow id and created
// event less what depends on the reader and the read: the offset, the
// created event blob, the witnesses and acsDelta (interface views are
// always empty). It is the workflow id's JSON string, a zero byte, the
// event's part before the blob (from "nodeId" through "createArgument"), a
// zero byte, and its part after the witnesses (from "signatories" through
// "representativePackageId"). A node encodes a contract's element once,
// when it commits the contract, and serves the active contract set by
// splicing the reader's fields in.

// EncodeActiveContractParts encodes an element ahead, as
// AppendActiveContract writes it less the event's offset, blob, witnesses
// and acsDelta (which must be empty or zero, and interface views empty).
func EncodeActiveContractParts(workflowID string, ev *CreatedEvent) ([]byte, error) {
	if ev.Offset != 0 || len(ev.CreatedEventBlob) != 0 || len(ev.WitnessParties) != 0 || ev.ACSDelta || len(ev.InterfaceViews) != 0 {
		return nil, fmt.Errorf("encode created event ahead: it has a reader's fields")
	}
	b, err := AppendCreatedEvent(make([]byte, 0, 1024), ev)
	if err != nil {
		return nil, err
	}
	// AppendCreatedEvent's fixed fields mark where the parts start and end.
	start := bytes.Index(b, []byte(`,"nodeId":`))
	blob := bytes.LastIndex(b, []byte(`,"createdEventBlob":"","interfaceViews":[],"witnessParties":[],"signatories":`))
	end := bytes.LastIndex(b, []byte(`,"acsDelta":false}`))
	if start < 0 || blob < start || end < blob {
		return nil, fmt.Errorf("encode created event ahead: unexpected encoding %.80s", b)
	}
	tail := b[blob+len(`,"createdEventBlob":"","interfaceViews":[],"witnessParties":[],`) : end]
	parts := append(appendJSONString(make([]byte, 0, len(b)+len(workflowID)), workflowID), 0)
	parts = append(append(parts, b[start+1:blob]...), 0)
	return append(parts, tail...), nil
}

// ActiveContractPartsArgument returns the create argument held in an
// element encoded ahead (EncodeActiveContractParts) of a contract without
// a key: the bytes the event shows after "createArgument", so that a store
// keeping the parts need not keep the argument's JSON a second time. It
// reports false for the parts of a keyed contract and for anything
// EncodeActiveContractParts does not write.
//
// The head of an unkeyed contract's parts is
// "nodeId":N,"contractId":S,"templateId":S,"contractKey":null,"contractKeyHash":"","createArgument":A
// and is read field by field up to A: nothing before A is a raw value, so
// no byte of the argument is mistaken for a field name.
func ActiveContractPartsArgument(parts []byte) (json.RawMessage, bool) {
	first, cut := bytes.IndexByte(parts, 0), bytes.LastIndexByte(parts, 0)
	if first < 0 || cut == first {
		return nil, false
	}
	head := parts[first+1 : cut]
	rest, ok := bytes.CutPrefix(head, []byte(`"nodeId":`))
	if !ok {
		return nil, false
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits == 0 {
		return nil, false
	}
	rest = rest[digits:]
	for _, name := range []string{`,"contractId":`, `,"templateId":`} {
		if rest, ok = bytes.CutPrefix(rest, []byte(name)); !ok {
			return nil, false
		}
		if rest, ok = skipJSONString(rest); !ok {
			return nil, false
		}
	}
	arg, ok := bytes.CutPrefix(rest, []byte(`,"contractKey":null,"contractKeyHash":"","createArgument":`))
	if !ok || len(arg) == 0 {
		return nil, false
	}
	return arg, true
}

// skipJSONString returns b after the JSON string it starts with.
func skipJSONString(b []byte) ([]byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[i+1:], true
		}
	}
	return nil, false
}

// AppendActiveContractParts appends an element of the active contract set
// as AppendActiveContract writes it, for one encoded ahead (parts) created
// at offset, read by witnesses, with no blob. It reports false when parts
// is not such an encoding.
func AppendActiveContractParts(b []byte, offset int64, parts []byte, witnesses []string, synchronizerID, token string) ([]byte, bool) {
	// The workflow id and the tail have no zero byte: their strings are
	// escaped. The head may, inside its raw values.
	first, cut := bytes.IndexByte(parts, 0), bytes.LastIndexByte(parts, 0)
	if first < 0 || cut == first {
		return b, false
	}
	b = append(b, `{"workflowId":`...)
	b = append(b, parts[:first]...)
	b = append(b, `,"contractEntry":{"JsActiveContract":{"createdEvent":{"offset":`...)
	b = strconv.AppendInt(b, offset, 10)
	b = append(b, ',')
	b = append(b, parts[first+1:cut]...)
	b = append(b, `,"createdEventBlob":"","interfaceViews":[],"witnessParties":`...)
	b = appendStrings(b, witnesses)
	b = append(b, ',')
	b = append(b, parts[cut+1:]...)
	b = append(b, `,"acsDelta":true},"synchronizerId":`...)
	b = appendJSONString(b, synchronizerID)
	b = append(b, `,"reassignmentCounter":0}},"streamContinuationToken":`...)
	b = appendJSONString(b, token)
	return append(b, '}'), true
}

// appendRaw appends a raw JSON value as encoding/json does: null when
// empty, compacted otherwise.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return append(b, "null"...), nil
	}
	if writtenAsIs(raw) {
		return append(b, raw...), nil
	}
	v, err := json.Marshal(raw)
	return append(b, v...), err
}

// writtenAsIs reports whether raw has no whitespace outside strings and no
// character encoding/json would escape (so it is written as it is). It
// skips the bytes that need no look by table, a string's body in one run:
// the create arguments of the active contract set pass through it.
func writtenAsIs(raw []byte) bool {
	i, n := 0, len(raw)
	for {
		// outside strings: whitespace and the HTML characters say no
		for i < n && rawOutside[raw[i]] == rawPlain {
			i++
		}
		if i >= n {
			return true
		}
		if rawOutside[raw[i]] == rawNo {
			return false
		}
		// a string: up to its closing quote, escapes skipped
		i++
	str:
		for {
			for i < n && rawInside[raw[i]] == rawPlain {
				i++
			}
			if i >= n {
				return true
			}
			switch rawInside[raw[i]] {
			case rawNo:
				return false
			case rawEscape:
				i += 2
			default: // the closing quote
				i++
				break str
			}
		}
	}
}

// The classes of a byte for writtenAsIs, outside and inside strings.
const (
	rawPlain  = iota // nothing to look at
	rawNo            // encoding/json would write it otherwise
	rawQuote         // a string starts or ends
	rawEscape        // a backslash: the next byte is not looked at
)

var rawOutside, rawInside = func() (out, in [256]byte) {
	for c := 0x80; c < 0x100; c++ {
		out[c], in[c] = rawNo, rawNo
	}
	for _, c := range []byte("<>&") {
		out[c], in[c] = rawNo, rawNo
	}
	for _, c := range []byte(" \n\t\r") {
		out[c] = rawNo
	}
	out['"'], in['"'] = rawQuote, rawQuote
	in['\\'] = rawEscape // outside strings a backslash is plain
	return out, in
}()

func appendBase64(b []byte, v []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

// appendStrings writes a List[string] ([] when nil).
func appendStrings(b []byte, xs []string) []byte {
	b = append(b, '[')
	for i, s := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// AppendUpdateResponse appends one element of the update stream as
// encoding/json writes JsGetUpdatesResponse, without reflection for a
// transaction (other updates go through encoding/json).
func AppendUpdateResponse(b []byte, u *JsUpdate) ([]byte, error) {
	if u.Transaction == nil {
		v, err := json.Marshal(JsGetUpdatesResponse{Update: *u})
		return append(b, v...), err
	}
	b = append(b, `{"update":{"Transaction":{"value":`...)
	b, err := AppendTransaction(b, u.Transaction)
	if err != nil {
		return nil, err
	}
	return append(b, "}}}"...), nil
}

// AppendTransaction appends t as encoding/json writes it.
func AppendTransaction(b []byte, t *Transaction) ([]byte, error) {
	b = append(b, `{"updateId":`...)
	b = appendJSONString(b, t.UpdateID)
	b = append(b, `,"commandId":`...)
	b = appendJSONString(b, t.CommandID)
	b = append(b, `,"workflowId":`...)
	b = appendJSONString(b, t.WorkflowID)
	b = append(b, `,"effectiveAt":`...)
	b = appendTimestamp(b, t.EffectiveAt)
	b = append(b, `,"events":[`...)
	for i := range t.Events {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendEvent(b, &t.Events[i]); err != nil {
			return nil, err
		}
	}
	b = append(b, `],"offset":`...)
	b = strconv.AppendInt(b, int64(t.Offset), 10)
	b = append(b, `,"synchronizerId":`...)
	b = appendJSONString(b, t.SynchronizerID)
	b = append(b, `,"traceContext":`...)
	b = appendTraceContext(b, t.TraceContext)
	b = append(b, `,"recordTime":`...)
	b = appendTimestamp(b, t.RecordTime)
	b = append(b, `,"externalTransactionHash":`...)
	b = appendOptionalString(b, t.ExternalTransactionHash)
	b = append(b, `,"paidTrafficCost":`...)
	b = strconv.AppendInt(b, int64(t.PaidTrafficCost), 10)
	return append(b, '}'), nil
}

func appendTimestamp(b []byte, t Timestamp) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return append(t.AppendString(append(b, '"')), '"')
}

func appendEvent(b []byte, ev *Event) ([]byte, error) {
	switch {
	case ev.Created != nil && ev.Archived == nil && ev.Exercised == nil:
		b = append(b, `{"CreatedEvent":`...)
		b, err := AppendCreatedEvent(b, ev.Created)
		return append(b, '}'), err
	case ev.Archived != nil && ev.Created == nil && ev.Exercised == nil:
		a := ev.Archived
		b = append(b, `{"ArchivedEvent":{"offset":`...)
		b = strconv.AppendInt(b, int64(a.Offset), 10)
		b = append(b, `,"nodeId":`...)
		b = strconv.AppendInt(b, int64(a.NodeID), 10)
		b = append(b, `,"contractId":`...)
		b = appendJSONString(b, a.ContractID)
		b = append(b, `,"templateId":`...)
		b = appendJSONString(b, a.TemplateID)
		b = append(b, `,"witnessParties":`...)
		b = appendStrings(b, a.WitnessParties)
		b = append(b, `,"packageName":`...)
		b = appendJSONString(b, a.PackageName)
		b = append(b, `,"implementedInterfaces":`...)
		b = appendStrings(b, a.ImplementedInterfaces)
		return append(b, "}}"...), nil
	case ev.Exercised != nil && ev.Created == nil && ev.Archived == nil:
		e := ev.Exercised
		b = append(b, `{"ExercisedEvent":{"offset":`...)
		b = strconv.AppendInt(b, int64(e.Offset), 10)
		b = append(b, `,"nodeId":`...)
		b = strconv.AppendInt(b, int64(e.NodeID), 10)
		b = append(b, `,"contractId":`...)
		b = appendJSONString(b, e.ContractID)
		b = append(b, `,"templateId":`...)
		b = appendJSONString(b, e.TemplateID)
		b = append(b, `,"interfaceId":`...)
		b = appendOptionalString(b, e.InterfaceID)
		b = append(b, `,"choice":`...)
		b = appendJSONString(b, e.Choice)
		b = append(b, `,"choiceArgument":`...)
		b, err := appendRaw(b, e.ChoiceArgument)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"actingParties":`...)
		b = appendStrings(b, e.ActingParties)
		b = append(b, `,"consuming":`...)
		b = strconv.AppendBool(b, e.Consuming)
		b = append(b, `,"witnessParties":`...)
		b = appendStrings(b, e.WitnessParties)
		b = append(b, `,"lastDescendantNodeId":`...)
		b = strconv.AppendInt(b, int64(e.LastDescendantNodeID), 10)
		b = append(b, `,"exerciseResult":`...)
		if b, err = appendRaw(b, e.ExerciseResult); err != nil {
			return nil, err
		}
		b = append(b, `,"packageName":`...)
		b = appendJSONString(b, e.PackageName)
		b = append(b, `,"implementedInterfaces":`...)
		b = appendStrings(b, e.ImplementedInterfaces)
		b = append(b, `,"acsDelta":`...)
		b = strconv.AppendBool(b, e.ACSDelta)
		return append(b, "}}"...), nil
	}
	v, err := json.Marshal(ev) // no or several arms: encoding/json's error
	return append(b, v...), err
}
