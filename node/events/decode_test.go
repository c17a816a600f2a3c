package events

import (
	"encoding/json"
	"reflect"
	"testing"
)

var eventsSamples = []string{
	`{"format":1,"updateId":"1220ab","commandId":"c","workflowId":"","synchronizerId":"local::1220","effectiveAtMicros":1795599707304744,` +
		`"nodes":[{"nodeId":0,"kind":"create","contractId":"00aa","templateId":"p:Iou:Iou","packageName":"iou",` +
		`"argument":{"amount":"1.0","list":[1,2,{"x":null}],"b":true},"signatories":["A::1220"],"stakeholders":["A::1220","B::1220"]},` +
		`{"nodeId":1,"kind":"exercise","contractId":"00aa","templateId":"p:Iou:Iou","packageName":"iou","argument":{},` +
		`"signatories":["A::1220"],"stakeholders":["A::1220"],"choice":"Archive","actingParties":["A::1220"],"consuming":true,` +
		`"result":{},"lastDescendant":1,"transient":true}],"externalTransactionHash":"abcd"}`,
	`{"format":1,"nodes":[{"nodeId":0,"kind":"create","contractId":"00aa","templateId":"p:M:T","packageName":"m","argument":{},` +
		`"signatories":["A::1220"],"stakeholders":["A::1220"],"contractKey":{"owner":"A::1220"},"keyHash":"q83vAQ==","witnesses":["A::1220"]},` +
		`{"nodeId":1,"kind":"exercise","templateId":"p:M:T","interfaceId":"q:I:I","witnesses":[]}]}`,
	`{"format":1,"nodes":[{"keyHash":"q83vAQ"}]}`,
	`{"format":1,"nodes":[]}`,
	`{"format":1,"nodes":[{"argument":"text"},{"argument":12.5e3},{"argument":null},{"argument":[]}]}`,
	`{"format":1,"updateId":"caf\u00e9"}`,
	`{"format":1,"format":2}`,
	`{"format":01}`,
	`{"format":1,"nodes":[{"nodeId":4294967296}]}`,
	`{"format":1,"nodes":[{"argument":{"a":1}}}`,
	`{"format":1,"unknown":{}}`,
	` {"format":1} `,
}

// TestFastEventsDecoderAgrees holds fastUnmarshalEvents to json.Unmarshal.
func TestFastEventsDecoderAgrees(t *testing.T) {
	for _, in := range eventsSamples {
		checkEventsDecoders(t, []byte(in))
	}
	var rec recordedTx
	if !fastUnmarshalEvents([]byte(eventsSamples[0]), &rec, nil) {
		t.Error("the form Marshal writes does not take the fast path")
	}
}

func checkEventsDecoders(t *testing.T, in []byte) {
	t.Helper()
	var fast, want recordedTx
	if !fastUnmarshalEvents(in, &fast, &Strings{}) {
		return // the general decoder runs instead
	}
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatalf("%s: the fast decoder accepts what encoding/json refuses: %v", in, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("%s:\nfast    %+v\ngeneral %+v", in, fast, want)
	}
}

func FuzzFastEventsDecoder(f *testing.F) {
	for _, s := range eventsSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkEventsDecoders(t, in) })
}

// BenchmarkFastEventsDecode decodes the stored events of one transaction,
// as an update replay does for every transaction it serves.
func BenchmarkFastEventsDecode(b *testing.B) {
	in := []byte(eventsSamples[0])
	strs := &Strings{}
	for b.Loop() {
		var rec recordedTx
		if !fastUnmarshalEvents(in, &rec, strs) {
			b.Fatal("the fast decoder refused the sample")
		}
	}
}
