package ledgerapi

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// Completions are the one answer a client reads by the hundred thousand, and
// the general decoders are slow for them: every custom UnmarshalJSON on the
// way down (the completionResponse wrapper, the oneof arm, its {"value":…},
// the deduplication period, each Int64, the timestamp) hands its bytes to
// encoding/json again, which validates them again, so each completion is
// scanned about ten times.
//
// The fast decoder below reads a completion stream element in a single pass
// over its bytes. It accepts only a strict subset of what the general
// decoders accept: the exact field names the node writes, no repeated
// field, strings and numbers in their plain forms (anything unusual inside
// a string or number goes to encoding/json for that token alone). Whenever
// it meets anything else, including every malformed input, it gives up and
// the general decoder runs on the whole input, so results and error
// messages are always those of the general decoders.
// TestFastCompletionDecoderAgrees and FuzzFastCompletionDecoder hold it to
// that.

// DecodeCompletions decodes a completion list answer, a JSON array of
// CompletionStreamResponse, exactly as json.Unmarshal into a
// []CompletionStreamResponse does, in one pass when the input has the form
// the node writes.
func DecodeCompletions(data []byte) ([]CompletionStreamResponse, error) {
	if out, ok := fastDecodeCompletions(data); ok {
		return out, nil
	}
	var out []CompletionStreamResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func fastDecodeCompletions(data []byte) ([]CompletionStreamResponse, bool) {
	if n := runtime.GOMAXPROCS(0); n > 1 && len(data) >= parallelDecodeMin {
		if out, ok := fastDecodeCompletionsParallel(data, min(n, 4)); ok {
			return out, true
		}
	}
	s := scanner{b: data}
	s.ws()
	if !s.consume('[') {
		return nil, false
	}
	// Elements are about 600 bytes; guessing the count saves regrowing.
	out := make([]CompletionStreamResponse, 0, len(data)/512+1)
	s.ws()
	if s.consume(']') {
		return out, s.end()
	}
	for {
		var r CompletionStreamResponse
		if !s.completionResponse(&r) {
			return nil, false
		}
		out = append(out, r)
		s.ws()
		if s.consume(']') {
			return out, s.end()
		}
		if !s.consume(',') {
			return nil, false
		}
	}
}

// DecodeCompletionResponse decodes one completion stream element (a
// websocket frame) exactly as json.Unmarshal does, in one pass when the
// input has the form the node writes.
func DecodeCompletionResponse(data []byte) (CompletionStreamResponse, error) {
	var r CompletionStreamResponse
	if fastDecodeCompletionResponse(data, &r) {
		return r, nil
	}
	err := json.Unmarshal(data, &r)
	return r, err
}

// parallelDecodeMin is the size from which a page is decoded in parts on
// several cores (a page of 10,000 completions is about 6 MB).
const parallelDecodeMin = 1 << 20

// elementStart begins every completion stream element the node writes. In
// valid JSON these bytes cannot lie inside a string (a quote there would
// be escaped), so a comma before them separates two elements; should a
// part not parse on its own, the whole page is decoded in one piece.
var elementStart = []byte(`,{"completionResponse":`)

// fastDecodeCompletionsParallel decodes a page in up to parts pieces split
// between elements, one goroutine each.
func fastDecodeCompletionsParallel(data []byte, parts int) ([]CompletionStreamResponse, bool) {
	s := scanner{b: data}
	s.ws()
	if !s.consume('[') {
		return nil, false
	}
	body := data[s.i:]
	end := len(body)
	for end > 0 && (body[end-1] == ' ' || body[end-1] == '\t' || body[end-1] == '\n' || body[end-1] == '\r') {
		end--
	}
	if end == 0 || body[end-1] != ']' {
		return nil, false
	}
	body = body[:end-1]
	var cuts []int // offsets in body of the commas that end a part
	for k := 1; k < parts; k++ {
		from := len(body) * k / parts
		if len(cuts) > 0 && from <= cuts[len(cuts)-1] {
			continue
		}
		i := bytes.Index(body[from:], elementStart)
		if i < 0 {
			break
		}
		cuts = append(cuts, from+i)
	}
	if len(cuts) == 0 {
		return nil, false
	}
	chunks := make([][]byte, 0, len(cuts)+1)
	prev := 0
	for _, c := range cuts {
		chunks = append(chunks, body[prev:c])
		prev = c + 1 // after the comma
	}
	chunks = append(chunks, body[prev:])
	results := make([][]CompletionStreamResponse, len(chunks))
	oks := make([]bool, len(chunks))
	var wg sync.WaitGroup
	for i, chunk := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], oks[i] = decodeElements(chunk)
		}()
	}
	wg.Wait()
	total := 0
	for i := range chunks {
		if !oks[i] {
			return nil, false
		}
		total += len(results[i])
	}
	out := make([]CompletionStreamResponse, 0, total)
	for _, r := range results {
		out = append(out, r...)
	}
	return out, true
}

