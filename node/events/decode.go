package events

import (
	"encoding/base64"
	"encoding/json"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// Replaying the update stream decodes the stored events of every
// transaction, and encoding/json takes about 9 µs for a one-node
// transaction: more than everything else a replay does per update. The
// decoder below reads what Marshal writes in one pass; anything else (a
// key it does not know, an escape in a string, a key twice, malformed
// input) sends the whole input to encoding/json, so the result is always
// json.Unmarshal's. TestFastEventsDecoderAgrees and FuzzFastEventsDecoder
// hold it to that.

// Strings keeps the strings that repeat from transaction to transaction
// (templates, packages, parties, the synchronizer) so that decoding one
// after another allocates each once. The zero value is ready; it is not
// safe for concurrent use.
type Strings struct {
	m map[string]string
	// packageIDs memoizes packageIDOf (its parse allocates) per template.
	packageIDs map[string]string
}

// packageID is packageIDOf(templateID), remembered.
func (s *Strings) packageID(templateID string) string {
	if s == nil {
		return packageIDOf(templateID)
	}
	if id, ok := s.packageIDs[templateID]; ok {
		return id
	}
	id := packageIDOf(templateID)
	if s.packageIDs == nil {
		s.packageIDs = map[string]string{}
	}
	if len(s.packageIDs) < maxInterned {
		s.packageIDs[templateID] = id
	}
	return id
}

// maxInterned bounds a Strings.
const maxInterned = 4096

func (s *Strings) intern(b []byte) string {
	if s == nil {
		return string(b)
	}
	if v, ok := s.m[string(b)]; ok {
		return v
	}
	v := string(b)
	if s.m == nil {
		s.m = map[string]string{}
	}
	if len(s.m) < maxInterned {
		s.m[v] = v
	}
	return v
}

// fastUnmarshalEvents decodes b into rec, reporting false when it cannot.
func fastUnmarshalEvents(b []byte, rec *recordedTx, strs *Strings) bool {
	d := evDecoder{b: b, strs: strs}
	ok := d.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "format":
			n, ok := d.int()
			rec.Format = int(n)
			return 0, ok
		case "updateId":
			return 1, d.str(&rec.UpdateID)
		case "commandId":
			return 2, d.str(&rec.CommandID)
		case "workflowId":
			return 3, d.str(&rec.WorkflowID)
		case "synchronizerId":
			return 4, d.shared(&rec.SynchronizerID)
		case "effectiveAtMicros":
			n, ok := d.int()
			rec.EffectiveAt = n
			return 5, ok
		case "externalTransactionHash":
			return 6, d.str(&rec.ExternalHash)
		case "nodes":
			return 7, d.nodes(&rec.Nodes)
		}
		return 0, false
	})
	d.ws()
	return ok && d.i == len(d.b)
}

// evDecoder reads JSON from b at i.
type evDecoder struct {
	b    []byte
	i    int
	seen []string // distinct strings of this input, to share party names
	strs *Strings // strings shared across inputs (nil: none)
}

func (d *evDecoder) ws() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\n' || d.b[d.i] == '\t' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *evDecoder) consume(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// token reads a string of printable ASCII without escapes and returns its
// content.
func (d *evDecoder) token() ([]byte, bool) {
	if !d.consume('"') {
		return nil, false
	}
	start := d.i
	d.i += ledgerapi.PlainPrefix(d.b[d.i:])
	if d.i < len(d.b) && d.b[d.i] == '"' {
		d.i++
		return d.b[start : d.i-1], true
	}
	return nil, false // not plain: the general decoder reads it
}

func (d *evDecoder) str(dst *string) bool {
	t, ok := d.token()
	if !ok {
		return false
	}
	for _, s := range d.seen {
		if s == string(t) {
			*dst = s
			return true
		}
	}
	*dst = string(t)
	if len(d.seen) < 8 && len(t) > 16 {
		d.seen = append(d.seen, *dst)
	}
	return true
}

// shared reads a string that repeats across transactions.
func (d *evDecoder) shared(dst *string) bool {
	t, ok := d.token()
	if !ok {
		return false
	}
	*dst = d.strs.intern(t)
	return true
}

