package wallet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet/review"
)

// testTx is an exercise (node 0) whose child creates a contract (node 1);
// with roots nil both nodes are unreachable, which the policy checks too.
func testTx(roots ...string) *review.Review {
	id := &damlpb.Identifier{PackageId: "abc", ModuleName: "Iou", EntityName: "Iou"}
	unit := &damlpb.Value{Sum: &damlpb.Value_Unit{Unit: &emptypb.Empty{}}}
	pt := &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{Roots: roots, Nodes: []*damlpb.DamlTransaction_Node{
			{NodeId: "0", VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_Exercise{Exercise: &damlpb.Exercise{
				TemplateId: id, PackageName: "iou-pkg", ChoiceId: "Transfer", ActingParties: []string{"alice::1"}, Signatories: []string{"alice::1"},
				ChosenValue: unit, Children: []string{"1"}}}}}},
			{NodeId: "1", VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_Create{Create: &damlpb.Create{
				TemplateId: id, PackageName: "iou-pkg", Signatories: []string{"alice::1"}, Stakeholders: []string{"alice::1", "bob::1"}, Argument: unit}}}}},
		}},
		Metadata: &damlpb.Metadata{SubmitterInfo: &damlpb.Metadata_SubmitterInfo{ActAs: []string{"alice::1"}}},
	}
	r, err := review.Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		panic(err)
	}
	return r
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		p    Policy
		want []string // substrings, one per violation; nil = complies
	}{
		{"empty policy allows all", Policy{}, nil},
		{"template by name", Policy{Templates: []string{"Iou:Iou"}}, nil},
		{"template by package name", Policy{Templates: []string{"#iou-pkg:Iou:Iou"}}, nil},
		{"template by package id", Policy{Templates: []string{"abc:Iou:Iou"}}, nil},
		{"other package name", Policy{Templates: []string{"#other:Iou:Iou"}}, []string{"node 0 uses template Iou:Iou", "node 1 uses template Iou:Iou"}},
		{"choice allowed", Policy{Choices: []string{"Transfer"}}, nil},
		{"qualified choice", Policy{Choices: []string{"Iou:Iou:Transfer"}}, nil},
		{"choice refused", Policy{Choices: []string{"Split"}}, []string{"exercises choice Transfer"}},
		{"party missing", Policy{Parties: []string{"alice::1"}}, []string{"node 1 names party bob::1"}},
	}
	for _, tc := range cases {
		for _, roots := range [][]string{{"0"}, nil} {
			got := tc.p.Check(testTx(roots...))
			if len(got) != len(tc.want) {
				t.Fatalf("%s (roots %q): violations %q, want %d", tc.name, roots, got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("%s (roots %q): violation %q lacks %q", tc.name, roots, got[i], w)
				}
			}
		}
	}
}

