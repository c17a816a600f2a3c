package engine

import (
	"context"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestMinLedgerTimeOneRule holds prepare, execute and submit to one rule
// for the request's minimum ledger time: the same errors, and execute and
// submit commit at the same ledger time for the same request.
func TestMinLedgerTimeOneRule(t *testing.T) {
	now := testNow.Truncate(time.Microsecond)
	later := ledgerapi.NewTimestamp(now.Add(time.Hour))
	earlier := ledgerapi.NewTimestamp(now.Add(-time.Hour))
	rel := ledgerapi.DurationOf(90 * time.Second)
	negative := ledgerapi.Duration{Seconds: -1}
	cases := []struct {
		name    string
		abs     *ledgerapi.Timestamp
		rel     *ledgerapi.Duration
		wantErr string
		wantAt  time.Time
	}{
		{"none", nil, nil, "", now},
		{"abs later", &later, nil, "", later.Time},
		{"abs earlier", &earlier, nil, "", now},
		{"rel", nil, &rel, "", now.Add(90 * time.Second)},
		{"both", &later, &rel, "INVALID_ARGUMENT", time.Time{}},
		{"negative rel", nil, &negative, "INVALID_FIELD", time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			var m *ledgerapi.MinLedgerTime
			if c.abs != nil || c.rel != nil {
				m = &ledgerapi.MinLedgerTime{Abs: c.abs, Rel: c.rel}
			}

			cmds := submitCmds(f.bob, createCmd(iouTemplate, `{}`))
			cmds.MinLedgerTimeAbs, cmds.MinLedgerTimeRel = c.abs, c.rel
			o, err := f.eng.Submit(ctx, cmds, "user1")
			checkLedgerTime(t, "submit", o, err, c.wantErr, c.wantAt)

			req := prepareReq(f.alice, createCmd(iouTemplate, `{}`))
			req.MinLedgerTime = m
			if _, err := f.eng.Prepare(ctx, req, "user1"); errorID(err) != c.wantErr {
				t.Errorf("prepare: error %q, want %q", errorID(err), c.wantErr)
			}

			p, err := f.eng.Prepare(ctx, prepareReq(f.alice, createCmd(iouTemplate, `{}`)), "user1")
			if err != nil {
				t.Fatal(err)
			}
			ex := executeReq(p, f.alice, f.aliceK)
			ex.MinLedgerTime = m
			o, err = f.eng.Execute(ctx, ex, "user1", f.ledger.lookupKeys)
			checkLedgerTime(t, "execute", o, err, c.wantErr, c.wantAt)
		})
	}
}

func checkLedgerTime(t *testing.T, endpoint string, o *Outcome, err error, wantErr string, wantAt time.Time) {
	t.Helper()
	if errorID(err) != wantErr {
		t.Fatalf("%s: error %q, want %q", endpoint, errorID(err), wantErr)
	}
	if err != nil {
		return
	}
	if o.Transaction == nil || !o.Transaction.EffectiveAt.Equal(wantAt) {
		t.Fatalf("%s: outcome %+v, want the ledger time %v", endpoint, o, wantAt)
	}
}
