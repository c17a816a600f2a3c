package review

import (
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

const (
	alice = "alice::1220a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	bob   = "bob::1220c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
)

func tmpl(module, entity string) *damlpb.Identifier {
	return &damlpb.Identifier{PackageId: "6d7f0a2b4c1e3d5f7a9b0c8d6e4f2a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f", ModuleName: module, EntityName: entity}
}

func text(s string) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Text{Text: s}} }

func node(id string, n *damlpb.Node) *damlpb.DamlTransaction_Node {
	return &damlpb.DamlTransaction_Node{NodeId: id, VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: n}}
}

func create(cid string, arg *damlpb.Value) *damlpb.Node {
	return &damlpb.Node{NodeType: &damlpb.Node_Create{Create: &damlpb.Create{
		LfVersion: "2.1", ContractId: cid, PackageName: "iou", TemplateId: tmpl("Iou", "Iou"),
		Argument: arg, Signatories: []string{alice}, Stakeholders: []string{alice, bob},
	}}}
}

func exercise(cid, choice string, consuming bool, children ...string) *damlpb.Node {
	return &damlpb.Node{NodeType: &damlpb.Node_Exercise{Exercise: &damlpb.Exercise{
		LfVersion: "2.1", ContractId: cid, PackageName: "iou", TemplateId: tmpl("Iou", "Iou"),
		Signatories: []string{alice}, Stakeholders: []string{alice, bob}, ActingParties: []string{alice},
		ChoiceId: choice, ChosenValue: text("x"), Consuming: consuming, Children: children,
	}}}
}

func transfer(roots []string, nodes ...*damlpb.DamlTransaction_Node) *damlpb.PreparedTransaction {
	mrt := uint64(time.Date(2025, 8, 7, 3, 0, 0, 0, time.UTC).UnixMicro())
	return &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{Version: "2.1", Roots: roots, Nodes: nodes},
		Metadata: &damlpb.Metadata{
			SubmitterInfo:   &damlpb.Metadata_SubmitterInfo{ActAs: []string{alice}, CommandId: "cmd-1"},
			SynchronizerId:  "sync::1220ff",
			TransactionUuid: "a328162e-728e-4e05-ac78-b34f070983ba",
			PreparationTime: uint64(time.Date(2025, 8, 7, 2, 0, 0, 0, time.UTC).UnixMicro()),
			MaxRecordTime:   &mrt,
		},
	}
}

var (
	cidA = "00abcd" + strings.Repeat("0", 56) + "0012"
	cidB = "00abcd" + strings.Repeat("9", 56) + "0012"
	cidC = "0077" + strings.Repeat("7", 60) + "34"
)

