package ledgerapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

var jsonNull = []byte("null")

func isNull(b []byte) bool { return bytes.Equal(bytes.TrimSpace(b), jsonNull) }

// Int64 is a 64-bit integer on the wire: a JSON number on output; a JSON
// number or a string holding one on input. It never passes through float64,
// so every int64 round-trips exactly.
type Int64 int64

// MarshalJSON writes the value as a JSON number.
func (v Int64) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(v), 10), nil
}

// UnmarshalJSON accepts 42, "42", 4.2e1 and null (which leaves 0).
func (v *Int64) UnmarshalJSON(b []byte) error {
	n, err := parseInteger(b, 64)
	if err != nil {
		return err
	}
	*v = Int64(n)
	return nil
}

// Int32 is Int64's 32-bit sibling (node ids, tapsMaxPasses, status codes).
type Int32 int32

// MarshalJSON writes the value as a JSON number.
func (v Int32) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(v), 10), nil
}

// UnmarshalJSON accepts numbers, numeric strings and null.
func (v *Int32) UnmarshalJSON(b []byte) error {
	n, err := parseInteger(b, 32)
	if err != nil {
		return err
	}
	*v = Int32(n)
	return nil
}

// parseInteger reads a JSON number or numeric string as an exact integer of
// the given bit size. Forms with a fraction or exponent are accepted only when
// they denote a whole number (1.0, 1e3), evaluated exactly with big.Rat.
func parseInteger(b []byte, bits int) (int64, error) {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, jsonNull) {
		return 0, nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, fmt.Errorf("invalid integer %s", b)
		}
	}
	if s == "" {
		return 0, errors.New("invalid integer: empty")
	}
	if n, err := strconv.ParseInt(s, 10, bits); err == nil {
		return n, nil
	} else if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("integer %s out of range for int%d", s, bits)
	}
	if len(s) > 400 || !isNumberLiteral(s) {
		return 0, fmt.Errorf("invalid integer %q", truncate(s, 40))
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return 0, fmt.Errorf("invalid integer %q: not a whole number", truncate(s, 40))
	}
	n := r.Num()
	if n.BitLen() >= bits && !(n.Sign() < 0 && n.BitLen() == bits && n.TrailingZeroBits() == uint(bits-1)) {
		return 0, fmt.Errorf("integer %s out of range for int%d", truncate(s, 40), bits)
	}
	return n.Int64(), nil
}

// isNumberLiteral reports whether s is a JSON number literal; big.Rat alone
// would also take "1/2" or "0x10", and a huge exponent would cost memory.
func isNumberLiteral(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		if digits() == 0 || i-start > 3 {
			return false
		}
	}
	return i == len(s)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Timestamp is a google.protobuf.Timestamp: an ISO-8601 string in UTC, as
// Java's Instant prints it ("2026-07-24T11:59:01.123456Z": the fraction has
// 0, 3, 6 or 9 digits, as many as needed). Ledger times have microsecond
// precision, so decoding truncates to whole microseconds. The zero Timestamp
// is written as null.
type Timestamp struct{ time.Time }

// NewTimestamp returns t in UTC truncated to microseconds.
func NewTimestamp(t time.Time) Timestamp {
	return Timestamp{t.UTC().Truncate(time.Microsecond)}
}

// TimestampPtr is NewTimestamp for optional fields.
func TimestampPtr(t time.Time) *Timestamp {
	ts := NewTimestamp(t)
	return &ts
}

// String formats the instant as Java's Instant.toString does.
func (t Timestamp) String() string {
	return string(t.AppendString(make([]byte, 0, 30)))
}

// AppendString appends what String returns, without formatting through
// layouts: the node writes one per completion it serves.
func (t Timestamp) AppendString(b []byte) []byte {
	u := t.UTC()
	year, month, day := u.Date()
	if year < 0 || year > 9999 {
		// outside what a ledger holds; time's own layout handles the sign
		b = u.AppendFormat(b, "2006-01-02T15:04:05")
	} else {
		hour, minute, sec := u.Clock()
		b = appendDigits(b, year, 4)
		b = append(b, '-')
		b = appendDigits(b, int(month), 2)
		b = append(b, '-')
		b = appendDigits(b, day, 2)
		b = append(b, 'T')
		b = appendDigits(b, hour, 2)
		b = append(b, ':')
		b = appendDigits(b, minute, 2)
		b = append(b, ':')
		b = appendDigits(b, sec, 2)
	}
	switch ns := u.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		b = appendDigits(append(b, '.'), ns/1_000_000, 3)
	case ns%1_000 == 0:
		b = appendDigits(append(b, '.'), ns/1_000, 6)
	default:
		b = appendDigits(append(b, '.'), ns, 9)
	}
	return append(b, 'Z')
}

