package ledgerapi

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Type URLs of the google.rpc detail messages a status carries.
const (
	TypeURLErrorInfo    = "type.googleapis.com/google.rpc.ErrorInfo"
	TypeURLRetryInfo    = "type.googleapis.com/google.rpc.RetryInfo"
	TypeURLRequestInfo  = "type.googleapis.com/google.rpc.RequestInfo"
	TypeURLResourceInfo = "type.googleapis.com/google.rpc.ResourceInfo"
)

// Status converts the error into the google.rpc.Status a completion carries:
// code = gRPC code (UNKNOWN if none), message = "ID(cat,corr): cause", details = ErrorInfo
// (reason = error id, metadata = context), then RetryInfo when retryable,
// RequestInfo with the correlation id, and one ResourceInfo per resource.
func (e *JsCantonError) Status() *JsStatus {
	// An error never becomes an OK status: a missing or zero gRPC code is
	// reported as UNKNOWN.
	code := GRPCUnknown
	if e.GRPCCodeValue != nil && *e.GRPCCodeValue != GRPCOK {
		code = *e.GRPCCodeValue
	}
	s := &JsStatus{Code: Int32(code), Message: codeStr(e.Code, e.ErrorCategory, e.CorrelationID) + ": " + e.Cause}

	keys := make([]string, 0, len(e.Context))
	for k := range e.Context {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var info []byte
	info = protowire.AppendTag(info, 1, protowire.BytesType)
	info = protowire.AppendString(info, e.Code)
	for _, k := range keys {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, k)
		entry = protowire.AppendTag(entry, 2, protowire.BytesType)
		entry = protowire.AppendString(entry, e.Context[k])
		info = protowire.AppendTag(info, 3, protowire.BytesType)
		info = protowire.AppendBytes(info, entry)
	}
	s.Details = append(s.Details, detail(TypeURLErrorInfo, info, map[string]any{"reason": e.Code, "metadata": Map[string](e.Context)}))

	if e.RetryInfo != nil {
		d := DurationOf(e.RetryDelay())
		var dur []byte
		if d.Seconds != 0 {
			dur = protowire.AppendTag(dur, 1, protowire.VarintType)
			dur = protowire.AppendVarint(dur, uint64(d.Seconds))
		}
		if d.Nanos != 0 {
			dur = protowire.AppendTag(dur, 2, protowire.VarintType)
			dur = protowire.AppendVarint(dur, uint64(d.Nanos))
		}
		var ri []byte
		ri = protowire.AppendTag(ri, 1, protowire.BytesType)
		ri = protowire.AppendBytes(ri, dur)
		s.Details = append(s.Details, detail(TypeURLRetryInfo, ri, map[string]any{"retryDelay": map[string]any{"seconds": d.Seconds, "nanos": d.Nanos}}))
	}
	if e.CorrelationID != nil && *e.CorrelationID != "" {
		var rq []byte
		rq = protowire.AppendTag(rq, 1, protowire.BytesType)
		rq = protowire.AppendString(rq, *e.CorrelationID)
		s.Details = append(s.Details, detail(TypeURLRequestInfo, rq, map[string]any{"requestId": *e.CorrelationID}))
	}
	for _, r := range e.Resources {
		var rs []byte
		rs = protowire.AppendTag(rs, 1, protowire.BytesType)
		rs = protowire.AppendString(rs, r[0])
		rs = protowire.AppendTag(rs, 2, protowire.BytesType)
		rs = protowire.AppendString(rs, r[1])
		s.Details = append(s.Details, detail(TypeURLResourceInfo, rs, map[string]any{"resourceType": r[0], "resourceName": r[1]}))
	}
	return s
}

func detail(typeURL string, value []byte, decoded any) ProtoAny {
	js, _ := json.Marshal(decoded)
	text := string(js)
	return ProtoAny{TypeURL: typeURL, Value: value, ValueDecoded: &text}
}

// ErrorFromStatus reconstructs the error behind a non-OK status: the id and
// context from its ErrorInfo detail when present, else from the message
// "ID(cat,corr): cause"; resources from ResourceInfo details. It returns nil
// for an OK status.
func ErrorFromStatus(s *JsStatus) *JsCantonError {
	if s == nil || s.Code == 0 {
		return nil
	}
	g := int(s.Code)
	e := &JsCantonError{Cause: s.Message, Context: Map[string]{}, Resources: List[[2]string]{}, ErrorCategory: -1, GRPCCodeValue: &g}
	if id, cat, corr, cause, ok := parseStatusMessage(s.Message); ok {
		e.Code, e.ErrorCategory, e.Cause = id, cat, cause
		if corr != "0" {
			e.CorrelationID = &corr
		}
	}
	for _, d := range s.Details {
		switch d.TypeURL {
		case TypeURLErrorInfo:
			reason, md := decodeErrorInfo(d.Value)
			if reason != "" {
				e.Code = reason
			}
			for k, v := range md {
				e.Context[k] = v
			}
		case TypeURLResourceInfo:
			f := decodeStringFields(d.Value)
			e.Resources = append(e.Resources, [2]string{NormalizeResourceType(f[1]), f[2]})
		case TypeURLRequestInfo:
			if id := decodeStringFields(d.Value)[1]; id != "" {
				e.CorrelationID = &id
			}
		case TypeURLRetryInfo:
			r := RetryAfterText
			e.RetryInfo = &r
		}
	}
	if c, err := strconv.Atoi(e.Context["category"]); err == nil {
		e.ErrorCategory = c
	}
	if e.Code == "" {
		e.Code = RedactedCode
	}
	return e
}

// parseStatusMessage splits "ID(cat,corr): cause".
func parseStatusMessage(m string) (id string, cat int, corr, cause string, ok bool) {
	open := strings.IndexByte(m, '(')
	end := strings.Index(m, "): ")
	if open <= 0 || end < open {
		return "", 0, "", "", false
	}
	id = m[:open]
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return "", 0, "", "", false
		}
	}
	catStr, corr, found := strings.Cut(m[open+1:end], ",")
	if !found {
		return "", 0, "", "", false
	}
	cat, err := strconv.Atoi(catStr)
	if err != nil {
		return "", 0, "", "", false
	}
	return id, cat, corr, m[end+3:], true
}

// decodeErrorInfo reads reason (1) and metadata (3) of a google.rpc.ErrorInfo;
// malformed input yields whatever was read before the damage.
func decodeErrorInfo(b []byte) (string, map[string]string) {
	var reason string
	md := map[string]string{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				break
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			break
		}
		b = b[n:]
		switch num {
		case 1:
			reason = string(v)
		case 3:
			f := decodeStringFields(v)
			md[f[1]] = f[2]
		}
	}
	return reason, md
}

// decodeStringFields returns the string fields 1..4 of a flat message.
func decodeStringFields(b []byte) [5]string {
	var out [5]string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				break
			}
			if num >= 1 && num <= 4 {
				out[num] = string(v)
			}
			b = b[m:]
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			break
		}
		b = b[n:]
	}
	return out
}
