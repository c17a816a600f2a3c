package ledgerapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// generalResponse decodes with the general decoder only.
type generalResponse CompletionStreamResponse

func (g *generalResponse) UnmarshalJSON(b []byte) error {
	return (*CompletionStreamResponse)(g).unmarshalGeneral(b)
}

// generalDecode is json.Unmarshal into []CompletionStreamResponse without
// the fast decoder.
func generalDecode(data []byte) ([]CompletionStreamResponse, error) {
	var g []generalResponse
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, nil
	}
	out := make([]CompletionStreamResponse, len(g))
	for i := range g {
		out[i] = CompletionStreamResponse(g[i])
	}
	return out, nil
}

// checkFastAgrees: whatever the fast decoder accepts, the general decoder
// accepts with the same result; element by element too.
func checkFastAgrees(t *testing.T, data []byte) (fastOK bool) {
	t.Helper()
	fast, ok := fastDecodeCompletions(data)
	if ok {
		slow, err := generalDecode(data)
		if err != nil {
			t.Fatalf("fast decoder accepted what the general one refuses (%v):\n%s", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("decoders disagree on\n%s\nfast:    %s\ngeneral: %s", data, dump(fast), dump(slow))
		}
	}
	// the parallel decoder, on inputs of any size
	for _, parts := range []int{2, 3} {
		if par, ok := fastDecodeCompletionsParallel(data, parts); ok {
			slow, err := generalDecode(data)
			if err != nil {
				t.Fatalf("parallel decoder accepted what the general one refuses (%v):\n%s", err, data)
			}
			if !reflect.DeepEqual(par, slow) {
				t.Fatalf("parallel and general decoders disagree on\n%s\nparallel: %s\ngeneral:  %s", data, dump(par), dump(slow))
			}
		}
	}
	var fastEl CompletionStreamResponse
	if fastDecodeCompletionResponse(data, &fastEl) {
		var slowEl CompletionStreamResponse
		if err := slowEl.unmarshalGeneral(data); err != nil {
			t.Fatalf("fast element decoder accepted what the general one refuses (%v):\n%s", err, data)
		}
		if !reflect.DeepEqual(fastEl, slowEl) {
			t.Fatalf("element decoders disagree on\n%s\nfast:    %s\ngeneral: %s", data, dump(fastEl), dump(slowEl))
		}
	}
	return ok
}

func dump(v any) string {
	return strings.ReplaceAll(fmt.Sprintf("%#v", v), "ledgerapi.", "")
}

// nodeCompletions are completions in every form the node writes.
func nodeCompletions() []CompletionStreamResponse {
	tp, ts := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v"
	d := DurationOf(604800*time.Second + 7)
	off := int64(42)
	rej := NewError(CodeDuplicateCommand, "dup <&> \"quoted\" ü", map[string]string{"completion_offset": "3"}).WithCorrelationID("sub")
	rt := NewTimestamp(time.Unix(1700000000, 123456000))
	return []CompletionStreamResponse{
		{OffsetCheckpoint: &OffsetCheckpoint{Offset: 5, SynchronizerTimes: List[SynchronizerTime]{{SynchronizerID: "s::1", RecordTime: rt}}}},
		{Completion: &Completion{CommandID: "c-1", Status: StatusOK(), UpdateID: "1220ab", UserID: "alice", ActAs: List[string]{"A::1220", "B::1220"},
			SubmissionID: "s", DeduplicationPeriod: DeduplicationPeriod{Duration: &d},
			TraceContext: &TraceContext{Traceparent: &tp}, Offset: 9,
			SynchronizerTime: SynchronizerTime{SynchronizerID: "local::1220", RecordTime: rt}, PaidTrafficCost: 2048}},
		{Completion: &Completion{CommandID: "ü<weird>\"\\", Status: rej.Status(), ActAs: List[string]{},
			DeduplicationPeriod: DeduplicationPeriod{Offset: &off},
			TraceContext:        &TraceContext{Traceparent: &tp, Tracestate: &ts},
			SynchronizerTime:    SynchronizerTime{RecordTime: NewTimestamp(time.Unix(1700000000, 0))}, Offset: 9223372036854775807}},
		{Completion: &Completion{Status: nil, ActAs: List[string]{"x\n"}}},
		{},
	}
}

// TestFastCompletionDecoderAgrees runs the fast decoder against the general
// one on the node's own output (which it must take in one pass) and on
// inputs built to be awkward (which it must either decode identically or
// leave to the general decoder).
func TestFastCompletionDecoderAgrees(t *testing.T) {
	page, err := json.Marshal(nodeCompletions())
	if err != nil {
		t.Fatal(err)
	}
	if !checkFastAgrees(t, page) {
		t.Errorf("the fast decoder gave up on the node's own output:\n%s", page)
	}
	for _, el := range nodeCompletions() {
		b, _ := json.Marshal(el)
		var got CompletionStreamResponse
		if !fastDecodeCompletionResponse(b, &got) {
			t.Errorf("the fast element decoder gave up on %s", b)
		}
		checkFastAgrees(t, b)
	}
	if _, ok := fastDecodeCompletionsParallel(page, 3); !ok {
		t.Errorf("the parallel decoder gave up on the node's own output:\n%s", page)
	}
	golden, err := os.ReadFile("testdata/golden/completions.json")
	if err != nil {
		t.Fatal(err)
	}
	if !checkFastAgrees(t, golden) {
		t.Errorf("the fast decoder gave up on testdata/golden/completions.json")
	}

	const c = `{"commandId":"c","status":{"code":0,"message":"","details":[]},"offset":3}`
	wrap := func(inner string) string {
		return `[{"completionResponse":{"Completion":{"value":` + inner + `}}}]`
	}
	awkward := []string{
		`[]`, ` [ ] `, `null`, `[null]`, `[{}]`, `[{"completionResponse":{}}]`, `[{"completionResponse":null}]`,
		`[{"completionResponse":{"Empty":{"x":[1,{"y":null}]}}}]`,
		`[{"completionResponse":{"Empty":{},"Completion":{"value":{}}}}]`,
		`[{"completionResponse":{"Completion":{"value":{}},"OffsetCheckpoint":{"value":{}}}}]`,
		`[{"completionResponse":{"Completion":{"value":{}},"Completion":{"value":{"offset":2}}}}]`,
		`[{"CompletionResponse":{"Completion":{"value":{}}}}]`,
		`[{"completionResponse":{"Completion":{"value":{}}},"extra":1}]`,
		`[{"completionResponse":{"Completion":{"Value":{}}}}]`,
		`[{"completionResponse":{"Completion":{"value":[]}}}]`,
		`[{"completionResponse":{"Completion":{"value":null}}}]`,
		`[{"completionResponse":{"Completion":{}}}]`,
		`[{"completionResponse":{"Completion":null}}]`,
		`[{"completionResponse":{"OffsetCheckpoint":{"value":{"offset":"7","synchronizerTimes":[null,{"synchronizerId":null,"recordTime":null}]}}}}]`,
		wrap(c), wrap(`{"commandId":"c","commandId":"d"}`), wrap(`{"CommandId":"c"}`), wrap(`{"commandId":7}`),
		wrap(`{"commandId":null,"updateId":null,"status":null,"actAs":null,"traceContext":null,"synchronizerTime":null,"deduplicationPeriod":null}`),
		wrap(`{"commandId":"\u00fc\n\"","userId":"\ud800"}`), wrap(`{"commandId":"` + "\xff\x7f" + `"}`),
		wrap(`{"commandId":"a\x01"}`), wrap(`{"commandId":"a\q"}`), wrap(`{"commandId":"a`),
		wrap(`{"offset":1.0}`), wrap(`{"offset":1e3}`), wrap(`{"offset":-0}`), wrap(`{"offset":01}`), wrap(`{"offset":+1}`),
		wrap(`{"offset":"12"}`), wrap(`{"offset":" 12"}`), wrap(`{"offset":true}`), wrap(`{"offset":1.5}`),
		wrap(`{"offset":9223372036854775807}`), wrap(`{"offset":9223372036854775808}`), wrap(`{"offset":-9223372036854775808}`),
		wrap(`{"offset":999999999999999999}`), wrap(`{"offset":-}`), wrap(`{"offset":1.}`), wrap(`{"offset":1e}`),
		wrap(`{"status":{"code":2147483648}}`), wrap(`{"status":{"code":2147483647,"message":"m","details":null}}`),
		wrap(`{"status":{"code":1,"details":[{"typeUrl":"t","value":"AAE=","valueDecoded":{"a":1}}]}}`),
		wrap(`{"status":{"code":1,"details":[{"typeUrl":"t","value":"not base64!"}]}}`),
		wrap(`{"status":{"code":1,"details":[1]}}`), wrap(`{"status":[]}`),
		wrap(`{"actAs":["a",null,"b"]}`), wrap(`{"actAs":["a",1]}`), wrap(`{"actAs":"a"}`), wrap(`{"actAs":[]}`),
		wrap(`{"deduplicationPeriod":{}}`), wrap(`{"deduplicationPeriod":{"Empty":{}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationOffset":{"value":"5"}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationOffset":{"value":null}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationOffset":{}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationOffset":null}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationDuration":{"value":{"seconds":1}}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationDuration":{"value":{"seconds":1,"nanos":5,"unknownFields":{"fields":{"\u0041":[true,false,null,-1.5e+3]}}}}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationDuration":{"value":null}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationDuration":{"value":{"seconds":1}},"Empty":{}}}`),
		wrap(`{"deduplicationPeriod":{"DeduplicationTime":{"value":1}}}`),
		wrap(`{"traceContext":{"traceparent":null,"tracestate":"x"}}`), wrap(`{"traceContext":{}}`), wrap(`{"traceContext":{"other":1}}`),
		wrap(`{"synchronizerTime":{"recordTime":"2026-07-24T12:00:00.1234567+02:00"}}`),
		wrap(`{"synchronizerTime":{"recordTime":"soon"}}`), wrap(`{"synchronizerTime":{"recordTime":5}}`),
		wrap(`{"synchronizerTime":{"recordTime":"10000-01-01T00:00:00Z"}}`),
		wrap(" {\t\"commandId\" :\n\"c\" , \"offset\"\r: 4 } "),
		`[{"completionResponse":{"Completion":{"value":{}}}},]`, `[{"completionResponse":{"Completion":{"value":{}}}}] x`,
		`[{"completionResponse":{"Completion":{"value":{}}}}`, `[{"completionResponse":{"Completion":{"value":{}}}} {}]`,
		`[{"completionResponse":{"Empty":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}]`,
		`[{"completionResponse":{"Empty":{"a":tru}}}]`, `[{"completionResponse":{"Empty":{"a\z":1}}}]`,
		`[{"completionResponse":{}},{"completionResponse":{}} ,{"completionResponse":{}}, {"completionResponse":{}}]`,
		wrap(`{"commandId":"x\",{\"completionResponse\":{}}"}`),
		`[{"completionResponse":{}},{"completionResponse":{}},]`, `[,{"completionResponse":{}},{"completionResponse":{}}]`,
		`[{"completionResponse":{}},{"completionResponse":{}}`, `{"completionResponse":{}},{"completionResponse":{}}]`,
		`[{"completionResponse":{}},{"completionResponse":{}}]]`, `[{"completionResponse":{}},,{"completionResponse":{}}]`,
	}
	for _, in := range awkward {
		checkFastAgrees(t, []byte(in))
		// each element alone, as a websocket frame
		if strings.HasPrefix(in, "[") && strings.HasSuffix(in, "]") {
			checkFastAgrees(t, []byte(in[1:len(in)-1]))
		}
	}
}

// TestFastCompletionDecoderCorpus runs the agreement check on the stored
// corpus of FuzzDecodeCompletions and FuzzFastCompletionDecoder.
func TestFastCompletionDecoderCorpus(t *testing.T) {
	for _, dir := range []string{"testdata/fuzz/FuzzDecodeCompletions", "testdata/fuzz/FuzzFastCompletionDecoder"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, lit, ok := strings.Cut(string(b), "[]byte(")
			if !ok {
				continue
			}
			data, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			checkFastAgrees(t, []byte(data))
		}
	}
}

