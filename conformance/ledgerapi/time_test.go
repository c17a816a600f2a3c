package ledgerapi

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TimeServiceIT.scala, on a node with static time (ledger serve
// --static-time) through /v2/testing/time. The test tool's TimeChecker
// (a choice that needs the ledger time past a given time) is the test
// token's TransferFactory_Transfer, whose transfer.requestedAt must be in
// the past.
func TestTimeServiceIT(t *testing.T) {
	clock := node.NewStaticClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := startParticipantOn(t, node.Config{}, clock)
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	now := func(t *testing.T) time.Time {
		t.Helper()
		var resp ledgerapi.GetTimeResponse
		p.ok(t, "GET", "/v2/testing/time", nil, &resp)
		return resp.CurrentTime.Time
	}
	setTime := func(current, next time.Time) map[string]any {
		return map[string]any{"currentTime": current.Format(time.RFC3339Nano), "newTime": next.Format(time.RFC3339Nano)}
	}

	t.Run("TSTimeIsStatic", func(t *testing.T) {
		initial := now(t)
		time.Sleep(100 * time.Millisecond)
		if later := now(t); !later.Equal(initial) {
			t.Errorf("ledger time should stand still: %s, then %s", initial, later)
		}
	})

	t.Run("TSTimeCanBeAdvanced", func(t *testing.T) {
		initial := now(t)
		later := initial.Add(30 * time.Second)
		p.ok(t, "POST", "/v2/testing/time", setTime(initial, later), nil)
		if got := now(t); !got.Equal(later) {
			t.Errorf("ledger time should be advanced: %s, want %s", got, later)
		}
	})

	t.Run("TSTimeAdvancementCanFail", func(t *testing.T) {
		initial := now(t)
		p.mustFail(t, "POST", "/v2/testing/time", setTime(initial.Add(time.Second), initial.Add(30*time.Second)),
			failure{code: "INVALID_ARGUMENT", cause: "current_time"})
	})

	// transfer is a self-transfer of a holding of 10 requested at
	// requestedAt: it fails until the ledger time is past requestedAt.
	transfer := func(t *testing.T, requestedAt time.Time) map[string]any {
		admin, owner := p.allocate(t, "admin"), p.allocate(t, "owner")
		rules := p.create(t, admin, testTokenRules, map[string]any{"admin": admin})
		holding := ""
		for _, ev := range p.transaction(t, []string{owner, admin}, createCmd(testToken, tokenArgs(owner, admin))).Events {
			if ev.Created != nil {
				holding = ev.Created.ContractID
			}
		}
		arg := map[string]any{"expectedAdmin": admin, "transfer": map[string]any{
			"sender": owner, "receiver": owner, "amount": "10.0",
			"instrumentId":     map[string]any{"admin": admin, "id": "TOK"},
			"requestedAt":      requestedAt.Format(time.RFC3339Nano),
			"executeBefore":    requestedAt.Add(time.Hour).Format(time.RFC3339Nano),
			"inputHoldingCids": []any{holding}, "meta": map[string]any{"values": map[string]any{}}},
			"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}}
		body := p.jsCommands([]string{owner}, exerciseCmd(transferFactory, rules, "TransferFactory_Transfer", arg))
		body["disclosedContracts"] = []any{disclosure(t, p, admin, rules)}
		return body
	}

	t.Run("TSFailWhenTimeNotAdvanced", func(t *testing.T) {
		body := transfer(t, now(t).Add(30*time.Second))
		// The Scala model's assert fails with UNHANDLED_EXCEPTION; the
		// test token's deadline check fails with its own error id.
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body,
			failure{code: "DAML_FAILURE", cause: "Ledger time is strictly before deadline", definite: true})
		if e.ErrorCategory != 9 || e.Context["error_id"] != "stdlib.daml.com/deadline-not-exceeded" {
			t.Errorf("category %d, error_id %q", e.ErrorCategory, e.Context["error_id"])
		}
	})

	t.Run("TSSucceedWhenTimeAdvanced", func(t *testing.T) {
		initial := now(t)
		body := transfer(t, initial.Add(30*time.Second))
		p.ok(t, "POST", "/v2/testing/time", setTime(initial, initial.Add(30*time.Second)), nil)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", body, nil)
	})
}
