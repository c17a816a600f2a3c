package ledgerapi

import (
	"strconv"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// CommandDeduplicationPeriodValidationIT.scala.
func TestCommandDeduplicationPeriodValidationIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	submit := func(party string, period map[string]any) map[string]any {
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["deduplicationPeriod"] = period
		return body
	}
	duration := func(seconds int64) map[string]any {
		return map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": seconds}}}
	}
	offset := func(o int64) map[string]any {
		return map[string]any{"DeduplicationOffset": map[string]any{"value": o}}
	}

	t.Run("ValidDeduplicationDuration", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.ok(t, "POST", "/v2/commands/async/submit", submit(party, duration(30*60)), nil)
	})

	t.Run("NegativeDeduplicationDuration", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/commands/async/submit", submit(party, duration(-1)), failure{code: "INVALID_FIELD",
			cause: "The submitted command has a field with invalid value: Invalid field deduplication_period: Duration must be positive"})
	})

	t.Run("NegativeOffset", func(t *testing.T) {
		party := p.allocate(t, "party")
		const o = -12345678
		p.mustFail(t, "POST", "/v2/commands/async/submit", submit(party, offset(o)), failure{code: "NEGATIVE_OFFSET",
			cause: "Offset " + strconv.Itoa(o) + " in deduplication_period is a negative integer: the deduplication offset has to be a non-negative integer and not " + strconv.Itoa(o)})
	})

	t.Run("ZeroOffset", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.ok(t, "POST", "/v2/commands/async/submit", submit(party, offset(0)), nil)
	})

	// Pruning through `ledger serve`'s own endpoint (the Scala case is
	// gRPC only: Canton's JSON API cannot prune). It runs last.
	t.Run("OffsetPruned", func(t *testing.T) {
		party := p.allocate(t, "party")
		start := p.ledgerEnd(t)
		first := p.create(t, party, dummy, map[string]any{"operator": party})
		p.exercise(t, party, dummy, first, "DummyChoice1", nil)
		second := p.create(t, party, dummy, map[string]any{"operator": party})
		p.create(t, party, dummy, map[string]any{"operator": party})
		end := p.ledgerEnd(t)
		p.exercise(t, party, dummy, second, "DummyChoice1", nil)
		p.prune(t, end)
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", submit(party, offset(start)), failure{code: "INVALID_DEDUPLICATION_PERIOD"})
		earliest, ok := e.Context["earliest_offset"]
		if !ok {
			t.Fatalf("no earliest_offset in %v", e.Context)
		}
		e = p.mustFail(t, "POST", "/v2/commands/submit-and-wait", submit(party, offset(0)), failure{code: "INVALID_DEDUPLICATION_PERIOD"})
		if e.Context["earliest_offset"] != earliest {
			t.Errorf("Earliest offset returned when deduplication offset is zero (%s) should be equal to %s", e.Context["earliest_offset"], earliest)
		}
		o, err := strconv.ParseInt(earliest, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait", submit(party, offset(o)), nil)
	})
}
