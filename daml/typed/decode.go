package typed

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/value"
)

// none is value.None as a Value, boxed once.
var none value.Value = value.None

// MaxNesting is Daml's bound on the nesting of values (Value.MAXIMUM_NESTING).
const MaxNesting = 100

// DecodeOptions tune DecodeJSON.
type DecodeOptions struct {
	// Path names the value in errors ("createArguments").
	Path string
	// Budget, when set, is the number of values (each record, field value,
	// element and scalar counts one) the input may still hold; decoding
	// spends it and fails with ErrTooLarge once it is spent. Several
	// values of one request may share a budget.
	Budget *int
	// RefuseLocalIDs refuses a V1 contract id without its suffix (a local
	// id of a transaction not yet committed) with ErrIllegalContractID, as
	// Canton's command preprocessing does; commands may only name
	// committed contracts.
	RefuseLocalIDs bool
}

// DecodeJSON reads Canton's JSON encoding of a value of the plan's type
// (see the package documentation) and returns the value: records with all
// their fields in the type's order (omitted optional fields are None),
// variants and enums with their rank, maps sorted by key (of two equal keys
// the later wins, as in Canton). Errors are *Error.
func (p *Plan) DecodeJSON(data []byte, opts DecodeOptions) (value.Value, error) {
	d := decoder{data: data, base: opts.Path, budget: opts.Budget, refuseLocal: opts.RefuseLocalIDs}
	v, err := d.value(p)
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.pos < len(d.data) {
		return nil, d.fail(ErrMalformedJSON, "unexpected data after the JSON value")
	}
	return v, nil
}

// segment is one step of a path: a record field or variant value (name), a
// list or array element (index), a text map key (key).
type segment struct {
	name  string
	index int
	sort  byte // '.', '[', 'k'
}

type decoder struct {
	data    []byte
	pos     int
	base    string
	path    []segment
	depth   int
	budget  *int
	scratch []byte

	refuseLocal bool
}

func (d *decoder) pathString() string {
	var b strings.Builder
	b.WriteString(d.base)
	for _, s := range d.path {
		switch s.sort {
		case '.':
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case '[':
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case 'k':
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.name))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func (d *decoder) fail(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Path: d.pathString(), Message: fmt.Sprintf(format, args...)}
}

