package tx

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestDottedAgreesWithSplit pins the typed encoder's dotted names to the
// plain rule (the count of segments, then each length-prefixed), with
// empty segments at either end and in the middle.
func TestDottedAgreesWithSplit(t *testing.T) {
	for _, name := range []string{"", "A", "Splice.AmuletRules", "A.B.C", "A..B", ".A", "A.", "."} {
		var e typedEncoder
		e.dotted(name)
		segs := strings.Split(name, ".")
		want := binary.BigEndian.AppendUint32(nil, uint32(len(segs)))
		for _, s := range segs {
			want = binary.BigEndian.AppendUint32(want, uint32(len(s)))
			want = append(want, s...)
		}
		if !bytes.Equal(e.buf, want) {
			t.Errorf("dotted(%q) = %x, want %x", name, e.buf, want)
		}
	}
}

// BenchmarkDotted writes a module and an entity name as every record of a
// hashed contract does.
func BenchmarkDotted(b *testing.B) {
	e := typedEncoder{buf: make([]byte, 0, 256)}
	b.ReportAllocs()
	for b.Loop() {
		e.buf = e.buf[:0]
		e.dotted("Splice.Api.Token.HoldingV1")
		e.dotted("Holding")
	}
}
