package archive

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/internal/pbwire"
)

// field is one decoded protobuf field, as the wire reader shared with
// hashing gives it.
type field = pbwire.Field

// nextField decodes the field at the start of b (pbwire.Next).
func nextField(b []byte) (field, []byte, error) { return pbwire.Next(b) }

func unknownField(msg string, f field) error {
	return fmt.Errorf("%s: unknown field %d", msg, f.Num)
}

// countFields counts the fields of message b by number, for numbers below
// len(counts), so that repeated fields can be collected into slices of the
// right size. It stops at the first malformed field, which the caller's own
// pass reports.
func countFields(b []byte, counts []int) {
	for len(b) > 0 {
		if num, typ, v, n := pbwire.Header(b); n > 0 {
			skip := -1
			switch {
			case typ == protowire.VarintType:
				skip = n
			case typ == protowire.BytesType && uint64(len(b)-n) >= v:
				skip = n + int(v)
			}
			if skip > 0 {
				b = b[skip:]
				if int(num) < len(counts) {
					counts[num]++
				}
				continue
			}
		}
		f, rest, err := nextField(b)
		if err != nil {
			return
		}
		b = rest
		if int(f.Num) < len(counts) {
			counts[f.Num]++
		}
	}
}

// in names the protobuf message an error was found in: "Expr: …".
func in(message string, err error) error { return fmt.Errorf("%s: %w", message, err) }

// msg is a small message split into its fields by number (1 to 7, the last
// occurrence of a field winning, as protobuf has it).
type msg struct {
	name string
	f    [8]field
	has  [8]bool
}

// split splits b, a message called name with no repeated field, into m;
// fields above 7 are unknown.
func split(b []byte, name string, m *msg) error {
	_, err := splitRep(b, name, 0, m, nil)
	return err
}

// splitRep splits b like split, and appends to reps the values of its
// repeated field, which must be length-delimited. A caller passes a small
// array of its own as reps, so that short lists cost no allocation.
func splitRep(b []byte, name string, repeated protowire.Number, m *msg, reps [][]byte) ([][]byte, error) {
	m.name = name
	for len(b) > 0 {
		// The common case without building a field: a one-byte tag and a
		// value or length of one or two bytes.
		if num, typ, v, n := pbwire.Header(b); n > 0 {
			switch {
			case typ == protowire.VarintType && num < 8 && num != repeated:
				m.f[num] = field{Num: num, Type: typ, Int: v}
				m.has[num] = true
				b = b[n:]
				continue
			case typ == protowire.BytesType && uint64(len(b)-n) >= v && (num < 8 || num == repeated):
				end := n + int(v)
				if num == repeated {
					reps = append(reps, b[n:end])
				} else {
					m.f[num] = field{Num: num, Type: typ, Bytes: b[n:end]}
					m.has[num] = true
				}
				b = b[end:]
				continue
			}
		}
		f, rest, err := nextField(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b = rest
		switch {
		case f.Num == repeated:
			v, err := f.Delimited()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			reps = append(reps, v)
		case f.Num >= 1 && f.Num < 8:
			m.f[f.Num], m.has[f.Num] = f, true
		default:
			return nil, unknownField(name, f)
		}
	}
	return reps, nil
}

// int32 returns field n, 0 when absent.
func (m *msg) int32(n int) (int32, error) {
	if !m.has[n] {
		return 0, nil
	}
	v, err := m.f[n].Int32()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", m.name, err)
	}
	return v, nil
}

// bytes returns the length-delimited field n, which must be present.
func (m *msg) bytes(n int, what string) ([]byte, error) {
	if !m.has[n] {
		return nil, fmt.Errorf("%s: no %s", m.name, what)
	}
	v, err := m.f[n].Delimited()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return v, nil
}
