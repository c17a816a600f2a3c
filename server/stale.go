package server

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// A websocket stream outlives the request that authorized it, so, as
// Canton's UserBasedOngoingAuthorization does, a stream opened with a
// user's token checks that user again every UserRightsCheckInterval and
// ends with STALE_STREAM_AUTHORIZATION (retryable at once) when the user
// is gone or deactivated, has moved to another identity provider, has other
// rights than when the stream opened, or when the token's identity
// provider is deactivated or gone. The client reconnects; the new request
// is then authorized or refused on the user as it is now.

// DefaultUserRightsCheckInterval is Canton's default
// (user-management-service.cache-expiry-after-write-in-seconds).
const DefaultUserRightsCheckInterval = 5 * time.Second

// staleStreamAuthorization is Canton's error for a stream whose user's
// authorization changed. Its retry delay is zero (Canton overrides its
// category's second), written as Scala writes 0.seconds.
func staleStreamAuthorization() error {
	e := ledgerapi.Errorf(ledgerapi.CodeStaleStreamAuthorization, "Stale stream authorization. Retry quickly.")
	now := "0 seconds"
	e.RetryInfo = &now
	return e
}

// rightsWatch re-checks the user of a stream's caller; a nil watch (a
// wildcard caller, in auth mode none) never fires.
type rightsWatch struct {
	s      *Server
	caller *Caller
	ticker *time.Ticker
}

func (s *Server) watchRights(c *Caller) *rightsWatch {
	if c.Wildcard() || c.UserID == "" {
		return nil
	}
	return &rightsWatch{s: s, caller: c, ticker: time.NewTicker(s.UserRightsCheckInterval)}
}

// C fires when a check is due (nil for a nil watch: never).
func (w *rightsWatch) C() <-chan time.Time {
	if w == nil {
		return nil
	}
	return w.ticker.C
}

func (w *rightsWatch) stop() {
	if w != nil {
		w.ticker.Stop()
	}
}

// due runs the check when one is due, without waiting: the error ending
// the stream, or nil.
func (w *rightsWatch) due(ctx context.Context) error {
	select {
	case <-w.C():
		return w.check(ctx)
	default:
		return nil
	}
}

// check compares the caller's user as stored now with the user the stream
// was authorized for.
func (w *rightsWatch) check(ctx context.Context) error {
	c := w.caller
	u, rights, err := w.s.Node.UserAndRights(ctx, c.UserID)
	if errors.Is(err, ledger.ErrNotFound) {
		return staleStreamAuthorization()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Canton ends the stream when the check itself fails.
		w.s.Log.Warn("re-checking a stream's user", "user", c.UserID, "error", err)
		return staleStreamAuthorization()
	}
	if u.IsDeactivated || u.IdentityProviderID != c.IdentityProviderID || !sameRights(rights, c.Rights) {
		return staleStreamAuthorization()
	}
	if c.IdentityProviderID != "" {
		p, err := w.s.Node.IdentityProvider(ctx, c.IdentityProviderID)
		if err != nil || p.IsDeactivated {
			return staleStreamAuthorization()
		}
	}
	return nil
}

// sameRights reports whether two lists hold the same rights, in any order.
func sameRights(a, b []ledger.Right) bool {
	order := func(x, y ledger.Right) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Party, y.Party))
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.SortFunc(x, order)
	slices.SortFunc(y, order)
	return slices.Equal(x, y)
}
