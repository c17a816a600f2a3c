package engine

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
)

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
