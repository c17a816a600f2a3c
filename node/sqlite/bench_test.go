package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// benchEntry is a realistic accepted command: one created contract and an
// events blob of about 1 KiB.
func benchEntry(n int64) ledger.Entry {
	cmd := fmt.Sprintf("bench-%d", n)
	e := accepted("bench-user", cmd, "Alice::1220aabbccddeeff00112233445566778899aabbccddeeff0011223344556677")
	e.SubmissionID = fmt.Sprintf("%032x", n)
	e.Transaction.Events = make([]byte, 1024)
	return withContracts(e, []string{fmt.Sprintf("00%064x", n)})
}

// BenchmarkCommitParallel measures durable commits (WAL, synchronous=FULL,
// a real file) from 64 concurrent callers and reports commits/s and
// commits per fsync (group commit batch size).
func BenchmarkCommitParallel(b *testing.B) {
	s, _ := openTemp(b)
	ctx := context.Background()
	var seq atomic.Int64
	b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	before := s.Stats()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Commit(ctx, benchEntry(seq.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed := time.Since(start)
	b.StopTimer()
	st := s.Stats()
	commits, batches := st.Commits-before.Commits, st.Batches-before.Batches
	b.ReportMetric(float64(commits)/elapsed.Seconds(), "commits/s")
	if batches > 0 {
		b.ReportMetric(float64(commits)/float64(batches), "commits/fsync")
	}
}

// BenchmarkCommitSerial is one caller committing in a loop: the latency of
// a lone durable commit (about one fsync).
func BenchmarkCommitSerial(b *testing.B) {
	s, _ := openTemp(b)
	ctx := context.Background()
	var n int64
	for b.Loop() {
		n++
		if _, err := s.Commit(ctx, benchEntry(n)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commits/s")
}

// BenchmarkCompletions reads completions of one user in pages of 200, as
// the completions endpoint does.
func BenchmarkCompletions(b *testing.B) {
	s, _ := openTemp(b)
	ctx := context.Background()
	fillContracts(b, s, 20000, 1)
	b.ResetTimer()
	read := 0
	for b.Loop() {
		after := int64(0)
		for {
			cs, err := s.Completions(ctx, ledger.CompletionQuery{After: after, UserID: "bench-user",
				Parties: []string{"Alice::1220aabbccddeeff00112233445566778899aabbccddeeff0011223344556677"}, Limit: 200})
			if err != nil {
				b.Fatal(err)
			}
			if len(cs) == 0 {
				break
			}
			read += len(cs)
			after = cs[len(cs)-1].Offset
		}
	}
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "completions/s")
}

// fillContracts commits entries (each creating perEntry contracts) from 64
// goroutines until n contracts exist.
func fillContracts(tb testing.TB, s *Store, n, perEntry int) {
	tb.Helper()
	ctx := context.Background()
	var next atomic.Int64
	errs := make(chan error, 64)
	for range 64 {
		go func() {
			for {
				k := next.Add(1) - 1
				if k*int64(perEntry) >= int64(n) {
					errs <- nil
					return
				}
				e := benchEntry(k)
				e.Transaction.Created = e.Transaction.Created[:0]
				ids := make([]string, perEntry)
				for j := range ids {
					ids[j] = fmt.Sprintf("00%056x%08x", k, j)
				}
				e = withContracts(e, ids)
				if _, err := s.Commit(ctx, e); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range 64 {
		if err := <-errs; err != nil {
			tb.Fatal(err)
		}
	}
}

// TestMemoryWithMillionContracts is not part of the default run: set
// LEDGER_STORE_MEMTEST=1 (optionally =N contracts). It fills a file store
// with contracts and reports the process RSS (VmRSS and VmHWM).
func TestMemoryWithMillionContracts(t *testing.T) {
	v := os.Getenv("LEDGER_STORE_MEMTEST")
	if v == "" {
		t.Skip("set LEDGER_STORE_MEMTEST=1 to run (inserts 1,000,000 contracts)")
	}
	n := 1_000_000
	if k, err := strconv.Atoi(v); err == nil && k > 1 {
		n = k
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	fillContracts(t, s, n, 100)
	fillTime := time.Since(start)
	ctx := context.Background()
	// Look some up, as a serving node would.
	for i := range 10000 {
		k := int64(i * (n / 100) / 10000)
		if _, err := s.Contract(ctx, fmt.Sprintf("00%056x%08x", k, i%100)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	rss, hwm := procStatus(t, "VmRSS"), procStatus(t, "VmHWM")
	fi, _ := os.Stat(path)
	var size int64
	if fi != nil {
		size = fi.Size()
	}
	t.Logf("%d contracts in %v (%d entries); RSS %s, peak %s; database file %d MiB",
		n, fillTime.Round(time.Second), s.LedgerEnd(), rss, hwm, size>>20)
}

func procStatus(t *testing.T, key string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "?"
}