// base64 reads a []byte as encoding/json writes it: a standard base64
// string, padded.
func (d *evDecoder) base64(dst *[]byte) bool {
	t, ok := d.token()
	if !ok {
		return false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(string(t))
	if err != nil {
		return false
	}
	*dst = b
	return true
}

func (d *evDecoder) int() (int64, bool) {
	d.ws()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	digits := d.b[start:d.i]
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 {
		return 0, false // empty, long (let strconv's limits be encoding/json's) or a leading zero
	}
	var n int64
	for _, c := range digits {
		n = n*10 + int64(c-'0')
	}
	if d.b[start] == '-' {
		n = -n
	}
	return n, true
}

func (d *evDecoder) boolean(dst *bool) bool {
	d.ws()
	switch {
	case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		*dst, d.i = true, d.i+4
	case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		*dst, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

// object reads an object, handing each key to member, which reads the
// value and names the key's index (below 64); a key twice is refused.
func (d *evDecoder) object(member func(key []byte) (index int, ok bool)) bool {
	if !d.consume('{') {
		return false
	}
	if d.consume('}') {
		return true
	}
	var seen uint64
	for {
		k, ok := d.token()
		if !ok || !d.consume(':') {
			return false
		}
		idx, ok := member(k)
		if !ok || seen&(1<<idx) != 0 {
			return false
		}
		seen |= 1 << idx
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

func (d *evDecoder) strings(dst *[]string) bool {
	if !d.consume('[') {
		return false
	}
	out := []string{}
	if d.consume(']') {
		*dst = out
		return true
	}
	for {
		var s string
		if !d.shared(&s) {
			return false
		}
		out = append(out, s)
		if d.consume(']') {
			*dst = out
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// raw reads a JSON value whose strings are plain into a RawMessage,
// checked as encoding/json checks a RawMessage (ledgerapi.QuickValid: what
// it does not check quickly leaves the stored events to encoding/json).
func (d *evDecoder) raw(dst *json.RawMessage) bool {
	d.ws()
	start := d.i
	switch c := d.peek(); {
	case c == '"':
		if _, ok := d.token(); !ok {
			return false
		}
	case c == '{' || c == '[':
		depth := 0
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case '"':
				if _, ok := d.token(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			d.i++
			if depth == 0 {
				break
			}
		}
		if depth != 0 {
			return false
		}
	default:
		for d.i < len(d.b) && !isDelim(d.b[d.i]) {
			d.i++
		}
	}
	v := d.b[start:d.i]
	if len(v) == 0 || !ledgerapi.QuickValid(v) {
		return false
	}
	*dst = append(json.RawMessage(nil), v...)
	return true
}

func (d *evDecoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

func (d *evDecoder) nodes(dst *[]Node) bool {
	if !d.consume('[') {
		return false
	}
	out := []Node{}
	if d.consume(']') {
		*dst = out
		return true
	}
	for {
		var n Node
		if !d.node(&n) {
			return false
		}
		out = append(out, n)
		if d.consume(']') {
			*dst = out
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

func (d *evDecoder) node(n *Node) bool {
	return d.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "nodeId":
			v, ok := d.int()
			n.NodeID = int32(v)
			return 0, ok && v == int64(n.NodeID)
		case "kind":
			return 1, d.shared(&n.Kind)
		case "contractId":
			return 2, d.str(&n.ContractID)
		case "templateId":
			return 3, d.shared(&n.TemplateID)
		case "packageName":
			return 4, d.shared(&n.PackageName)
		case "argument":
			return 5, d.raw(&n.Argument)
		case "signatories":
			return 6, d.strings(&n.Signatories)
		case "stakeholders":
			return 7, d.strings(&n.Stakeholders)
		case "choice":
			return 8, d.shared(&n.Choice)
		case "actingParties":
			return 9, d.strings(&n.ActingParties)
		case "consuming":
			return 10, d.boolean(&n.Consuming)
		case "result":
			return 11, d.raw(&n.Result)
		case "lastDescendant":
			v, ok := d.int()
			n.LastDescendant = int32(v)
			return 12, ok && v == int64(n.LastDescendant)
		case "transient":
			return 13, d.boolean(&n.Transient)
		case "interfaceId":
			return 14, d.shared(&n.InterfaceID)
		case "contractKey":
			return 15, d.raw(&n.ContractKey)
		case "keyHash":
			return 16, d.base64(&n.KeyHash)
		case "witnesses":
			return 17, d.strings(&n.Witnesses)
		}
		return 0, false
	})
}
