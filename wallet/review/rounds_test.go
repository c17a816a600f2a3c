package review

import (
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// openMiningRound is a Splice.Round:OpenMiningRound input contract of round
// number n, opening at opens and due to close at closes; labels says
// whether its record fields carry their labels.
func openMiningRound(cid string, n int64, opens, closes time.Time, labels bool) *damlpb.Metadata_InputContract {
	field := func(label string, v *damlpb.Value) *damlpb.RecordField {
		if !labels {
			label = ""
		}
		return &damlpb.RecordField{Label: label, Value: v}
	}
	ts := func(t time.Time) *damlpb.Value {
		return &damlpb.Value{Sum: &damlpb.Value_Timestamp{Timestamp: t.UnixMicro()}}
	}
	record := func(fs ...*damlpb.RecordField) *damlpb.Value {
		return &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: fs}}}
	}
	arg := record(
		field("dso", &damlpb.Value{Sum: &damlpb.Value_Party{Party: alice}}),
		field("round", record(field("number", &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: n}}))),
		field("amuletPrice", &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: "0.0050000000"}}),
		field("opensAt", ts(opens)),
		field("targetClosesAt", ts(closes)),
	)
	return &damlpb.Metadata_InputContract{CreatedAt: uint64(opens.UnixMicro()), Contract: &damlpb.Metadata_InputContract_V1{V1: &damlpb.Create{
		LfVersion: "2.1", ContractId: cid, PackageName: "splice-amulet", TemplateId: tmpl("Splice.Round", "OpenMiningRound"),
		Argument: arg, Signatories: []string{alice}, Stakeholders: []string{alice},
	}}}
}

// TestMiningRoundDeadline: a Canton Coin transaction's mining round is a
// deadline the review shows and warns about when it comes before the
// transaction's own, or has passed.
func TestMiningRoundDeadline(t *testing.T) {
	now := time.Date(2025, 8, 7, 2, 30, 0, 0, time.UTC) // max_record_time (transfer's) is 03:00
	for _, tc := range []struct {
		name     string
		closes   time.Time
		labels   bool
		left     string
		closing  bool
		warnings string // a part of the round's warning; "" for none
	}{
		{"closes before max_record_time", now.Add(7 * time.Minute), true, "7m00s left", false, "mining round 42 is due to close at 2025-08-07T02:37:00"},
		{"without labels", now.Add(7 * time.Minute), false, "7m00s left", false, "mining round 42 is due to close"},
		{"closes after max_record_time", now.Add(45 * time.Minute), true, "45m00s left", false, ""},
		{"past its closing time", now.Add(-90 * time.Second), true, "due to close 1m30s ago", true, "LOCAL_VERDICT_INACTIVE_CONTRACTS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := transfer([]string{"0"}, node("0", exercise(cidA, "Transfer", true)))
			pt.Metadata.InputContracts = []*damlpb.Metadata_InputContract{openMiningRound(cidC, 42, now.Add(-10*time.Minute), tc.closes, tc.labels)}
			r, err := Summarize(pt, &Recomputed{Scheme: "HASHING_SCHEME_VERSION_V3", SignsMaxRecordTime: true}, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Times.MiningRounds) != 1 {
				t.Fatalf("mining rounds %+v", r.Times.MiningRounds)
			}
			m := r.Times.MiningRounds[0]
			if m.Round != "42" || m.ContractID != cidC || m.TimeLeft != tc.left || m.Closing != tc.closing ||
				m.OpensAt != "2025-08-07T02:20:00Z" || !strings.HasPrefix(m.TargetClosesAt, tc.closes.Format("2006-01-02T15:04:05")) {
				t.Errorf("round %+v", m)
			}
			var warned []string
			for _, w := range r.Warnings {
				if strings.Contains(w, "mining round") {
					warned = append(warned, w)
				}
			}
			switch {
			case tc.warnings == "" && len(warned) > 0:
				t.Errorf("unexpected warning %q", warned)
			case tc.warnings != "" && (len(warned) != 1 || !strings.Contains(warned[0], tc.warnings)):
				t.Errorf("warnings %q, want one with %q", warned, tc.warnings)
			}
		})
	}
	// No round, no entry.
	r, err := Summarize(transfer([]string{"0"}, node("0", exercise(cidA, "Transfer", true))), nil, now)
	if err != nil || len(r.Times.MiningRounds) != 0 {
		t.Errorf("a transaction without a round: %v %+v", err, r.Times.MiningRounds)
	}
}
