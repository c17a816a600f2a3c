package script

import (
	"context"
	"testing"
)

// BenchmarkSpliceWalletScripts runs the 20 scripts of splice-wallet-test
// one after the other, each on a fresh in-memory ledger: one op is the
// whole suite, as ledger test -j 1 runs it (the DAR decoded once, outside
// the loop).
func BenchmarkSpliceWalletScripts(b *testing.B) {
	r := newRunner(b, sharedDar(b, "splice-wallet-test-0.1.8.dar"))
	names := r.Scripts()
	b.ResetTimer()
	for b.Loop() {
		commands := 0
		for _, n := range names {
			res, err := r.Run(context.Background(), n, NewMemoryLedger(r), Options{})
			if err != nil {
				b.Fatal(err)
			}
			commands += res.Commands
		}
		b.ReportMetric(float64(commands), "commands/op")
	}
}