// policyWriter writes policy files into a fresh directory.
func policyWriter(t *testing.T) func(name, body string) string {
	dir := t.TempDir()
	return func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func TestLoad(t *testing.T) {
	write := policyWriter(t)
	if p, err := LoadPolicy(write("ok.json", `{"templates":["Iou:Iou"],"parties":["a::1"]}`)); err != nil || p.Templates[0] != "Iou:Iou" {
		t.Fatalf("json: %v %v", p, err)
	}
	if p, err := LoadPolicy(write("ok.yaml", "choices: [Transfer]\n")); err != nil || p.Choices[0] != "Transfer" {
		t.Fatalf("yaml: %v %v", p, err)
	}
	if p, err := LoadPolicy(write("reinterpret.json", `{"requireReinterpretation":true}`)); err != nil || !p.RequireReinterpretation {
		t.Errorf("requireReinterpretation: %+v %v", p, err)
	}
	if p, err := LoadPolicy(write("reinterpret.yaml", "requireReinterpretation: true\n")); err != nil || !p.RequireReinterpretation {
		t.Errorf("requireReinterpretation in YAML: %+v %v", p, err)
	}
	if _, err := LoadPolicy(write("typo.json", `{"template":["Iou:Iou"]}`)); err == nil {
		t.Fatal("misspelt key accepted: it would allow everything")
	}
	if _, err := LoadPolicy(write("bad.json", `{"templates":["Iou"]}`)); err == nil || !strings.Contains(err.Error(), "Module:Entity") {
		t.Fatalf("bad template: %v", err)
	}
}

// TestCheckSubmission: the synchronizer, the hashing scheme and the time
// left to execute, against a transaction prepared for sync::1 at 00:00
// whose max_record_time is 00:30, reviewed at 00:20 and hashed under V3.
func TestCheckSubmission(t *testing.T) {
	prepared := time.Date(2025, 8, 7, 0, 0, 0, 0, time.UTC)
	mrt := uint64(prepared.Add(30 * time.Minute).UnixMicro())
	pt := &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{},
		Metadata: &damlpb.Metadata{SubmitterInfo: &damlpb.Metadata_SubmitterInfo{ActAs: []string{"alice::1"}},
			SynchronizerId: "sync::1", PreparationTime: uint64(prepared.UnixMicro()), MaxRecordTime: &mrt},
	}
	r, err := review.Summarize(pt, &review.Recomputed{Scheme: "HASHING_SCHEME_VERSION_V3", SignsMaxRecordTime: true}, prepared.Add(20*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		p    Policy
		want string // a part of the one violation; "" = complies
	}{
		{"listed synchronizer", Policy{Synchronizers: []string{"other::2", "sync::1"}}, ""},
		{"other synchronizer", Policy{Synchronizers: []string{"other::2"}}, "goes to synchronizer sync::1"},
		{"V3 allowed, short form", Policy{HashingSchemes: []string{"v3"}}, ""},
		{"V3 allowed, enum name", Policy{HashingSchemes: []string{"HASHING_SCHEME_VERSION_V3"}}, ""},
		{"only V2", Policy{HashingSchemes: []string{"V2"}}, "computed with HASHING_SCHEME_VERSION_V3"},
		{"enough time left", Policy{MinTimeLeft: "5m"}, ""},
		{"too little time left", Policy{MinTimeLeft: "15m"}, "max_record_time leaves 10m00s to execute, less than the policy's minTimeLeft 15m"},
		{"a bad duration fails closed", Policy{MinTimeLeft: "soon"}, "not a duration"},
	} {
		got := tc.p.Check(r)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: violations %q", tc.name, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s: violations %q, want one with %q", tc.name, got, tc.want)
		}
	}
	// Without a recomputed hash no scheme is allowed.
	r.Hash = nil
	if got := (&Policy{HashingSchemes: []string{"V3"}}).Check(r); len(got) != 1 || !strings.Contains(got[0], "computed with none") {
		t.Errorf("no hash: %q", got)
	}
	// A mining round closing sooner than minTimeLeft.
	r.Times.MiningRounds = []review.MiningRound{{Round: "7", TargetClosesAt: "2025-08-07T00:24:00Z", SecondsLeft: 240}}
	if got := (&Policy{MinTimeLeft: "5m"}).Check(r); len(got) != 1 || !strings.Contains(got[0], "mining round 7 closes at 2025-08-07T00:24:00Z") {
		t.Errorf("mining round: %q", got)
	}
}

func TestLoadSubmissionRules(t *testing.T) {
	write := policyWriter(t)
	p, err := LoadPolicy(write("ok.yaml", "synchronizers: [sync::1]\nhashingSchemes: [V3]\nminTimeLeft: 10m\n"))
	if err != nil || p.MinTimeLeft != "10m" || p.HashingSchemes[0] != "V3" || p.Synchronizers[0] != "sync::1" {
		t.Fatalf("yaml: %+v %v", p, err)
	}
	if _, err := LoadPolicy(write("bad-duration.json", `{"minTimeLeft":"ten minutes"}`)); err == nil || !strings.Contains(err.Error(), "minTimeLeft") {
		t.Errorf("bad duration: %v", err)
	}
	if _, err := LoadPolicy(write("bad-scheme.json", `{"hashingSchemes":["V4"]}`)); err == nil || !strings.Contains(err.Error(), "V2 or V3") {
		t.Errorf("bad scheme: %v", err)
	}
}

