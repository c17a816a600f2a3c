package display

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
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

// A transaction is hostile input: nothing in it may reach the terminal as a
// control sequence, and invisible characters must be visible.
func TestHostileStringsAreEscaped(t *testing.T) {
	c := create(cidA, text("pay \x1b[2K\x1b[1Gbob\u202e001"))
	c.GetCreate().TemplateId.EntityName = "Iou\x1b[31m"
	pt := transfer([]string{"0"}, node("0", c))
	pt.Metadata.SubmitterInfo.CommandId = "cmd\r\x07"
	r, err := Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !containsWarning(r, "control or invisible characters") {
		t.Errorf("no warning about hidden characters: %q", r.Warnings)
	}
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		if err := RenderText(&out, r, TextOptions{Color: color}); err != nil {
			t.Fatal(err)
		}
		s := ansi.ReplaceAllString(out.String(), "") // our own colour codes
		for _, bad := range []string{"\x1b", "\r", "\x07", "\u202e"} {
			if strings.Contains(s, bad) {
				t.Errorf("color=%v: output contains %q", color, bad)
			}
		}
		for _, want := range []string{`\x1b[2K`, `\u202e`, `Iou:Iou\x1b[31m`, `cmd\r\a`} {
			if !strings.Contains(s, want) {
				t.Errorf("color=%v: output lacks the escaped form %q", color, want)
			}
		}
	}
}

func TestValuesAreExact(t *testing.T) {
	r := reviewVector(t, "derived/rich_v2.json")
	fields := map[string]*Value{}
	for _, f := range r.Nodes[0].Argument.Fields {
		fields[f.Label] = f.Value
	}
	for label, want := range map[string]string{
		"imin": "-9223372036854775808",
		"imax": "9223372036854775807",
		"n":    "-12.3400000000",
		"ts":   "1969-12-31T23:59:58.999999Z",
		"dt":   "1969-12-29",
		"cid":  "0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b",
		"txt":  "naïve ✓ 𝄞",
	} {
		if got := fields[label].text(); got != want {
			t.Errorf("%s = %q, want %q", label, got, want)
		}
	}
	if v := fields["somenone"]; v.Kind != ValueOptional || v.Inner == nil || v.Inner.Kind != ValueOptional || v.Inner.Inner != nil {
		t.Errorf("somenone is not Some(None): %+v", v)
	}
	// int64 stays a string in JSON, so no reader rounds it through a float.
	js, _ := json.Marshal(fields["imax"])
	if string(js) != `{"kind":"int64","text":"9223372036854775807"}` {
		t.Errorf("imax as JSON = %s", js)
	}
	empty, _ := json.Marshal(fields["empty"])
	if string(empty) != `{"kind":"text","text":""}` {
		t.Errorf("empty text as JSON = %s", empty)
	}
}

func TestMaxRecordTimeSignedOnlyUnderV3(t *testing.T) {
	for _, c := range []struct {
		file   string
		signed bool
	}{{"derived/rich_v2.json", false}, {"derived/rich_v3.json", true}} {
		r := reviewVector(t, c.file)
		if r.Times.MaxRecordTime.Signed != c.signed {
			t.Errorf("%s: max record time signed = %v, want %v", c.file, r.Times.MaxRecordTime.Signed, c.signed)
		}
		if got := containsWarning(r, "max_record_time is NOT covered"); got == c.signed {
			t.Errorf("%s: warning about unsigned max_record_time present = %v", c.file, got)
		}
	}
}

func TestDeadlinesAfterExpiry(t *testing.T) {
	raw, scheme := loadVector(t, "derived/rich_v3.json")
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		t.Fatal(err)
	}
	res, err := hashing.Compute(raw, scheme, hashing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Summarize(&pt, res, goldenNow.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	sw := r.Times.SignWithin
	if sw == nil || !sw.Expired || sw.Field != "max_ledger_effective_time" || !strings.HasPrefix(sw.TimeLeft, "expired ") {
		t.Errorf("sign within = %+v", sw)
	}
	if !containsWarning(r, "max_record_time has passed") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

func TestCompareNodeHash(t *testing.T) {
	r := reviewVector(t, "derived/rich_v2.json")
	good := res(t, "derived/rich_v2.json").Hash
	if !r.CompareNodeHash(good[:]) || containsWarning(r, "differs") {
		t.Errorf("the recomputed hash does not match itself")
	}
	bad := good
	bad[0] ^= 1
	if r.CompareNodeHash(bad[:]) || !containsWarning(r, "differs") || *r.Hash.MatchesNode {
		t.Errorf("a different node hash was accepted")
	}
	if r.Warnings[0] != "the hash the preparing node sent differs from the one recomputed here: do not sign" {
		t.Errorf("the mismatch is not the first warning: %q", r.Warnings)
	}
}

func res(t *testing.T, file string) *hashing.Result {
	raw, scheme := loadVector(t, file)
	r, err := hashing.Compute(raw, scheme, hashing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every line of the text rendering fits 80 columns, except the full party
// ids of the legend, which are not cut.
func TestFitsEightyColumns(t *testing.T) {
	for _, c := range goldenCases {
		r := reviewVector(t, c.file)
		var out bytes.Buffer
		if err := RenderText(&out, r, TextOptions{Width: 80}); err != nil {
			t.Fatal(err)
		}
		inLegend := false
		for i, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "PARTIES") {
				inLegend = true
			}
			if w := lipgloss.Width(line); w > 80 && !inLegend {
				t.Errorf("%s line %d is %d columns wide: %s", c.name, i+1, w, line)
			}
		}
	}
}

func TestShortFormsAreUnique(t *testing.T) {
	r := &Review{Submitter: Submitter{ActAs: []string{
		"a::1220aaaaaaaa0000000000000000000000000000000000000000000000000000000001",
		"a::1220aaaaaaaa1111111111111111111111111111111111111111111111111111110001",
		"b::1220bbbb",
	}}}
	nm := newNamer(r, false)
	seen := map[string]string{}
	for _, p := range r.Submitter.ActAs {
		s := nm.party(p)
		if other, dup := seen[s]; dup {
			t.Errorf("%s and %s both shorten to %s", p, other, s)
		}
		seen[s] = p
	}
	if got := nm.party("b::1220bbbb"); got != "b::1220bbbb" {
		t.Errorf("a short party id was changed to %s", got)
	}
	if got := newNamer(r, true).party(r.Submitter.ActAs[0]); got != r.Submitter.ActAs[0] {
		t.Errorf("full ids: %s", got)
	}
}
