package script

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
)

// The in-memory ledger submits through daml/engine with the rollback rule
// of Daml's IDE ledger for the DAR's daml-script (3.3 here: a caught
// exception undoes its try block, as Canton 3.4). Under Canton 3.5's rule
// the scripts whose code catches an exception after an archive fail with
// DAML_EFFECTFUL_ROLLBACK_ERROR — the same four that fail on a 3.5 node
// (ledger test --on-node) — and the others pass.
func TestMemoryLedgerRollbackRule(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	if got := r.StateMode(); got != interp.StateNoKey {
		t.Fatalf("daml-script %s: StateMode %v, want StateNoKey", r.ScriptVersion(), got)
	}
	var refused []string
	for _, name := range r.Scripts() {
		l := NewMemoryLedger(r)
		l.SetStateMode(interp.StateNUCK)
		_, err := r.Run(context.Background(), name, l, Options{})
		if err == nil {
			continue
		}
		var ie *interp.Error
		if !errors.As(err, &ie) || ie.ID != "DAML_EFFECTFUL_ROLLBACK_ERROR" {
			t.Errorf("%s: %v, want DAML_EFFECTFUL_ROLLBACK_ERROR or a pass", name.Name, err)
			continue
		}
		refused = append(refused, name.Module.String()+":"+name.Name.String())
	}
	if got := strings.Join(refused, " "); got != strings.Join(effectfulRollbackScripts, " ") {
		t.Errorf("refused under Canton 3.5's rule: %s", got)
	}
}

func TestVersionBefore(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"3.3.0.20250214.13611.0", true}, {"3.4.11", true}, {"2.10.0", true},
		{"3.5.0", false}, {"3.5.0-snapshot.20260402.0", false}, {"4.0", false}, {"x", false}, {"", false},
	} {
		if got := versionBefore(c.v, 3, 5); got != c.want {
			t.Errorf("versionBefore(%q, 3, 5) = %v", c.v, got)
		}
	}
}

// effectfulRollbackScripts are the scripts of splice-wallet-test-0.1.8
// that catch an exception after their code archived a contract.
var effectfulRollbackScripts = []string{
	"Splice.Scripts.TestWallet:testBuyMemberTraffic",
	"Splice.Scripts.TestWallet:testInsufficientFundsBatchAmuletPaymentRequests",
	"Splice.Scripts.TestWallet:testInsufficientFundsBatchSubscriptions",
	"Splice.Scripts.Wallet.TestTransferOffers:testTransferOffers",
}