// decodeElements decodes one or more comma-separated elements that make up
// all of b.
func decodeElements(b []byte) ([]CompletionStreamResponse, bool) {
	s := scanner{b: b}
	out := make([]CompletionStreamResponse, 0, len(b)/512+1)
	for {
		var r CompletionStreamResponse
		if !s.completionResponse(&r) {
			return nil, false
		}
		out = append(out, r)
		s.ws()
		if s.i == len(b) {
			return out, true
		}
		if !s.consume(',') {
			return nil, false
		}
	}
}

// fastDecodeCompletionResponse is the fast path of
// CompletionStreamResponse.UnmarshalJSON.
func fastDecodeCompletionResponse(b []byte, r *CompletionStreamResponse) bool {
	s := scanner{b: b}
	var out CompletionStreamResponse
	if !s.completionResponse(&out) || !s.end() {
		return false
	}
	*r = out
	return true
}

// scanner reads JSON from b at i. Its methods return false when the input
// is not in the form they handle; the caller then gives up.
type scanner struct {
	b []byte
	i int
	// last holds recent values of the fields that repeat from completion
	// to completion (user, synchronizer, parties), to share their strings.
	last [memoSlots]string
}

// Memo slots of scanner.last.
const (
	memoUser = iota
	memoSynchronizer
	memoParty // the first act-as party; the others are not shared
	memoTemplate
	memoPackage
	memoRepresentative
	memoSlots
)

// maxSkipDepth bounds the nesting of values the scanner skips.
const maxSkipDepth = 64

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) null() bool {
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// plainByte marks the bytes that stand for themselves in a plain string:
// printable ASCII other than the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// stringToken returns the bytes of the string at i, quotes included, and
// whether it is plain: printable ASCII without escapes, so its content is
// the bytes between the quotes. A string that is not plain is only checked
// for its end here; encoding/json decodes and validates it.
func (s *scanner) stringToken() (tok []byte, plain, ok bool) {
	if !s.consume('"') {
		return nil, false, false
	}
	b, start := s.b, s.i-1
	i := plainFrom(b, s.i)
	plain = true
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return b[start:s.i], plain, true
		case c == '\\':
			plain = false
			i += 2
		case c < 0x20:
			return nil, false, false
		default:
			if c >= 0x7f {
				plain = false
			}
			i++
		}
	}
	return nil, false, false
}

// str reads a JSON string.
func (s *scanner) str() (string, bool) {
	tok, plain, ok := s.stringToken()
	if !ok {
		return "", false
	}
	if plain {
		return string(tok[1 : len(tok)-1]), true
	}
	var v string
	if json.Unmarshal(tok, &v) != nil {
		return "", false
	}
	return v, true
}

// key reads an object key and the colon after it. Only plain keys are
// handled: the names the node writes are all plain.
func (s *scanner) key() ([]byte, bool) {
	s.ws()
	tok, plain, ok := s.stringToken()
	if !ok || !plain {
		return nil, false
	}
	s.ws()
	if !s.consume(':') {
		return nil, false
	}
	s.ws()
	return tok[1 : len(tok)-1], true
}

// next reads the comma or closing brace after an object member; more
// reports a comma.
func (s *scanner) next() (more, ok bool) {
	s.ws()
	switch {
	case s.consume(','):
		return true, true
	case s.consume('}'):
		return false, true
	}
	return false, false
}

