package integration

import (
	"context"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/bench"
	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server/auth"
)

// BenchmarkTokenTransfers runs `ledger bench token` in process, against a
// node on a temporary database file: b.N token-standard transfers of
// my-exercise-app's token from 64 clients, each a TransferFactory_Transfer
// and the admin's TransferInstruction_Update, durable commits. It reports
// transfers/s, the latency of a whole transfer, and the process CPU per
// transfer (clients and node together; the node's own share is what `ledger
// serve` reports under `ledger bench token`). With -cpuprofile it profiles
// the node path.
func BenchmarkTokenTransfers(b *testing.B) {
	var dars [][]byte
	for _, f := range splice.TokenAppDars {
		dars = append(dars, sharedDar(b, f))
	}
	run, hc := benchNode(b, auth.ModeNone, node.Config{})
	c, err := client.New(client.Config{URL: run.URL(), HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	// The CPU of the measured phase: from its first progress report (every
	// 10 ms) to its last.
	var cpu0, cpu1 time.Duration
	cfg := bench.Config{Client: c, UserID: ledger.AdminUserID, Scenario: bench.ScenarioToken, Concurrency: benchClients, Dars: dars,
		Count: int64(b.N), ProgressEvery: 10 * time.Millisecond, Progress: func(p bench.Progress) {
			switch {
			case p.Phase != "run":
			case p.Done:
				cpu1 = processCPU()
			case cpu0 == 0:
				cpu0 = processCPU()
			}
		}}
	b.ResetTimer()
	sum, err := bench.Run(context.Background(), cfg)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if sum.Failed > 0 {
		b.Fatalf("%d of %d transfers failed: %v", sum.Failed, sum.Ops, sum.ErrorExamples)
	}
	b.ReportMetric(sum.TransfersPerSecond, "transfers/s")
	b.ReportMetric(sum.LatencyMs.P50, "p50-ms")
	b.ReportMetric(sum.LatencyMs.P99, "p99-ms")
	if cpu0 > 0 && sum.Ops > 0 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(sum.Ops), "cpu-µs/transfer")
	}
}
