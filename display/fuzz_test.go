package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet"
)

// FuzzReview: whatever bytes a node sends as a prepared transaction, the
// review pipeline (decode, recompute the hash, review, render as text and
// as JSON) answers with a review or an error, never a panic, and a review
// with warnings shows them.
func FuzzReview(f *testing.F) {
	for _, c := range goldenCases {
		raw, _ := loadVector(f, c.file)
		f.Add(raw)
	}
	// A Canton Coin shaped transaction: an OpenMiningRound input contract.
	pt := transfer([]string{"0"}, node("0", create(cidA, text("x"))))
	ts := func(t time.Time) *damlpb.Value {
		return &damlpb.Value{Sum: &damlpb.Value_Timestamp{Timestamp: t.UnixMicro()}}
	}
	arg := &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: []*damlpb.RecordField{
		{Label: "dso", Value: &damlpb.Value{Sum: &damlpb.Value_Party{Party: alice}}},
		{Label: "round", Value: &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: []*damlpb.RecordField{
			{Label: "number", Value: &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: 7}}}}}}}},
		{Label: "amuletPrice", Value: &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: "0.0050000000"}}},
		{Label: "opensAt", Value: ts(goldenNow.Add(-5 * time.Minute))},
		{Label: "targetClosesAt", Value: ts(goldenNow.Add(5 * time.Minute))},
	}}}}
	pt.Metadata.InputContracts = []*damlpb.Metadata_InputContract{{Contract: &damlpb.Metadata_InputContract_V1{V1: &damlpb.Create{
		LfVersion: "2.1", ContractId: cidA, PackageName: "splice-amulet",
		TemplateId: &damlpb.Identifier{PackageId: "ab", ModuleName: "Splice.Round", EntityName: "OpenMiningRound"},
		Argument:   arg, Signatories: []string{alice}, Stakeholders: []string{alice}}}}}
	if b, err := proto.Marshal(pt); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		env := &wallet.Envelope{PreparedTransaction: base64.StdEncoding.EncodeToString(raw), Form: wallet.FormBase64}
		for _, scheme := range []hashing.Scheme{hashing.V2, hashing.V3} {
			rv, err := wallet.ReviewEnvelope(env, scheme, goldenNow)
			if err != nil || rv.Review == nil {
				continue
			}
			var out bytes.Buffer
			if err := RenderText(&out, rv.Review, TextOptions{Width: 80}); err != nil {
				t.Fatalf("render: %v", err)
			}
			if len(rv.Review.Warnings) > 0 && !bytes.Contains(out.Bytes(), []byte("WARNINGS")) {
				t.Fatalf("%d warnings, no WARNINGS section:\n%s", len(rv.Review.Warnings), out.String())
			}
			if _, err := json.Marshal(rv.Review); err != nil {
				t.Fatalf("json: %v", err)
			}
		}
	})
}
