package engine

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
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
		if _, err := MarshalValue(v); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzExecute feeds arbitrary prepared-transaction bytes (seeded with real
// ones) to Execute: it must answer with an error or an outcome, never panic,
// and never accept bytes nobody signed.
func FuzzExecute(f *testing.F) {
	fx := newFixture(f)
	ctx := context.Background()
	cid := fx.createContract(iouTemplate, iouArgs(fx.alice, fx.bob))
	for _, cmd := range []ledgerapi.Command{
		createCmd(iouTemplate, iouArgs(fx.alice, fx.bob)),
		exerciseCmd(iouTemplate, cid, "Transfer", `{"to":"`+fx.bob+`","n":[1,null]}`),
	} {
		for _, v := range []ledgerapi.HashingSchemeVersion{ledgerapi.HashingSchemeVersionV2, ledgerapi.HashingSchemeVersionV3} {
			req := prepareReq(fx.alice, cmd)
			req.HashingSchemeVersion = v
			p, err := fx.eng.Prepare(ctx, req, "user1")
			if err != nil {
				f.Fatal(err)
			}
			f.Add(p.Bytes, v == ledgerapi.HashingSchemeVersionV3)
		}
	}
	f.Add([]byte{}, false)
	f.Add([]byte{0x0a, 0x00, 0x12, 0x00}, true)
	f.Fuzz(func(t *testing.T, data []byte, v3 bool) {
		scheme := ledgerapi.HashingSchemeVersionV2
		if v3 {
			scheme = ledgerapi.HashingSchemeVersionV3
		}
		// Sign whatever the bytes hash to, when they hash at all, so the
		// fuzzer also reaches the checks after the signature.
		req := ledgerapi.ExecuteSubmissionRequest{PreparedTransaction: data, SubmissionID: "s", HashingSchemeVersion: scheme}
		s, _ := parseScheme(scheme, true)
		if sum, err := hashing.Sum(data, s); err == nil {
			req = executeReq(&Prepared{Bytes: data, Hash: sum}, fx.alice, fx.aliceK)
			req.HashingSchemeVersion = scheme
		}
		o, err := fx.eng.Execute(ctx, req, "user1", fx.ledger.lookupKeys)
		if err == nil && o == nil {
			t.Fatal("no error and no outcome")
		}
	})
}