func (d *decoder) push(s segment) { d.path = append(d.path, s) }
func (d *decoder) pop()           { d.path = d.path[:len(d.path)-1] }

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte, 0 at the end.
func (d *decoder) next() byte {
	d.ws()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

func (d *decoder) expect(c byte) error {
	if d.next() != c {
		return d.malformed(fmt.Sprintf("expected %q", c))
	}
	d.pos++
	return nil
}

func (d *decoder) malformed(what string) *Error {
	if d.pos >= len(d.data) {
		return d.fail(ErrMalformedJSON, "malformed JSON: unexpected end of input")
	}
	return d.fail(ErrMalformedJSON, "malformed JSON at byte %d: %s", d.pos, what)
}

// jsonSort names the JSON value starting with c, for messages.
func jsonSort(c byte) string {
	switch c {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "null"
	case 0:
		return "nothing"
	}
	return "a JSON number"
}

func (d *decoder) wrongSort(p *Plan, want string) *Error {
	if d.next() == 0 {
		return d.malformed("")
	}
	return d.fail(ErrInvalidValue, "expected %s (%s), found %s", p.Type, want, jsonSort(d.next()))
}

func (d *decoder) spend() error {
	if d.budget == nil {
		return nil
	}
	*d.budget--
	if *d.budget < 0 {
		return d.fail(ErrTooLarge, "the value holds more elements than this node accepts in one request")
	}
	return nil
}

func (d *decoder) value(p *Plan) (value.Value, error) {
	if err := d.spend(); err != nil {
		return nil, err
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	c := d.next()
	switch p.Kind {
	case KindUnit:
		// Canton's codec reads nothing of a unit value; any JSON will do.
		// The unit is counted at its level already: the {} written for it
		// is not one more (Z {} in a Nat of nesting 100 is accepted), what
		// it holds still counts.
		d.depth--
		_, err := d.skip()
		d.depth++
		if err != nil {
			return nil, err
		}
		return value.Unit{}, nil
	case KindBool:
		switch {
		case d.literal("true"):
			return value.Bool(true), nil
		case d.literal("false"):
			return value.Bool(false), nil
		}
		return nil, d.wrongSort(p, "true or false")
	case KindInt64:
		return d.int64(p, c)
	case KindNumeric:
		return d.numeric(p, c)
	case KindText, KindParty, KindContractID, KindTimestamp, KindDate:
		if c != '"' {
			return nil, d.wrongSort(p, "a JSON string")
		}
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.scalar(p, s)
	case KindOptional:
		if p.Nested {
			return d.nestedOptional(p)
		}
		if d.literal("null") {
			return none, nil
		}
		v, err := d.value(p.Elem)
		if err != nil {
			return nil, err
		}
		return value.Some(v), nil
	case KindList:
		return d.list(p, c)
	case KindTextMap:
		return d.textMap(p, c)
	case KindGenMap:
		return d.genMap(p, c)
	case KindRecord:
		return d.record(p, c)
	case KindVariant:
		return d.variant(p, c)
	case KindEnum:
		if c != '"' {
			return nil, d.wrongSort(p, "a JSON string naming a constructor")
		}
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		i, ok := p.index[s]
		if !ok {
			return nil, d.fail(ErrVariant, "Unexpected enum constructor: %s (%s has %s)", s, p.ID.QualifiedName(), strings.Join(p.Cons, ", "))
		}
		return p.enums[i], nil
	}
	return nil, d.fail(ErrInvalidValue, "type %s cannot be decoded", p.Type)
}

// enter counts one level of nesting.
func (d *decoder) enter() error {
	d.depth++
	if d.depth > MaxNesting+1 { // the outermost value is at level 0
		return d.fail(ErrTooLarge, "Provided value exceeds maximum nesting level of %d", MaxNesting)
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

// nestedOptional reads an Optional whose element is written Optional: []
// is None, [x] is Some x, x read the same way while its type is written
// Optional. null is also None.
func (d *decoder) nestedOptional(p *Plan) (value.Value, error) {
	if d.literal("null") {
		return value.None, nil
	}
	if d.next() != '[' {
		return nil, d.wrongSort(p, "a JSON array: [] for None, [x] for Some x")
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	d.pos++
	if d.next() == ']' {
		d.pos++
		return value.None, nil
	}
	d.push(segment{index: 0, sort: '['})
	var inner value.Value
	var err error
	if p.Nested {
		if err := d.spend(); err != nil {
			return nil, err
		}
		inner, err = d.nestedOptional(p.Elem)
	} else {
		inner, err = d.value(p.Elem)
	}
	if err != nil {
		return nil, err
	}
	d.pop()
	if d.next() != ']' {
		return nil, d.fail(ErrInvalidValue, "expected %s as [] or a one-element array, found more elements", p.Type)
	}
	d.pos++
	return value.Some(inner), nil
}

func (d *decoder) list(p *Plan, c byte) (value.Value, error) {
	if c != '[' {
		return nil, d.wrongSort(p, "a JSON array")
	}
	var elems []value.Value
	err := d.elements(func(int) error {
		v, err := d.value(p.Elem)
		elems = append(elems, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return value.NewList(elems...), nil
}

func (d *decoder) textMap(p *Plan, c byte) (value.Value, error) {
	if c != '{' {
		return nil, d.wrongSort(p, "a JSON object")
	}
	var entries []value.TextMapEntry
	err := d.members(func(key []byte) error {
		k := string(key)
		d.push(segment{name: k, sort: 'k'})
		v, err := d.value(p.Elem)
		d.pop()
		entries = append(entries, value.TextMapEntry{Key: k, Value: v})
		return err
	})
	if err != nil {
		return nil, err
	}
	// Of two equal keys the later wins, as when Canton reads the object.
	slices.SortStableFunc(entries, func(a, b value.TextMapEntry) int { return strings.Compare(a.Key, b.Key) })
	entries = lastOfRuns(entries, func(a, b value.TextMapEntry) bool { return a.Key == b.Key })
	m, err := value.NewTextMap(entries)
	if err != nil {
		return nil, d.fail(ErrInvalidValue, "%v", err)
	}
	return m, nil
}

// lastOfRuns keeps the last of each run of equal neighbours.
func lastOfRuns[T any](s []T, eq func(a, b T) bool) []T {
	out := s[:0]
	for i := range s {
		if i+1 < len(s) && eq(s[i], s[i+1]) {
			continue
		}
		out = append(out, s[i])
	}
	return out
}

func (d *decoder) genMap(p *Plan, c byte) (value.Value, error) {
	if c != '[' {
		return nil, d.wrongSort(p, "a JSON array of [key, value] pairs")
	}
	var entries []value.GenMapEntry
	err := d.elements(func(int) error {
		if d.next() != '[' {
			return d.fail(ErrInvalidValue, "expected an entry of %s as a JSON array [key, value], found %s", p.Type, jsonSort(d.next()))
		}
		var e value.GenMapEntry
		err := d.elements(func(i int) error {
			var err error
			switch i {
			case 0:
				e.Key, err = d.value(p.Key)
			case 1:
				e.Value, err = d.value(p.Elem)
			default:
				// Canton reads the first two elements of an entry and ignores the rest.
				_, err = d.skip()
			}
			return err
		})
		if err == nil && e.Value == nil {
			err = d.fail(ErrInvalidValue, "expected an entry of %s as a JSON array [key, value], found fewer elements", p.Type)
		}
		entries = append(entries, e)
		return err
	})
	if err != nil {
		return nil, err
	}
	var cmpErr error
	slices.SortStableFunc(entries, func(a, b value.GenMapEntry) int {
		c, err := value.Compare(a.Key, b.Key)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return c
	})
	if cmpErr != nil {
		return nil, d.fail(ErrInvalidValue, "map keys: %v", cmpErr)
	}
	entries = lastOfRuns(entries, func(a, b value.GenMapEntry) bool {
		c, _ := value.Compare(a.Key, b.Key)
		return c == 0
	})
	m, err := value.NewGenMap(entries)
	if err != nil {
		return nil, d.fail(ErrInvalidValue, "%v", err)
	}
	return m, nil
}

func (d *decoder) record(p *Plan, c byte) (value.Value, error) {
	if c != '{' {
		return nil, d.wrongSort(p, "a JSON object of its fields")
	}
	fields := make([]value.Field, len(p.Fields))
	var unexpected []string
	err := d.members(func(key []byte) error {
		i, ok := p.index[string(key)]
		if !ok {
			name := string(key)
			null, err := d.skip()
			// Canton ignores an unknown field whose value is null.
			if !null {
				unexpected = append(unexpected, name)
			}
			return err
		}
		f := &p.Fields[i]
		d.push(segment{name: f.Name, sort: '.'})
		v, err := d.value(f.Plan)
		d.pop()
		fields[i] = value.Field{Label: f.Name, Value: v}
		return err
	})
	if err != nil {
		return nil, err
	}
	var missing []string
	for i := range fields {
		if fields[i].Value != nil {
			continue
		}
		f := &p.Fields[i]
		if !f.Plan.optional() {
			missing = append(missing, f.Name)
			continue
		}
		fields[i] = value.Field{Label: f.Name, Value: none}
	}
	if len(missing) > 0 {
		e := d.fail(ErrMissingFields, "%s", missingFieldsMessage(missing))
		e.Fields = missing
		return nil, e
	}
	if len(unexpected) > 0 {
		e := d.fail(ErrUnexpectedFields, "%s", unexpectedFieldsMessage(unexpected))
		e.Fields = unexpected
		return nil, e
	}
	return &value.Record{TypeCon: p.ID, Fields: fields}, nil
}

// members reads the members of an object, the decoder at its '{': for
// each it reads the key and the ':' and calls member with the key (valid
// until the next string is read) and the decoder at the value, which
// member consumes.
func (d *decoder) members(member func(key []byte) error) error {
	d.pos++
	if d.next() == '}' {
		d.pos++
		return nil
	}
	for {
		if d.next() != '"' {
			return d.malformed("expected an object key")
		}
		key, err := d.strBytes()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		if d.next() != ',' {
			return d.expect('}')
		}
		d.pos++
	}
}

// elements reads the elements of an array, the decoder at its '[': for
// each it calls element with the index and the decoder at the element,
// which element consumes. The path names the element meanwhile.
func (d *decoder) elements(element func(i int) error) error {
	d.pos++
	if d.next() == ']' {
		d.pos++
		return nil
	}
	d.push(segment{sort: '['})
	for i := 0; ; i++ {
		d.path[len(d.path)-1].index = i
		if err := element(i); err != nil {
			return err
		}
		if d.next() != ',' {
			d.pop()
			return d.expect(']')
		}
		d.pos++
	}
}

func (d *decoder) variant(p *Plan, c byte) (value.Value, error) {
	if c != '{' {
		return nil, d.fail(ErrVariant, "Variant type json must have 'tag' and 'value' fields.")
	}
	tag, hasTag := "", false
	valueAt := -1
	err := d.members(func(key []byte) error {
		switch string(key) {
		case "tag":
			if d.next() != '"' {
				return d.fail(ErrVariant, "the tag of %s must be a JSON string naming a constructor, found %s", p.ID.QualifiedName(), jsonSort(d.next()))
			}
			var err error
			tag, err = d.str()
			hasTag = true
			return err
		case "value":
			d.ws()
			valueAt = d.pos
		}
		_, err := d.skip()
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasTag || valueAt < 0 {
		return nil, d.fail(ErrVariant, "Variant type json must have 'tag' and 'value' fields.")
	}
	i, ok := p.index[tag]
	if !ok {
		names := make([]string, len(p.Fields))
		for j, f := range p.Fields {
			names[j] = f.Name
		}
		return nil, d.fail(ErrVariant, "Unexpected variant tag: %s (%s has %s)", tag, p.ID.QualifiedName(), strings.Join(names, ", "))
	}
	end := d.pos
	d.pos = valueAt
	d.push(segment{name: "value", sort: '.'})
	v, err := d.value(p.Fields[i].Plan)
	if err != nil {
		return nil, err
	}
	d.pop()
	d.pos = end
	return &value.Variant{TypeCon: p.ID, Constructor: p.Fields[i].Name, Rank: i, Value: v}, nil
}

func (d *decoder) int64(p *Plan, c byte) (value.Value, error) {
	// Canton reads Int64 from a string; a number is accepted too.
	s, err := d.numberText(p, c, "a JSON string of decimal digits")
	if err != nil {
		return nil, err
	}
	n, ok := parseLong(s)
	if !ok {
		return nil, d.fail(ErrInvalidValue, "For input string: %q (expected an Int64)", clip(s))
	}
	return value.Int64(n), nil
}

// numberText reads the text of a JSON string or number (c is its first
// byte); want says what the type expects, for the error of anything else.
func (d *decoder) numberText(p *Plan, c byte, want string) (string, error) {
	switch {
	case c == '"':
		return d.str()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return "", d.wrongSort(p, want)
}

// parseLong reads an int64 as Java's Long.parseLong does: an optional sign,
// then decimal digits.
func parseLong(s string) (int64, bool) {
	t := strings.TrimPrefix(s, "+")
	if t != s && strings.HasPrefix(t, "-") {
		return 0, false
	}
	if t == "" || t == "-" {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if !('0' <= t[i] && t[i] <= '9' || i == 0 && t[i] == '-') {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil
}

func (d *decoder) numeric(p *Plan, c byte) (value.Value, error) {
	s, err := d.numberText(p, c, "a JSON string of a decimal number")
	if err != nil {
		return nil, err
	}
	if c != '"' {
		s = plainNumber(s)
	}
	n, kind, msg := ParseNumeric(s, p.Scale)
	if kind != 0 {
		return nil, d.fail(kind, "%s", msg)
	}
	return n, nil
}

// ParseNumeric reads the text of a Numeric of the given scale as Canton's
// Ledger API and engine do. The text must match [+-]?\d{1,38}(\.\d{0,37})?
// and hold at most 38 significant digits (else ErrInvalidValue, "Could not
// read Numeric string"); its value must be representable at the scale
// without loss of precision and within 38 digits (else ErrTypeMismatch).
func ParseNumeric(s string, scale int) (n value.Numeric, kind ErrorKind, msg string) {
	bad := func() (value.Numeric, ErrorKind, string) {
		return value.Numeric{}, ErrInvalidValue, fmt.Sprintf("Could not read Numeric string %q", clip(s))
	}
	t := s
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	ip, fp, _ := strings.Cut(t, ".")
	if len(ip) < 1 || len(ip) > 38 || len(fp) > 37 || !digits(ip) || !digits(fp) {
		return bad()
	}
	ip = strings.TrimLeft(ip, "0")
	fp = strings.TrimRight(fp, "0")
	sig := strings.TrimLeft(ip+fp, "0")
	if len(sig) > value.MaxNumericPrecision {
		return bad()
	}
	sign := ""
	if neg && sig != "" {
		sign = "-"
	}
	if len(fp) > scale {
		// Canton prints the value at its smallest scale.
		return value.Numeric{}, ErrTypeMismatch, fmt.Sprintf("Cannot represent %s as (Numeric %d) without loss of precision", canonical(sign, ip, fp), scale)
	}
	if len(ip)+scale > value.MaxNumericPrecision {
		return value.Numeric{}, ErrTypeMismatch, fmt.Sprintf("Out-of-bounds (Numeric %d) %s", scale, canonical(sign, ip, fp+strings.Repeat("0", scale-len(fp))))
	}
	if unscaled := len(ip) + scale; unscaled <= 18 {
		// The unscaled digits fit an int64: no big.Int.
		var u int64
		for i := 0; i < len(ip); i++ {
			u = u*10 + int64(ip[i]-'0')
		}
		for i := 0; i < scale; i++ {
			u *= 10
			if i < len(fp) {
				u += int64(fp[i] - '0')
			}
		}
		if sign != "" {
			u = -u
		}
		n, _ := value.NumericFromInt64(0, u)
		n, _ = value.ShiftNumeric(scale, n)
		return n, 0, ""
	}
	n, ok := value.TextToNumeric(scale, sign+orZero(ip)+"."+orZero(fp))
	if !ok {
		return bad()
	}
	return n, 0, ""
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// canonical is Canton's Numeric.toString of sign, integral and fraction
// digits: "1.50", "3.", "0.5".
func canonical(sign, ip, fp string) string {
	return sign + orZero(ip) + "." + fp
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainNumber rewrites JSON number text with an exponent as plain decimal
// text ("1.5e3" → "1500", "2E-2" → "0.02"); other text is returned as it is.
// An exponent too large to matter leaves the text unchanged, to be refused.
func plainNumber(s string) string {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s
	}
	mant, exp := s[:i], s[i+1:]
	e, err := strconv.Atoi(exp)
	if err != nil || e > 100 || e < -100 {
		return s
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	ip, fp, _ := strings.Cut(mant, ".")
	all := ip + fp
	point := len(ip) + e
	switch {
	case point <= 0:
		all = strings.Repeat("0", 1-point) + all
		point = 1
	case point > len(all):
		all += strings.Repeat("0", point-len(all))
	}
	out := all[:point]
	if point < len(all) {
		out += "." + all[point:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

func (d *decoder) scalar(p *Plan, s string) (value.Value, error) {
	switch p.Kind {
	case KindText:
		return value.Text(s), nil
	case KindParty:
		if err := checkParty(s); err != "" {
			return nil, d.fail(ErrInvalidValue, "%s", err)
		}
		return value.Party(s), nil
	case KindContractID:
		cid, err := value.ParseContractID(s)
		if err != nil {
			return nil, d.fail(ErrInvalidValue, "%v", err)
		}
		if d.refuseLocal && IsLocalV1ContractID(s) {
			return nil, d.fail(ErrIllegalContractID, "%s", IllegalContractIDMessage(s))
		}
		return cid, nil
	case KindTimestamp:
		ts, err := parseTimestamp(s)
		if err != nil {
			return nil, d.fail(ErrInvalidValue, "%v", err)
		}
		return ts, nil
	case KindDate:
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, d.fail(ErrInvalidValue, "Text %q could not be parsed as a Date (yyyy-mm-dd)", clip(s))
		}
		dt, err := value.DateFromDays(t.Unix() / 86400)
		if err != nil {
			return nil, d.fail(ErrInvalidValue, "%v", err)
		}
		return dt, nil
	}
	return nil, d.fail(ErrInvalidValue, "type %s cannot be decoded", p.Type)
}

// checkParty checks Daml-LF party syntax as Canton's Ref.Party does: 1 to
// 255 characters of [A-Za-z0-9:\-_ ].
func checkParty(s string) string {
	if s == "" {
		return "Daml-LF Party is empty"
	}
	if len(s) > 255 {
		return fmt.Sprintf("Daml-LF Party is too long (max: 255): %q", clip(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ':' || c == '-' || c == '_' || c == ' ') {
			return fmt.Sprintf("non expected character 0x%x in Daml-LF Party %q", c, clip(s))
		}
	}
	return ""
}

// parseTimestamp reads an ISO-8601 date and time with an offset, as Java's
// ISO_DATE_TIME does (seconds may be omitted), rounding down to the
// microsecond.
func parseTimestamp(s string) (value.Timestamp, error) {
	if ts, ok := parseUTCTimestamp(s); ok {
		return ts, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var err2 error
		if t, err2 = time.Parse("2006-01-02T15:04Z07:00", s); err2 != nil {
			return 0, fmt.Errorf("timestamp text %q could not be parsed (ISO-8601 with an offset, e.g. 2026-01-02T03:04:05.123456Z)", clip(s))
		}
	}
	return value.TimestampOf(t)
}

// clip shortens text quoted in an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:64] + "…"
	}
	return s
}

// literal consumes word if the input continues with it.
func (d *decoder) literal(word string) bool {
	d.ws()
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// number consumes a JSON number and returns its text.
func (d *decoder) number() (string, error) {
	start := d.pos
	i := d.pos
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	digitsFrom := i
	for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
		i++
	}
	if i == digitsFrom || i-digitsFrom > 1 && d.data[digitsFrom] == '0' {
		d.pos = i
		return "", d.malformed("invalid number")
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		f := i
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
		if i == f {
			d.pos = i
			return "", d.malformed("invalid number")
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		f := i
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
		if i == f {
			d.pos = i
			return "", d.malformed("invalid number")
		}
	}
	d.pos = i
	return string(d.data[start:i]), nil
}

// str consumes a JSON string and returns its text.
func (d *decoder) str() (string, error) {
	b, err := d.strBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// strBytes consumes a JSON string (at '"') and returns its text, which
// aliases the input or the decoder's scratch buffer until the next call.
func (d *decoder) strBytes() ([]byte, error) {
	d.pos++ // '"'
	start := d.pos
	i := start
	for i < len(d.data) {
		c := d.data[i]
		if c == '"' {
			s := d.data[start:i]
			if !utf8.Valid(s) {
				d.pos = start
				return nil, d.fail(ErrMalformedJSON, "malformed JSON: a string is not valid UTF-8")
			}
			d.pos = i + 1
			return s, nil
		}
		if c == '\\' {
			return d.escapedString(start, i)
		}
		if c < 0x20 {
			d.pos = i
			return nil, d.malformed("control character in a string")
		}
		i++
	}
	d.pos = i
	return nil, d.malformed("unterminated string")
}

func (d *decoder) escapedString(start, i int) ([]byte, error) {
	out := append(d.scratch[:0], d.data[start:i]...)
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.scratch = out
			if !utf8.Valid(out) {
				return nil, d.fail(ErrMalformedJSON, "malformed JSON: a string is not valid UTF-8")
			}
			return out, nil
		case c < 0x20:
			d.pos = i
			return nil, d.malformed("control character in a string")
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			break
		}
		e := d.data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(d.data, i)
			if !ok {
				d.pos = i
				return nil, d.malformed("invalid \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
					if x, ok := hex4(d.data, i+2); ok {
						r2 = x
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			d.pos = i - 1
			return nil, d.malformed("invalid escape")
		}
	}
	d.pos = i
	return nil, d.malformed("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// skip consumes any JSON value and reports whether it was null.
func (d *decoder) skip() (null bool, err error) {
	switch c := d.next(); c {
	case '{', '[':
		if err := d.enter(); err != nil {
			return false, err
		}
		defer d.leave()
		if c == '{' {
			return false, d.members(func([]byte) error { _, err := d.skip(); return err })
		}
		return false, d.elements(func(int) error { _, err := d.skip(); return err })
	case '"':
		_, err := d.strBytes()
		return false, err
	case 't':
		if d.literal("true") {
			return false, nil
		}
	case 'f':
		if d.literal("false") {
			return false, nil
		}
	case 'n':
		if d.literal("null") {
			return true, nil
		}
	default:
		if c == '-' || '0' <= c && c <= '9' {
			_, err := d.number()
			return false, err
		}
	}
	return false, d.malformed("expected a JSON value")
}

// parseUTCTimestamp reads the common form "YYYY-MM-DDThh:mm:ss[.f…]Z"
// without time.Parse; ok is false for any other text.
func parseUTCTimestamp(s string) (value.Timestamp, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	micros := 0
	if rest := s[19 : len(s)-1]; rest != "" {
		if rest[0] != '.' || len(rest) < 2 || len(rest) > 10 {
			return 0, false
		}
		f, ok := num(20, len(rest)-1)
		if !ok {
			return 0, false
		}
		for n := len(rest) - 1; n < 9; n++ {
			f *= 10
		}
		micros = f / 1000
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day { // 31 April and the like
		return 0, false
	}
	ts, err := value.TimestampFromMicros(t.Unix()*1e6 + int64(micros))
	return ts, err == nil
}

// IsLocalV1ContractID reports whether s is a V1 contract id without a
// suffix: 00 and a 32-byte discriminator, nothing more.
func IsLocalV1ContractID(s string) bool { return len(s) == 66 && s[:2] == "00" }

// IllegalContractIDMessage is Canton's refusal of a local V1 contract id in
// a command (Preprocessing.IllegalContractId.NonSuffixV1ContractId).
func IllegalContractIDMessage(cid string) string {
	return fmt.Sprintf("Illegal Contract ID %q, non-suffixed V1 Contract IDs are forbidden", cid)
}