// object reads an object whose members member decodes; member returns false
// for a key it does not handle. A key seen twice is not handled either
// (encoding/json would merge the two values): seen has one bit per key
// index member reports.
func (s *scanner) object(member func(key []byte) (index int, ok bool)) bool {
	_, ok := s.countedObject(member)
	return ok
}

// oneof reads an object of at most one member, as decodeOneof requires.
func (s *scanner) oneof(member func(key []byte) (index int, ok bool)) bool {
	n, ok := s.countedObject(member)
	return ok && n <= 1
}

func (s *scanner) countedObject(member func(key []byte) (index int, ok bool)) (int, bool) {
	if !s.consume('{') {
		return 0, false
	}
	s.ws()
	if s.consume('}') {
		return 0, true
	}
	var seen uint64
	for n := 1; ; n++ {
		k, ok := s.key()
		if !ok {
			return n, false
		}
		idx, ok := member(k)
		if !ok || seen&(1<<idx) != 0 {
			return n, false
		}
		seen |= 1 << idx
		more, ok := s.next()
		if !ok {
			return n, false
		}
		if !more {
			return n, true
		}
	}
}

// numberToken returns the bytes of a JSON number at i.
func (s *scanner) numberToken() ([]byte, bool) {
	start := s.i
	s.consume('-')
	switch {
	case s.consume('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, false
	}
	if s.consume('.') && s.digits() == 0 {
		return nil, false
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// integer reads what Int64 and Int32 decode (a number, a numeric string or
// null) with their rules.
func (s *scanner) integer(bits int) (int64, bool) {
	var tok []byte
	switch c := s.peek(); {
	case c == '"':
		t, _, ok := s.stringToken()
		if !ok {
			return 0, false
		}
		tok = t
	case c == 'n':
		return 0, s.null()
	default:
		t, ok := s.numberToken()
		if !ok {
			return 0, false
		}
		// Plain digits that cannot overflow: the common case, without
		// parseInteger's conversions.
		if digits := t; len(digits) <= safeDigits(bits) {
			neg := digits[0] == '-'
			if neg {
				digits = digits[1:]
			}
			var n int64
			plainDigits := len(digits) > 0
			for _, d := range digits {
				if d < '0' || d > '9' {
					plainDigits = false
					break
				}
				n = n*10 + int64(d-'0')
			}
			if plainDigits {
				if neg {
					n = -n
				}
				return n, true
			}
		}
		tok = t
	}
	n, err := parseInteger(tok, bits)
	return n, err == nil
}

// safeDigits is how many decimal digits always fit an integer of bits.
func safeDigits(bits int) int {
	if bits == 64 {
		return 18
	}
	return 9
}

// skip reads any JSON value.
func (s *scanner) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch c := s.peek(); {
	case c == '{':
		s.i++
		s.ws()
		if s.consume('}') {
			return true
		}
		for {
			s.ws()
			if tok, plain, ok := s.stringToken(); !ok || !plain && !json.Valid(tok) {
				return false
			}
			s.ws()
			if !s.consume(':') {
				return false
			}
			s.ws()
			if !s.skip(depth + 1) {
				return false
			}
			more, ok := s.next()
			if !ok {
				return false
			}
			if !more {
				return true
			}
		}
	case c == '[':
		s.i++
		s.ws()
		if s.consume(']') {
			return true
		}
		for {
			s.ws()
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.consume(']') {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	case c == '"':
		tok, plain, ok := s.stringToken()
		if ok && !plain {
			ok = json.Valid(tok)
		}
		return ok
	case c == 'n':
		return s.null()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	}
	_, ok := s.numberToken()
	return ok
}

func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// valueObject reads {"value": <object>} and decodes the inner object with
// inner.
func (s *scanner) valueObject(inner func() bool) bool {
	got := false
	ok := s.object(func(k []byte) (int, bool) {
		if string(k) != "value" || s.peek() != '{' {
			return 0, false
		}
		got = true
		return 0, inner()
	})
	return ok && got
}

// completionResponse reads one completion stream element.
func (s *scanner) completionResponse(r *CompletionStreamResponse) bool {
	s.ws()
	if s.null() {
		*r = CompletionStreamResponse{}
		return true
	}
	return s.object(func(k []byte) (int, bool) {
		if string(k) != "completionResponse" {
			return 0, false
		}
		return 0, s.completionArm(r)
	})
}

// completionArm reads the oneof {"Completion": {"value": …}} |
// {"OffsetCheckpoint": {"value": …}} | {"Empty": …} | {}.
func (s *scanner) completionArm(r *CompletionStreamResponse) bool {
	return s.oneof(func(k []byte) (int, bool) {
		switch string(k) {
		case "Completion":
			blk := new(completionBlock)
			r.Completion = &blk.c
			return 0, s.valueObject(func() bool { return s.completion(blk) })
		case "OffsetCheckpoint":
			cp := new(OffsetCheckpoint)
			r.OffsetCheckpoint = cp
			return 1, s.valueObject(func() bool { return s.offsetCheckpoint(cp) })
		case armEmpty:
			return 2, s.skip(0)
		}
		return 0, false
	})
}

func (s *scanner) optString(dst *string) bool {
	if s.null() {
		return true
	}
	v, ok := s.str()
	*dst = v
	return ok
}

// sharedString is optString for a field whose value usually repeats: it
// returns the previous string of slot when the bytes are the same.
func (s *scanner) sharedString(dst *string, slot int) bool {
	if s.null() {
		return true
	}
	start := s.i
	tok, plain, ok := s.stringToken()
	if ok && plain && string(tok[1:len(tok)-1]) == s.last[slot] {
		*dst = s.last[slot]
		return true
	}
	s.i = start
	v, ok := s.str()
	*dst, s.last[slot] = v, v
	return ok
}

// completionBlock is a completion and what its pointers usually point at,
// allocated as one.
type completionBlock struct {
	c      Completion
	status JsStatus
	dedup  Duration
	trace  TraceContext
	parent string
}

func (s *scanner) completion(blk *completionBlock) bool {
	c := &blk.c
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "commandId":
			return 0, s.optString(&c.CommandID)
		case "status":
			return 1, s.status(&c.Status, &blk.status)
		case "updateId":
			return 2, s.optString(&c.UpdateID)
		case "userId":
			return 3, s.sharedString(&c.UserID, memoUser)
		case "actAs":
			return 4, s.stringList(&c.ActAs)
		case "submissionId":
			return 5, s.optString(&c.SubmissionID)
		case "deduplicationPeriod":
			return 6, s.dedup(&c.DeduplicationPeriod, &blk.dedup)
		case "traceContext":
			return 7, s.traceContext(&c.TraceContext, &blk.trace, &blk.parent)
		case "offset":
			n, ok := s.integer(64)
			c.Offset = Int64(n)
			return 8, ok
		case "synchronizerTime":
			return 9, s.synchronizerTime(&c.SynchronizerTime)
		case "paidTrafficCost":
			n, ok := s.integer(64)
			c.PaidTrafficCost = Int64(n)
			return 10, ok
		}
		return 0, false
	})
}

// status reads a status into st and points dst at it.
func (s *scanner) status(dst **JsStatus, st *JsStatus) bool {
	if s.null() {
		*dst = nil
		return true
	}
	*dst = st
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "code":
			n, ok := s.integer(32)
			st.Code = Int32(n)
			return 0, ok
		case "message":
			return 1, s.optString(&st.Message)
		case "details":
			return 2, s.details(&st.Details)
		}
		return 0, false
	})
}

