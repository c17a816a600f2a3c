package review

import (
	"fmt"
	"time"
)

// Canton Coin transactions name the DSO's current OpenMiningRound (Splice's
// Splice.Round:OpenMiningRound) as an input contract. A new round opens
// about every ten minutes and each lives about twenty; once a round is
// closed and archived, a transaction that uses it fails with
// LOCAL_VERDICT_INACTIVE_CONTRACTS. A round's targetClosesAt is
// therefore a deadline of the transaction that no metadata field carries:
// an offline signer who misses it has to prepare again.

// MiningRound is an OpenMiningRound the transaction uses.
type MiningRound struct {
	ContractID string `json:"contractId"`
	// Round is the round's number, as text ("" if the contract does not
	// have the shape of Splice's template).
	Round   string `json:"round"`
	OpensAt string `json:"opensAt,omitempty"`
	// TargetClosesAt is when the DSO expects to close the round; after it
	// the round may be archived at any moment.
	TargetClosesAt string `json:"targetClosesAt,omitempty"`
	// TimeLeft and SecondsLeft measure from Times.EvaluatedAt to
	// TargetClosesAt, as a Deadline does; Closing is set once it passed.
	TimeLeft    string `json:"timeLeft,omitempty"`
	SecondsLeft int64  `json:"secondsLeft"`
	Closing     bool   `json:"closing"`
}

// Field positions of Splice.Round:OpenMiningRound, for records given
// without labels: dso, round, amuletPrice, opensAt, targetClosesAt, … and
// Round's number.
const (
	roundField          = 1
	opensAtField        = 3
	targetClosesAtField = 4
)

// miningRounds finds the OpenMiningRound contracts among the input
// contracts and measures the time left until each is due to close.
func miningRounds(inputs []InputContract, now time.Time) []MiningRound {
	var out []MiningRound
	for _, c := range inputs {
		if c.Template == nil || c.Template.ModuleName != "Splice.Round" || c.Template.EntityName != "OpenMiningRound" {
			continue
		}
		m := MiningRound{ContractID: c.ContractID}
		if r := c.Argument.Field("round", roundField); r != nil {
			m.Round = r.Field("number", 0).Scalar()
		}
		m.OpensAt = timestampText(c.Argument.Field("opensAt", opensAtField))
		if closes := c.Argument.Field("targetClosesAt", targetClosesAtField); closes != nil && closes.Kind == ValueTimestamp {
			m.TargetClosesAt = closes.Scalar()
			if at, err := time.Parse(time.RFC3339Nano, m.TargetClosesAt); err == nil {
				m.TimeLeft, m.SecondsLeft, m.Closing = timeLeft(at, now, "due to close")
			}
		}
		out = append(out, m)
	}
	return out
}

func timestampText(v *Value) string {
	if v == nil || v.Kind != ValueTimestamp {
		return ""
	}
	return v.Scalar()
}

// roundWarnings say when a mining round the transaction uses closes before
// the transaction's own deadline, or has passed its closing time already.
func roundWarnings(t Times) []string {
	var w []string
	for _, m := range t.MiningRounds {
		name := "mining round " + m.Round
		if m.Round == "" {
			name = "the mining round " + m.ContractID
		}
		switch {
		case m.TargetClosesAt == "":
		case m.Closing:
			w = append(w, fmt.Sprintf("%s was due to close at %s: the DSO may archive it at any moment, and the transaction then fails (LOCAL_VERDICT_INACTIVE_CONTRACTS); prepare again with the current round", name, m.TargetClosesAt))
		case t.SignWithin == nil || !t.SignWithin.Expired && m.SecondsLeft < t.SignWithin.SecondsLeft:
			// The transaction's own deadline comes later (or there is none
			// left to compare with): the round is the one to meet.
			w = append(w, fmt.Sprintf("%s is due to close at %s (%s): sign and execute before then, or the transaction fails once the round is archived", name, m.TargetClosesAt, m.TimeLeft))
		}
	}
	return w
}