// appendDigits appends n (0 <= n < 10^width) zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	start := len(b)
	for range width {
		b = append(b, '0')
	}
	for i := len(b) - 1; i >= start && n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// MarshalJSON writes the Instant string, or null for the zero value.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return jsonNull, nil
	}
	return json.Marshal(t.String())
}

// UnmarshalJSON reads an RFC 3339 string (any offset; stored in UTC) or null.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		*t = Timestamp{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp must be an RFC 3339 string, got %s", truncate(string(b), 40))
	}
	p, err := ParseTimestamp(s)
	if err != nil {
		return err
	}
	*t = p
	return nil
}

// ParseTimestamp parses an RFC 3339 timestamp such as 2026-07-24T12:00:00Z.
// In UTC it must lie in Daml's range, years 0001 to 9999 (an offset can move
// 0000-… or 9999-… across the edge).
func ParseTimestamp(s string) (Timestamp, error) {
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return Timestamp{}, fmt.Errorf("invalid timestamp %q: want RFC 3339 like 2026-07-24T12:00:00Z", truncate(s, 40))
	}
	if y := p.UTC().Year(); y < 1 || y > 9999 {
		return Timestamp{}, fmt.Errorf("invalid timestamp %q: it lies outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z in UTC", truncate(s, 40))
	}
	return NewTimestamp(p), nil
}

// parseInstant reads the form Timestamp.String writes, in UTC
// ("2026-07-24T11:59:01.123456Z", a fraction of 1 to 9 digits or none),
// as ParseTimestamp does, without time.Parse: clients decode two or three
// per update. It reports false for any other form, valid or not, which
// ParseTimestamp then reads.
func parseInstant(b []byte) (Timestamp, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return Timestamp{}, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for _, c := range b[from:to] {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 7)
	day, ok3 := num(8, 10)
	hour, ok4 := num(11, 13)
	minute, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || year < 1 || month < 1 || month > 12 || day < 1 ||
		day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return Timestamp{}, false
	}
	nanos := 0
	switch frac := b[19 : len(b)-1]; {
	case len(frac) == 0:
	case frac[0] != '.' || len(frac) < 2 || len(frac) > 10:
		return Timestamp{}, false
	default:
		n, ok := num(20, len(b)-1)
		if !ok {
			return Timestamp{}, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		nanos = n
	}
	return NewTimestamp(time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC)), true
}

// daysIn is the number of days of month in year (Gregorian).
func daysIn(month time.Month, year int) int {
	if month == time.February {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + int((month+month/8)%2)
}

// unknownFields is how Canton prints a protobuf message's (always empty) set
// of unknown fields.
var unknownFields = json.RawMessage(`{"fields":{}}`)

// Duration is a google.protobuf.Duration as an object {"seconds","nanos"}.
// Output adds Canton's "unknownFields":{"fields":{}}; input needs only
// seconds.
type Duration struct {
	Seconds Int64
	Nanos   Int32
}

// DurationOf converts a Go duration.
func DurationOf(d time.Duration) Duration {
	return Duration{Seconds: Int64(d / time.Second), Nanos: Int32(d % time.Second)}
}

// Std converts to a Go duration (saturating at the bounds of time.Duration).
func (d Duration) Std() time.Duration {
	const maxSec = int64(1<<63-1) / int64(time.Second)
	s := int64(d.Seconds)
	switch {
	case s > maxSec:
		return time.Duration(1<<63 - 1)
	case s < -maxSec:
		return time.Duration(-1 << 63)
	}
	return time.Duration(s)*time.Second + time.Duration(d.Nanos)
}

type durationWire struct {
	Seconds       Int64           `json:"seconds"`
	Nanos         Int32           `json:"nanos"`
	UnknownFields json.RawMessage `json:"unknownFields"`
}

// MarshalJSON writes {"seconds":s,"nanos":n,"unknownFields":{"fields":{}}}.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(durationWire{d.Seconds, d.Nanos, unknownFields})
}

