package display

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet/review"
)

func rec(fields ...any) *damlpb.Value {
	r := &damlpb.Record{}
	for i := 0; i < len(fields); i += 2 {
		r.Fields = append(r.Fields, &damlpb.RecordField{Label: fields[i].(string), Value: fields[i+1].(*damlpb.Value)})
	}
	return &damlpb.Value{Sum: &damlpb.Value_Record{Record: r}}
}

func party(p string) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Party{Party: p}} }
func num(n string) *damlpb.Value   { return &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: n}} }
func list(vs ...*damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_List{List: &damlpb.List{Elements: vs}}}
}
func some(v *damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Optional{Optional: &damlpb.Optional{Value: v}}}
}
func variant(c string, v *damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Variant{Variant: &damlpb.Variant{Constructor: c, Value: v}}}
}

// A value too wide for one line is laid out one part per line, nested parts
// indented under their label, and no line is wider than the width.
func TestWideValuesExpand(t *testing.T) {
	leg := func(amount string) *damlpb.Value {
		return rec("sender", party(alice), "receiver", party(bob), "amount", num(amount),
			"instrument", rec("admin", party(bob), "id", text("USD")))
	}
	arg := rec(
		"transfer", leg("100.0000000000"),
		"legs", list(leg("1.5000000000"), leg("2.2500000000")),
		"meta", some(variant("Memo", rec("text", text("invoice 2025-08 for consulting, net 30 days"), "ref", text("INV-42")))),
	)
	s := renderText(t, transfer([]string{"0"}, node("0", create(cidA, arg))))
	i := strings.Index(s, "TRANSACTION")
	j := strings.Index(s, "PARTIES")
	got := s[i:j]
	want := `TRANSACTION  Daml-LF 2.1, 1 root node
└── #0 create Iou:Iou 00abcd…0012
      signatories  alice::1220a1a2…bebf
      stakeholders alice::1220a1a2…bebf, bob::1220c0c1…dedf
      package      iou 6d7f0a2b…9e1f
      argument
        transfer:
          sender: alice::1220a1a2…bebf
          receiver: bob::1220c0c1…dedf
          amount: 100.0000000000
          instrument: {admin: bob::1220c0c1…dedf, id: "USD"}
        legs: 2 elements
          [0]:
            sender: alice::1220a1a2…bebf
            receiver: bob::1220c0c1…dedf
            amount: 1.5000000000
            instrument: {admin: bob::1220c0c1…dedf, id: "USD"}
          [1]:
            sender: alice::1220a1a2…bebf
            receiver: bob::1220c0c1…dedf
            amount: 2.2500000000
            instrument: {admin: bob::1220c0c1…dedf, id: "USD"}
        meta: Some Memo
          text: "invoice 2025-08 for consulting, net 30 days"
          ref: "INV-42"

`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestNumericsExactlyAsWritten: the signer sees the numeric text the
// transaction carries, trailing zeros included: 100.00 is not 100.0 (issue
// 12, item 32).
func TestNumericsExactlyAsWritten(t *testing.T) {
	out := renderText(t, transfer([]string{"0"}, node("0", create(cidA, rec("owner", party(alice), "amount", num("100.00"), "rate", num("0.0000000000"))))))
	if !strings.Contains(out, "amount: 100.00\n") || !strings.Contains(out, "rate: 0.0000000000\n") {
		t.Errorf("numerics changed:\n%s", out)
	}
}

// renderText is RenderText of a transaction at 80 columns.
func renderText(t *testing.T, pt *damlpb.PreparedTransaction) string {
	t.Helper()
	r, err := review.Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := RenderText(&out, r, TextOptions{Width: 80}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