// transferTx is a token-standard TransferFactory_Transfer of amount of
// instrument (admin, id), its records with or without labels.
func transferTx(t *testing.T, amount, admin, id string, labels bool) *review.Review {
	t.Helper()
	f := func(label string, v *damlpb.Value) *damlpb.RecordField {
		if !labels {
			label = ""
		}
		return &damlpb.RecordField{Label: label, Value: v}
	}
	rec := func(fs ...*damlpb.RecordField) *damlpb.Value {
		return &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: fs}}}
	}
	party := func(p string) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Party{Party: p}} }
	arg := rec(f("expectedAdmin", party(admin)), f("transfer", rec(
		f("sender", party("alice::1")), f("receiver", party("bob::1")),
		f("amount", &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: amount}}),
		f("instrumentId", rec(f("admin", party(admin)), f("id", &damlpb.Value{Sum: &damlpb.Value_Text{Text: id}}))))))
	pt := &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{Roots: []string{"0"}, Nodes: []*damlpb.DamlTransaction_Node{
			{NodeId: "0", VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_Exercise{Exercise: &damlpb.Exercise{
				TemplateId: &damlpb.Identifier{PackageId: "abc", ModuleName: "Registry", EntityName: "Factory"}, PackageName: "registry",
				ChoiceId: "TransferFactory_Transfer", ActingParties: []string{"alice::1"}, Signatories: []string{admin}, ChosenValue: arg}}}}},
		}},
		Metadata: &damlpb.Metadata{SubmitterInfo: &damlpb.Metadata_SubmitterInfo{ActAs: []string{"alice::1"}}},
	}
	r, err := review.Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCheckMaxAmounts(t *testing.T) {
	for _, labels := range []bool{true, false} {
		for _, tc := range []struct {
			name   string
			amount string
			max    map[string]string
			want   string
		}{
			{"within", "10.5000000000", map[string]string{"TOK": "10.5"}, ""},
			{"above by a digit", "10.5000000001", map[string]string{"TOK": "10.5"}, "more than the policy's maximum of 10.5"},
			{"admin-specific limit wins", "20.0", map[string]string{"TOK": "100", "TOK@reg::1": "10"}, "maximum of 10"},
			{"other admin: the general limit", "20.0", map[string]string{"TOK": "100", "TOK@other::1": "10"}, ""},
			{"unlisted instrument", "1.0", map[string]string{"USDx": "100"}, "instrument TOK (admin reg::1), which the policy's maxAmounts does not list"},
			{"no maxAmounts: no limit", "1000000.0", nil, ""},
		} {
			got := (&Policy{MaxAmounts: tc.max}).Check(transferTx(t, tc.amount, "reg::1", "TOK", labels))
			if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)) {
				t.Errorf("%s (labels %v): violations %q, want %q", tc.name, labels, got, tc.want)
			}
		}
	}
	// A transfer whose argument does not have the token standard's shape
	// cannot be vouched for.
	r := testTx("0")
	r.Nodes[0].Choice = "TransferFactory_Transfer"
	if got := (&Policy{MaxAmounts: map[string]string{"TOK": "1"}}).Check(r); len(got) != 1 || !strings.Contains(got[0], "cannot be read") {
		t.Errorf("an unreadable transfer: %q", got)
	}

	bad := policyWriter(t)("bad.json", `{"maxAmounts":{"TOK":"1e9"}}`)
	if _, err := LoadPolicy(bad); err == nil || !strings.Contains(err.Error(), "not a decimal amount") {
		t.Errorf("an exponent amount: %v", err)
	}
}
