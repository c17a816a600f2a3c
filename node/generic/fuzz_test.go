package generic

import (
	"testing"

	"github.com/ledger-cli/ledger/daml/typed"
	"google.golang.org/protobuf/proto"
)

// FuzzValueFromJSON: any input either converts or fails with an error,
// never panics; a converted value renders back to valid JSON that converts
// again to the same value up to numbers turning into text.
func FuzzValueFromJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[1,2,3]`, `{"a":{"b":[null,true,"x"]}}`, `9223372036854775808`, `-0.00`, `1.5e-3`,
		`1e400`, `{"a":1,"a":2}`, `"` + knownParty + `"`, `[[[[[]]]]]`, `{"x":0.1234567890123456789012345678901234567}`,
		`"\ud800"`, `{"":1}`, `12.`, `01`, `{"a":1}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ValueFromJSON(data, "arg", testPartyCheck)
		if err != nil {
			return
		}
		out, err := ValueToJSON(v)
		if err != nil {
			t.Fatalf("converted value does not render: %v", err)
		}
		if _, err := ValueFromJSON(out, "arg", testPartyCheck); err != nil {
			t.Fatalf("rendered JSON %s does not convert: %v", out, err)
		}
		pv, err := typed.ToProtoAsIs(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (proto.MarshalOptions{Deterministic: true}).Marshal(pv); err != nil {
			t.Fatal(err)
		}
		// What execute reads back from a prepared transaction is what
		// prepare wrote.
		back, err := typed.FromProtoAsIs(pv)
		if err != nil {
			t.Fatalf("written value does not read back: %v", err)
		}
		again, err := typed.ToProtoAsIs(back)
		if err != nil || !proto.Equal(again, pv) {
			t.Fatalf("value read back writes %v, not %v (%v)", again, pv, err)
		}
	})
}