// UnmarshalJSON reads the object form; nanos and unknownFields are optional.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		*d = Duration{}
		return nil
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("duration must be an object {\"seconds\":n,\"nanos\":n}, got %s", truncate(string(b), 40))
	}
	var w durationWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration{w.Seconds, w.Nanos}
	return nil
}

// FieldMask is a google.protobuf.FieldMask as {"paths":[...]}; the paths are
// snake_case proto field names (local_metadata.annotations).
type FieldMask struct {
	Paths []string
}

type fieldMaskWire struct {
	Paths         List[string]    `json:"paths"`
	UnknownFields json.RawMessage `json:"unknownFields"`
}

// MarshalJSON writes {"paths":[...],"unknownFields":{"fields":{}}}.
func (m FieldMask) MarshalJSON() ([]byte, error) {
	return json.Marshal(fieldMaskWire{m.Paths, unknownFields})
}

// UnmarshalJSON reads the object form; unknownFields is ignored.
func (m *FieldMask) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		*m = FieldMask{}
		return nil
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("field mask must be an object {\"paths\":[...]}, got %s", truncate(string(b), 40))
	}
	var w fieldMaskWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("field mask: %w", err)
	}
	m.Paths = w.Paths
	return nil
}

// Bytes is a protobuf bytes field: standard padded Base64 on output; on input
// standard Base64 with padding optional (URL-safe letters and whitespace are
// refused, as Java's basic decoder refuses them).
type Bytes []byte

// MarshalJSON writes padded standard Base64 ("" for nil).
func (b Bytes) MarshalJSON() ([]byte, error) {
	return json.Marshal(base64.StdEncoding.EncodeToString(b))
}

// UnmarshalJSON reads Base64 text or null.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		*b = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("bytes must be a Base64 string, got %s", truncate(string(data), 40))
	}
	d, err := DecodeBase64(s)
	if err != nil {
		return err
	}
	*b = d
	return nil
}

// DecodeBase64 decodes bytes as Canton's JSON API reads them: with Java's
// basic decoder (java.util.Base64.getDecoder in JsSchema's ByteString
// codec). That is the standard alphabet, no line breaks or spaces, padding
// optional but correct when present, and non-zero trailing bits ignored
// ("QR==" is "A", as Java reads it). Every reader of Base64 in ledger uses
// this one rule, so the CLI accepts exactly what the node accepts.
func DecodeBase64(s string) ([]byte, error) {
	// Go's decoders skip \r and \n; Java's refuses them.
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return nil, &Base64Error{Input: s, Offset: i}
	}
	enc := base64.RawStdEncoding
	if strings.IndexByte(s, '=') >= 0 {
		enc = base64.StdEncoding
	}
	d, err := enc.DecodeString(s)
	if err != nil {
		off := len(s)
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			off = int(ce)
		}
		if enc == base64.RawStdEncoding && len(s)%4 == 1 && off == len(s)-1 {
			off = len(s) // a lone last character: too short, not wrong
		}
		return nil, &Base64Error{Input: s, Offset: off}
	}
	return d, nil
}

// Base64Error says where a string stops being Base64. Its text starts as
// Canton's does ("The string is not a valid Base64: …").
type Base64Error struct {
	Input string
	// Offset is the byte offset of the first character that cannot be
	// read; len(Input) when the input ends too early.
	Offset int
}

func (e *Base64Error) Error() string {
	what := "it ends too early"
	if e.Offset < len(e.Input) {
		what = fmt.Sprintf("unexpected %q at offset %d", e.Input[e.Offset], e.Offset)
	}
	return fmt.Sprintf("The string is not a valid Base64: %s (%s)", truncate(e.Input, 40), what)
}

// List is a JSON array that is written as [] (never null) when empty. A plain
// []T converts to it implicitly.
type List[T any] []T

// MarshalJSON writes [] for a nil list.
func (l List[T]) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]T(l))
}

// Map is a JSON object with string keys that is written as {} (never null)
// when empty. Keys that are decimal numbers (eventsById) sort numerically,
// others lexically, so output is deterministic and readable.
type Map[V any] map[string]V

// MarshalJSON writes the object with sorted keys.
func (m Map[V]) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func keyLess(a, b string) bool {
	na, ea := strconv.ParseUint(a, 10, 64)
	nb, eb := strconv.ParseUint(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		if na != nb {
			return na < nb
		}
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a < b
}