// details reads the status details; a non-empty list (a rejection) is
// handed to encoding/json, which ProtoAny's decoding needs anyway.
func (s *scanner) details(dst *List[ProtoAny]) bool {
	if s.null() {
		*dst = nil
		return true
	}
	start := s.i
	if s.consume('[') {
		s.ws()
		if s.consume(']') {
			*dst = List[ProtoAny]{}
			return true
		}
	}
	s.i = start
	if s.peek() != '[' || !s.skip(0) {
		return false
	}
	var d []ProtoAny
	if json.Unmarshal(s.b[start:s.i], &d) != nil {
		return false
	}
	*dst = d
	return true
}

func (s *scanner) stringList(dst *List[string]) bool {
	if s.null() {
		*dst = nil
		return true
	}
	if !s.consume('[') {
		return false
	}
	out := List[string]{}
	s.ws()
	if s.consume(']') {
		*dst = out
		return true
	}
	for {
		s.ws()
		var v string
		if len(out) == 0 {
			if !s.sharedString(&v, memoParty) {
				return false
			}
		} else if !s.optString(&v) {
			return false
		}
		out = append(out, v)
		s.ws()
		if s.consume(']') {
			*dst = out
			return true
		}
		if !s.consume(',') {
			return false
		}
	}
}

// dedup reads the deduplication oneof in the forms the node writes.
func (s *scanner) dedup(p *DeduplicationPeriod, d *Duration) bool {
	if s.null() {
		*p = DeduplicationPeriod{}
		return true
	}
	return s.oneof(func(k []byte) (int, bool) {
		switch string(k) {
		case "DeduplicationDuration":
			p.Duration = d
			return 0, s.valueObject(func() bool { return s.duration(d) })
		case "DeduplicationOffset":
			got := false
			ok := s.object(func(k []byte) (int, bool) {
				if string(k) != "value" {
					return 0, false
				}
				n, ok := s.integer(64)
				p.Offset, got = &n, true
				return 0, ok
			})
			return 1, ok && got
		case armEmpty:
			return 2, s.skip(0)
		}
		return 0, false
	})
}

