package ledgerapi

import (
	"encoding/base64"
	"encoding/json"
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
	if ev.CreatedAt.IsZero() {
		b = append(b, "null"...)
	} else {
		b = append(ev.CreatedAt.AppendString(append(b, '"')), '"')
	}
	b = append(b, `,"packageName":`...)
	b = appendJSONString(b, ev.PackageName)
	b = append(b, `,"representativePackageId":`...)
	b = appendJSONString(b, ev.RepresentativePackageID)
	b = append(b, `,"acsDelta":`...)
	b = strconv.AppendBool(b, ev.ACSDelta)
	return append(b, '}'), nil
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
// character encoding/json would escape (so it is written as it is).
func writtenAsIs(raw []byte) bool {
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
