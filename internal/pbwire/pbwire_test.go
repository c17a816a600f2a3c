package pbwire

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestNext(t *testing.T) {
	long := bytes.Repeat([]byte{'x'}, 300)
	group := protowire.AppendTag(nil, 5, protowire.StartGroupType)
	group = protowire.AppendTag(group, 1, protowire.VarintType)
	group = protowire.AppendVarint(group, 7)
	group = protowire.AppendTag(group, 5, protowire.EndGroupType)
	tests := []struct {
		name string
		in   []byte
		want Field
		err  string
	}{
		{"varint, fast path", []byte{0x08, 0x96, 0x01}, Field{Num: 1, Type: protowire.VarintType, Int: 150}, ""},
		{"bytes, fast path", []byte{0x12, 0x02, 'h', 'i'}, Field{Num: 2, Type: protowire.BytesType, Bytes: []byte("hi")}, ""},
		{"bytes, three-byte length", protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), append(long, long...)),
			Field{Num: 2, Type: protowire.BytesType, Bytes: append(long, long...)}, ""},
		{"two-byte tag", protowire.AppendVarint(protowire.AppendTag(nil, 1000, protowire.VarintType), 3), Field{Num: 1000, Type: protowire.VarintType, Int: 3}, ""},
		{"fixed64", protowire.AppendFixed64(protowire.AppendTag(nil, 3, protowire.Fixed64Type), 9), Field{Num: 3, Type: protowire.Fixed64Type, Int: 9}, ""},
		{"group, skipped whole", group, Field{Num: 5, Type: protowire.StartGroupType, Bytes: group[1:]}, ""},
		{"length past the end", []byte{0x12, 0x05, 'h'}, Field{}, "field 2: malformed value"},
		{"truncated tag", []byte{0x80}, Field{}, "malformed field tag"},
		{"field number above the maximum", protowire.AppendVarint(nil, uint64(protowire.MaxValidNumber+1)<<3), Field{}, "above the protobuf maximum"},
		{"lone end group", protowire.AppendTag(nil, 5, protowire.EndGroupType), Field{}, "field 5"},
	}
	for _, tt := range tests {
		got, rest, err := Next(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || len(rest) != 0 || got.Num != tt.want.Num || got.Type != tt.want.Type || got.Int != tt.want.Int || !bytes.Equal(got.Bytes, tt.want.Bytes) {
			t.Errorf("%s: %+v rest %d err %v, want %+v", tt.name, got, len(rest), err, tt.want)
		}
	}
}

// The inlinable fast paths agree with Next wherever they answer.
func FuzzFastPathsAgree(f *testing.F) {
	f.Add([]byte{0x12, 0x02, 'h', 'i'})
	f.Add([]byte{0x08, 0x96, 0x01})
	f.Add([]byte{0x12, 0x81, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		next, rest, err := Next(b)
		if tag, payload, lrest, ok := LenField(b); ok && tag >= 8 {
			if err != nil || next.Num != protowire.Number(tag>>3) || next.Type != protowire.BytesType || !bytes.Equal(next.Bytes, payload) || len(rest) != len(lrest) {
				t.Fatalf("LenField %x: %d %x, Next %+v %v", b, tag, payload, next, err)
			}
		}
		if num, typ, v, n := Header(b); n > 0 {
			if typ == protowire.VarintType && (err != nil || next.Num != num || next.Int != v) {
				t.Fatalf("Header %x: %d %d %d, Next %+v %v", b, num, typ, v, next, err)
			}
			if typ == protowire.BytesType && uint64(len(b)-n) >= v && (err != nil || len(next.Bytes) != int(v)) {
				t.Fatalf("Header %x: %d %d %d, Next %+v %v", b, num, typ, v, next, err)
			}
		}
	})
}