func (s *scanner) duration(d *Duration) bool {
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "seconds":
			n, ok := s.integer(64)
			d.Seconds = Int64(n)
			return 0, ok
		case "nanos":
			n, ok := s.integer(32)
			d.Nanos = Int32(n)
			return 1, ok
		case "unknownFields":
			return 2, s.skip(0)
		}
		return 0, false
	})
}

// traceContext reads a trace context into tc, its traceparent into parent,
// and points dst at tc.
func (s *scanner) traceContext(dst **TraceContext, tc *TraceContext, parent *string) bool {
	if s.null() {
		*dst = nil
		return true
	}
	*dst = tc
	opt := func(p **string, into *string) bool {
		if s.null() {
			*p = nil
			return true
		}
		if into == nil {
			into = new(string)
		}
		v, ok := s.str()
		*into, *p = v, into
		return ok
	}
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "traceparent":
			return 0, opt(&tc.Traceparent, parent)
		case "tracestate":
			return 1, opt(&tc.Tracestate, nil)
		}
		return 0, false
	})
}

func (s *scanner) synchronizerTime(st *SynchronizerTime) bool {
	if s.null() {
		return true // encoding/json leaves a struct alone for null
	}
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "synchronizerId":
			return 0, s.sharedString(&st.SynchronizerID, memoSynchronizer)
		case "recordTime":
			return 1, s.timestamp(&st.RecordTime)
		}
		return 0, false
	})
}

func (s *scanner) timestamp(t *Timestamp) bool {
	if s.null() {
		*t = Timestamp{}
		return true
	}
	if s.peek() != '"' {
		return false
	}
	start := s.i
	if tok, plain, ok := s.stringToken(); ok && plain {
		if p, ok := parseInstant(tok[1 : len(tok)-1]); ok {
			*t = p
			return true
		}
	}
	s.i = start
	v, ok := s.str()
	if !ok {
		return false
	}
	p, err := ParseTimestamp(v)
	*t = p
	return err == nil
}

func (s *scanner) offsetCheckpoint(cp *OffsetCheckpoint) bool {
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "offset":
			n, ok := s.integer(64)
			cp.Offset = Int64(n)
			return 0, ok
		case "synchronizerTimes":
			return 1, s.synchronizerTimes(&cp.SynchronizerTimes)
		}
		return 0, false
	})
}

func (s *scanner) synchronizerTimes(dst *List[SynchronizerTime]) bool {
	return array(s, dst, (*scanner).synchronizerTime)
}
