package integration

import (
	"net/http"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestStaticTime: a node started with a static clock answers and moves it
// on /v2/testing/time (only forward, only from its current time, only for
// a participant admin), and commands run at that time.
func TestStaticTime(t *testing.T) {
	clock := node.NewStaticClock(time.Unix(0, 0))
	n := start(t, auth.ModeHS256, node.Config{Now: clock.Now}, server.Config{Clock: clock})
	var got ledgerapi.GetTimeResponse
	n.ok("GET", "/v2/testing/time", n.admin, nil, &got)
	if !got.CurrentTime.Equal(time.Unix(0, 0)) {
		t.Fatalf("time %s, want the epoch", got.CurrentTime)
	}
	later := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	n.ok("POST", "/v2/testing/time", n.admin, ledgerapi.SetTimeRequest{
		CurrentTime: ledgerapi.Timestamp{Time: time.Unix(0, 0)}, NewTime: ledgerapi.Timestamp{Time: later}}, &got)
	if !got.CurrentTime.Equal(later) || !clock.Now().Equal(later) {
		t.Fatalf("after set: %s, clock %s", got.CurrentTime, clock.Now())
	}
	// Back in time, or from a time that is not the node's: refused.
	n.fail("POST", "/v2/testing/time", n.admin, ledgerapi.SetTimeRequest{
		CurrentTime: ledgerapi.Timestamp{Time: later}, NewTime: ledgerapi.Timestamp{Time: later.Add(-time.Second)}},
		http.StatusBadRequest, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/testing/time", n.admin, ledgerapi.SetTimeRequest{
		CurrentTime: ledgerapi.Timestamp{Time: time.Unix(0, 0)}, NewTime: ledgerapi.Timestamp{Time: later.Add(time.Hour)}},
		http.StatusBadRequest, "INVALID_ARGUMENT")
	// A user without the participant admin right may read it, not set it.
	alice := n.allocate("Alice").Party
	n.ok("POST", "/v2/users", n.admin, map[string]any{"user": map[string]any{"id": "alice", "primaryParty": alice},
		"rights": []any{map[string]any{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]any{"party": alice}}}}}}, nil)
	n.ok("GET", "/v2/testing/time", n.token("alice"), nil, &got)
	n.fail("POST", "/v2/testing/time", n.token("alice"), ledgerapi.SetTimeRequest{
		CurrentTime: ledgerapi.Timestamp{Time: later}, NewTime: ledgerapi.Timestamp{Time: later.Add(time.Hour)}},
		http.StatusForbidden, "NA") // PERMISSION_DENIED, redacted as Canton does
	// Commands run at the static time.
	var tr treeResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", n.token("alice"),
		commands("static-1", []string{alice}, []map[string]any{create(alice, "1.0")}, nil), &tr)
	if !tr.TransactionTree.EffectiveAt.Equal(later) {
		t.Errorf("effectiveAt %s, want %s", tr.TransactionTree.EffectiveAt, later)
	}
}

// TestNoStaticTime: a node on wall-clock time has no time endpoint.
func TestNoStaticTime(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	if r := n.call("GET", "/v2/testing/time", n.admin, nil); r.status != http.StatusNotFound {
		t.Errorf("GET /v2/testing/time: %d %s, want 404", r.status, r.body)
	}
}
