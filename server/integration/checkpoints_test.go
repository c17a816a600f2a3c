package integration

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestOffsetCheckpoints: a stream that follows the ledger sends, once it
// has caught up and been idle for the checkpoint delay (1 s by default),
// the ledger end as an OffsetCheckpoint with the synchronizer's record
// time — also when the updates up to it are invisible to its parties, and
// at its begin offset when it starts at the ledger end — as Canton's
// tailing update and completion streams do. A bounded stream gets none,
// nor does a list read with the default idle timeout; a longer one does.
func TestOffsetCheckpoints(t *testing.T) {
	n := startReadNode(t)
	n.createUser("bob-actor", ledgerapi.CanActAs(n.bob))
	end := func() int64 {
		var e ledgerapi.GetLedgerEndResponse
		n.ok("GET", "/v2/state/ledger-end", n.tok, nil, &e)
		return int64(e.Offset)
	}
	sync := n.identity().SynchronizerID
	checkpoint := func(what string, cp *ledgerapi.OffsetCheckpoint, want int64) {
		t.Helper()
		if cp == nil || int64(cp.Offset) != want || len(cp.SynchronizerTimes) != 1 ||
			cp.SynchronizerTimes[0].SynchronizerID != sync || cp.SynchronizerTimes[0].RecordTime.IsZero() {
			t.Fatalf("%s: checkpoint %+v, want offset %d on %s", what, cp, want, sync)
		}
	}

	begin := end()
	conn, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(n.url, "http")+"/v2/updates",
		&websocket.DialOptions{Subprotocols: []string{"daml.ws.auth", "jwt.token." + n.tok}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	b, _ := json.Marshal(map[string]any{"beginExclusive": begin, "updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")})
	if err := conn.Write(t.Context(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	read := func() ledgerapi.JsUpdate {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		_, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var u ledgerapi.JsGetUpdatesResponse
		mustUnmarshal(t, data, &u)
		return u.Update
	}
	checkpoint("a stream started at the ledger end", read().OffsetCheckpoint, begin)

	// Bob's create is invisible to Alice's stream; the checkpoint moves.
	n.ok("POST", "/v2/commands/submit-and-wait", n.token("bob-actor"),
		commands("bobs", []string{n.bob}, []map[string]any{create(n.bob, "9")}, nil), nil)
	checkpoint("after an update Alice does not see", read().OffsetCheckpoint, begin+1)

	// Alice's own create comes as a transaction, then its checkpoint.
	n.ok("POST", "/v2/commands/submit-and-wait", n.tok,
		commands("alices", []string{n.alice}, []map[string]any{create(n.alice, "10")}, nil), nil)
	if u := read(); u.Transaction == nil || u.Transaction.Offset != ledgerapi.Int64(begin+2) {
		t.Fatalf("Alice's create: %+v", u)
	}
	checkpoint("after Alice's create", read().OffsetCheckpoint, begin+2)

	// Completions follow the ledger too.
	c, _, err := dialCompletions(t, n.testNode, n.tok, map[string]any{"parties": []string{n.alice}, "beginExclusive": begin + 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	_, data, err := c.Read(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	var cr ledgerapi.CompletionStreamResponse
	mustUnmarshal(t, data, &cr)
	checkpoint("the completions stream", cr.OffsetCheckpoint, begin+2)

	// A bounded stream ends without one; lists carry one only when their
	// idle timeout outlasts the checkpoint delay.
	for _, f := range wsRead(t, n.testNode, "/v2/updates", n.tok, map[string]any{"beginExclusive": 0, "endInclusive": begin + 2,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}) {
		if strings.Contains(f, "OffsetCheckpoint") {
			t.Errorf("a bounded stream sent %s", f)
		}
	}
	var ups []ledgerapi.JsGetUpdatesResponse
	n.ok("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": begin, "updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &ups)
	if len(ups) != 1 || ups[0].Update.Transaction == nil {
		t.Errorf("list with the default idle timeout: %+v", ups)
	}
	n.ok("POST", "/v2/updates?stream_idle_timeout_ms=2500", n.tok, map[string]any{"beginExclusive": begin,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &ups)
	if len(ups) != 2 || ups[0].Update.Transaction == nil {
		t.Fatalf("list with a 2.5 s idle timeout: %+v", ups)
	}
	checkpoint("a list with a long idle timeout", ups[1].Update.OffsetCheckpoint, begin+2)
}
