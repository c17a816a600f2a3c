package typed

import (
	"bytes"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// FuzzDecodeJSON feeds arbitrary JSON to the decoder of a record with every
// kind of field, of a recursive variant and of a nested optional. Decoding
// must never panic, and a value it accepts must write JSON that decodes to
// the same value and writes the same JSON again.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{kindsJSON, `{}`, `[]`, `null`, `{"tag":"Node","value":{"label":"1","kids":[]}}`,
		`[[["1"]]]`, `{"item":"1","maybe":null}`, `"\ud83d\ude00"`, `1e400`, `{"u":1,"b":false}`} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
	}
	env := testEnv(f)
	plans := []*Plan{
		plan(f, env, tCon("Kinds")),
		plan(f, env, tCon("Tree")),
		plan(f, env, tOpt(tOpt(tOpt(tCon("Box", tOpt(tNum(3))))))),
		plan(f, env, bt(lf.BuiltinGenMap, tCon("Shape"), tList(tCon("Color")))),
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		p := plans[int(which)%len(plans)]
		v, err := p.DecodeJSON(data, DecodeOptions{Path: "arg"})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		out, err := p.EncodeJSON(v)
		if err != nil {
			t.Fatalf("encode %v: %v", v, err)
		}
		v2, err := p.DecodeJSON(out, DecodeOptions{})
		if err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		if eq, err := value.Equal(v, v2); err != nil || !eq {
			t.Fatalf("re-decoded %v, want %v", v2, v)
		}
		out2, _ := p.EncodeJSON(v2)
		if !bytes.Equal(out, out2) {
			t.Fatalf("JSON not stable: %s then %s", out, out2)
		}
		if _, err := ToProto(v); err != nil {
			t.Fatalf("ToProto: %v", err)
		}
	})
}