func FuzzFastCompletionDecoder(f *testing.F) {
	addSeeds(f, "testdata/golden/completion*.json", "testdata/lenient/completion_*.json")
	if page, err := json.Marshal(nodeCompletions()); err == nil {
		f.Add(page)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastAgrees(t, data) })
}

// BenchmarkDecodeCompletions decodes a page of 1,000 completions as the node
// writes them, with DecodeCompletions and with encoding/json.
func BenchmarkDecodeCompletions(b *testing.B) {
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	els := make([]CompletionStreamResponse, 1000)
	for i := range els {
		d := DurationOf(7 * 24 * time.Hour)
		els[i].Completion = &Completion{CommandID: fmt.Sprintf("cmd-%d", i), Status: StatusOK(), UpdateID: fmt.Sprintf("1220%060x", i),
			UserID: "bench-user", ActAs: List[string]{"Alice::1220aabbccddeeff00112233445566778899aabbccddeeff0011223344556677"},
			SubmissionID: fmt.Sprintf("%032x", i), DeduplicationPeriod: DeduplicationPeriod{Duration: &d},
			TraceContext: &TraceContext{Traceparent: &tp}, Offset: Int64(1000 + i),
			SynchronizerTime: SynchronizerTime{SynchronizerID: "local::1220aabbccddeeff00112233445566778899aabbccddeeff0011223344556677",
				RecordTime: NewTimestamp(time.Unix(1700000000, int64(i)*1000))},
			PaidTrafficCost: 2048}
	}
	page, err := json.Marshal(els)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, decode func([]byte) ([]CompletionStreamResponse, error)) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			out, err := decode(page)
			if err != nil || len(out) != len(els) {
				b.Fatal(len(out), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(els)), "ns/completion")
	}
	b.Run("DecodeCompletions", func(b *testing.B) { run(b, DecodeCompletions) })
	b.Run("encoding-json", func(b *testing.B) {
		run(b, func(p []byte) ([]CompletionStreamResponse, error) {
			var out []CompletionStreamResponse
			err := json.Unmarshal(p, &out)
			return out, err
		})
	})
	b.Run("general", func(b *testing.B) { run(b, generalDecode) })
}
