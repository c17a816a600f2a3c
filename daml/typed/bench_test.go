package typed

import (
	"bytes"
	"testing"
)

// BenchmarkRoundTrip decodes a JSON list of 10,000 records of every kind
// of field by its type and writes it back; bytes/s counts the input.
func BenchmarkRoundTrip(b *testing.B) {
	env := testEnv(b)
	p := plan(b, env, tList(tCon("Kinds")))
	var in bytes.Buffer
	in.WriteByte('[')
	for i := 0; i < 10000; i++ {
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString(kindsJSON)
	}
	in.WriteByte(']')
	data := in.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out []byte
	start := processCPU()
	for b.Loop() {
		v, err := p.DecodeJSON(data, DecodeOptions{Path: "arg"})
		if err != nil {
			b.Fatal(err)
		}
		out, err = p.AppendJSON(out[:0], v)
		if err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, len(data))
	if !bytes.Equal(out, data) {
		b.Fatal("round trip changed the JSON")
	}
}
