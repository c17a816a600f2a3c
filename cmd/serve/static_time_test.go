package serve

import (
	"context"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestStaticTimeFlag: --static-time starts the node at the epoch, with
// /v2/testing/time, and the commands' clock is the one it sets.
func TestStaticTimeFlag(t *testing.T) {
	cfg, err := serveConfig(&Options{StaticTime: true, DB: ":memory:", Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Clock == nil || cfg.Node.Now == nil {
		t.Fatal("--static-time gave the node no static clock")
	}
	run, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	c, err := client.New(client.Config{URL: run.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := c.Time(ctx)
	if err != nil || !got.CurrentTime.Equal(time.Unix(0, 0)) {
		t.Fatalf("time %v, %v; want the epoch", got, err)
	}
	next := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := c.SetTime(ctx, ledgerapi.SetTimeRequest{CurrentTime: got.CurrentTime, NewTime: ledgerapi.Timestamp{Time: next}}); err != nil {
		t.Fatal(err)
	}
	if now := cfg.Node.Now(); !now.Equal(next) {
		t.Errorf("the node's clock says %s, want %s", now, next)
	}
	// Without the flag: wall-clock time, no clock to set.
	cfg, err = serveConfig(&Options{DB: ":memory:", Addr: "127.0.0.1:0"})
	if err != nil || cfg.Server.Clock != nil || cfg.Node.Now != nil {
		t.Errorf("without --static-time: clock %v, now %v, err %v", cfg.Server.Clock, cfg.Node.Now != nil, err)
	}
}
