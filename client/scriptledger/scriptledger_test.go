package scriptledger

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	l := &Ledger{}
	start := time.Now()
	if err := l.Sleep(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("Sleep(20ms) = %v after %s", err, time.Since(start))
	}
	if err := l.Sleep(context.Background(), 2*time.Hour); err == nil || !strings.Contains(err.Error(), "longer than 1h0m0s") {
		t.Errorf("Sleep(2h) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Sleep(ctx, time.Minute); err != context.Canceled {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
}
