package integration

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestStaleStreamAuthorization: a websocket stream opened with a user's
// token ends with STALE_STREAM_AUTHORIZATION once the user's rights
// change, the user is deactivated or deleted, or its identity provider is
// deactivated — and not while nothing changes. The client's reconnect is
// then authorized (or refused) on the user as it is now.
func TestStaleStreamAuthorization(t *testing.T) {
	const every = 50 * time.Millisecond
	n := start(t, auth.ModeHS256, node.Config{}, server.Config{UserRightsCheckInterval: every,
		CheckpointDelay: time.Hour, // no checkpoint frames: the streams below stay silent
		Logger:          slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	n.createUser("u1", ledgerapi.CanReadAs(alice))
	tok := n.token("u1")
	completions := map[string]any{"userId": "u1", "parties": []string{alice}, "beginExclusive": 0}

	// open dials a completions stream; silent checks that nothing arrives
	// for several check intervals; stale that the stream ends with the
	// error frame and a close.
	open := func(token string) *websocket.Conn {
		t.Helper()
		c, _, err := dialCompletions(t, n, token, completions)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	silent := func(what string, c *websocket.Conn) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 6*every)
		defer cancel()
		if _, data, err := c.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: the stream sent %s (%v), want nothing", what, data, err)
		}
	}
	stale := func(what string, c *websocket.Conn) {
		t.Helper()
		if _, e := readFrame(t, c); e == nil || e.Code != "STALE_STREAM_AUTHORIZATION" || e.Cause != "Stale stream authorization. Retry quickly." ||
			e.RetryInfo == nil || *e.RetryInfo != "0 seconds" {
			t.Fatalf("%s: frame %+v, want STALE_STREAM_AUTHORIZATION", what, e)
		}
		if _, _, err := c.Read(t.Context()); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Errorf("%s: after the error frame %v, want a normal close", what, err)
		}
	}
	rights := func(method string, r ledgerapi.Right) {
		t.Helper()
		n.ok(method, "/v2/users/u1/rights", n.admin, map[string]any{"userId": "u1", "rights": []any{r}}, nil)
	}

	// Reading a silent stream: a failed read closes a coder/websocket
	// connection, so each silence check uses its own stream.
	silent("nothing changed", open(tok))

	c := open(tok)
	rights("POST", ledgerapi.CanReadAs(bob))
	stale("a right granted", c)
	silent("reconnected after the grant", open(tok))

	c = open(tok)
	rights("PATCH", ledgerapi.CanReadAs(bob))
	stale("a right revoked", c)

	c = open(tok)
	n.ok("PATCH", "/v2/users/u1", n.admin, map[string]any{"user": map[string]any{"id": "u1", "isDeactivated": true},
		"updateMask": map[string]any{"paths": []string{"is_deactivated"}}}, nil)
	stale("the user deactivated", c)
	if _, resp, err := dialCompletions(t, n, tok, completions); err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("reconnecting as a deactivated user: %v %v, want 403", resp, err)
	}
	n.ok("PATCH", "/v2/users/u1", n.admin, map[string]any{"user": map[string]any{"id": "u1", "isDeactivated": false},
		"updateMask": map[string]any{"paths": []string{"is_deactivated"}}}, nil)

	c = open(tok)
	n.ok("DELETE", "/v2/users/u1", n.admin, nil, nil)
	stale("the user deleted", c)

	// A user of an identity provider: the provider deactivated.
	x := newTestIDP(t, "idp-x", 0)
	n.ok("POST", "/v2/idps", n.admin, x.config(), nil)
	n.createUserIn("idp-x", "xuser", ledgerapi.CanReadAs(alice))
	completions["userId"] = "xuser"
	c = open(x.token("xuser", "ec"))
	n.ok("PATCH", "/v2/idps/idp-x", n.admin, map[string]any{"identityProviderConfig": map[string]any{"identityProviderId": "idp-x", "isDeactivated": true},
		"updateMask": map[string]any{"paths": []string{"is_deactivated"}}}, nil)
	stale("the identity provider deactivated", c)
}