func TestSummaryLine(t *testing.T) {
	pt := transfer([]string{"0"},
		node("0", exercise(cidA, "Transfer", true, "1", "2")),
		node("1", create(cidB, text("new"))),
		node("2", create(cidC, text("new"))),
	)
	r, err := Summarize(pt, nil, time.Date(2025, 8, 7, 2, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	// cidA and cidB share their first 6 and last 4 digits, so both are
	// shown longer.
	want := "exercise Transfer on Iou 00abcd00…000012 as alice::1220a1a2…bebf; creates 2 contracts, archives 1"
	if r.Summary != want {
		t.Errorf("summary\n got: %s\nwant: %s", r.Summary, want)
	}
	if len(r.Effects.Created) != 2 || len(r.Effects.Archived) != 1 || r.Effects.Archived[0].ContractID != cidA {
		t.Errorf("effects = %+v", r.Effects)
	}
	if mrt := r.Times.MaxRecordTime; mrt == nil || mrt.Expired || mrt.SecondsLeft != 1800 || mrt.TimeLeft != "30m00s left" || mrt.Signed {
		t.Errorf("max record time = %+v, want 30 minutes left, unsigned (no scheme)", mrt)
	}
}

func TestRolledBackNodesHaveNoEffect(t *testing.T) {
	pt := transfer([]string{"0", "1"},
		node("0", create(cidA, text("kept"))),
		node("1", &damlpb.Node{NodeType: &damlpb.Node_Rollback{Rollback: &damlpb.Rollback{Children: []string{"2"}}}}),
		node("2", exercise(cidC, "Archive", true)),
	)
	r, err := Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Effects.Created) != 1 || len(r.Effects.Archived) != 0 || r.Effects.RolledBack != 1 {
		t.Errorf("effects = %+v, want 1 created, none archived, 1 rolled back", r.Effects)
	}
	if !r.Nodes[1].Children[0].RolledBack {
		t.Errorf("the exercise under the rollback is not marked rolled back")
	}
	if !strings.HasSuffix(r.Summary, "creates 1 contract, archives none (1 node rolled back, without effect)") {
		t.Errorf("summary = %s", r.Summary)
	}
}

func TestMalformedTrees(t *testing.T) {
	cases := []struct {
		name string
		pt   *damlpb.PreparedTransaction
		want string
	}{
		{"cycle", transfer([]string{"0"}, node("0", exercise(cidA, "Loop", false, "1")), node("1", exercise(cidA, "Loop", false, "0"))), "contains itself"},
		{"dangling child", transfer([]string{"0"}, node("0", exercise(cidA, "X", false, "9"))), `names node "9"`},
		{"dangling root", transfer([]string{"5"}, node("0", create(cidA, text("x")))), `names node "5"`},
		{"duplicate id", transfer([]string{"0"}, node("0", create(cidA, text("x"))), node("0", create(cidB, text("x")))), "appears twice"},
		{"unset value", transfer([]string{"0"}, node("0", create(cidA, &damlpb.Value{}))), "no variant set"},
		{"no node type", transfer([]string{"0"}, node("0", &damlpb.Node{})), "no node type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Summarize(c.pt, nil, time.Unix(0, 0))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := Summarize(&damlpb.PreparedTransaction{}, nil, time.Unix(0, 0)); err == nil {
		t.Errorf("an empty prepared transaction was accepted")
	}
}

func TestUnreachableNodesAreReported(t *testing.T) {
	pt := transfer([]string{"0"}, node("0", create(cidA, text("x"))), node("7", create(cidB, text("hidden"))))
	r, err := Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !containsWarning(r, "node(s) 7 are not reachable") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

func containsWarning(r *Review, part string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

func TestShortFormsAreUnique(t *testing.T) {
	r := &Review{Submitter: Submitter{ActAs: []string{
		"a::1220aaaaaaaa0000000000000000000000000000000000000000000000000000000001",
		"a::1220aaaaaaaa1111111111111111111111111111111111111111111111111111110001",
		"b::1220bbbb",
	}}}
	nm := NewNames(r, false)
	seen := map[string]string{}
	for _, p := range r.Submitter.ActAs {
		s := nm.Party(p)
		if other, dup := seen[s]; dup {
			t.Errorf("%s and %s both shorten to %s", p, other, s)
		}
		seen[s] = p
	}
	if got := nm.Party("b::1220bbbb"); got != "b::1220bbbb" {
		t.Errorf("a short party id was changed to %s", got)
	}
	if got := NewNames(r, true).Party(r.Submitter.ActAs[0]); got != r.Submitter.ActAs[0] {
		t.Errorf("full ids: %s", got)
	}
}

// TestToleranceDeadlines: besides the metadata's bounds, Canton's default
// tolerances set deadlines — a transaction recorded more than 24 h after
// its preparation time is refused, and one past max_ledger_effective_time
// is still accepted for the 60 s ledger-time tolerance.
func TestToleranceDeadlines(t *testing.T) {
	prepared := time.Date(2025, 8, 7, 2, 0, 0, 0, time.UTC)
	bare := func() *damlpb.PreparedTransaction {
		pt := transfer([]string{"0"}, node("0", create(cidA, text("x"))))
		pt.Metadata.MaxRecordTime = nil
		return pt
	}

	// No bounds in the metadata: the preparation time's 24 h are the deadline.
	r, err := Summarize(bare(), nil, prepared.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if sw := r.Times.SignWithin; sw == nil || sw != r.Times.Prepared || sw.Field != "preparation_time + 24 h" ||
		sw.Time != "2025-08-08T02:00:00Z" || sw.TimeLeft != "23h00m left" || !sw.Signed {
		t.Errorf("sign within %+v", sw)
	}

	// Prepared 25 h ago: refused by default, and said so.
	r, err = Summarize(bare(), nil, prepared.Add(25*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Times.Prepared.Expired || !containsWarning(r, "LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND") {
		t.Errorf("prepared 25 h ago: %+v, warnings %q", r.Times.Prepared, r.Warnings)
	}

	// max_ledger_effective_time passed 20 s ago: 40 s of tolerance left;
	// 90 s ago: none.
	pt := bare()
	mlet := uint64(prepared.Add(10 * time.Minute).UnixMicro())
	pt.Metadata.MaxLedgerEffectiveTime = &mlet
	r, err = Summarize(pt, nil, prepared.Add(10*time.Minute+20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if sw := r.Times.SignWithin; sw.Field != "max_ledger_effective_time" || !sw.Expired ||
		sw.GraceLeft != "40s" {
		t.Errorf("20 s past max_ledger_effective_time: %+v", sw)
	}
	r, err = Summarize(pt, nil, prepared.Add(10*time.Minute+90*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if sw := r.Times.SignWithin; !sw.Expired || sw.GraceLeft != "" {
		t.Errorf("90 s past max_ledger_effective_time: %+v", sw)
	}
}

// TestTransferSummary: a token-standard transfer is summed up by what it
// moves, with labels or without; another shape keeps the generic phrase.
func TestTransferSummary(t *testing.T) {
	party := func(p string) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Party{Party: p}} }
	for _, labels := range []bool{true, false} {
		f := func(label string, v *damlpb.Value) *damlpb.RecordField {
			if !labels {
				label = ""
			}
			return &damlpb.RecordField{Label: label, Value: v}
		}
		rec := func(fs ...*damlpb.RecordField) *damlpb.Value {
			return &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: fs}}}
		}
		ex := exercise(cidA, "TransferFactory_Transfer", false)
		ex.GetExercise().ChosenValue = rec(f("expectedAdmin", party(bob)), f("transfer", rec(
			f("sender", party(alice)), f("receiver", party(bob)),
			f("amount", &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: "100.0000000000"}}),
			f("instrumentId", rec(f("admin", party(bob)), f("id", text("Amulet")))))))
		r, err := Summarize(transfer([]string{"0"}, node("0", ex)), nil, time.Date(2025, 8, 7, 2, 30, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		want := "transfer 100.0000000000 Amulet from alice::1220a1a2…bebf to bob::1220c0c1…dedf (TransferFactory_Transfer on Iou 00abcd…0012); creates and archives nothing"
		if r.Summary != want {
			t.Errorf("labels %v:\n got: %s\nwant: %s", labels, r.Summary, want)
		}
	}
	// A TransferFactory_Transfer of another shape: the generic phrase.
	ex := exercise(cidA, "TransferFactory_Transfer", false)
	r, err := Summarize(transfer([]string{"0"}, node("0", ex)), nil, time.Date(2025, 8, 7, 2, 30, 0, 0, time.UTC))
	if err != nil || !strings.HasPrefix(r.Summary, "exercise TransferFactory_Transfer on Iou") {
		t.Errorf("another shape: %v %s", err, r.Summary)
	}
}
