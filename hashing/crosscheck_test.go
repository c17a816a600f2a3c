//go:build unix

package hashing_test

// Cross-checks of our V2 hash against the TypeScript wallet SDK
// (npm @canton-network/wallet-sdk), through the scripts in
// conformance/hashing. They run only where `node` is on PATH and
// `npm ci` has been run in conformance/hashing; otherwise they skip.

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/txgen"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

const conformanceDir = "../conformance/hashing"

// requireNodeSDK skips the test unless node and the installed SDK are there.
func requireNodeSDK(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping the TypeScript SDK cross-check: `node` is not on PATH")
	}
	dir, err = filepath.Abs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@canton-network/wallet-sdk", "@canton-network/core-tx-visualizer"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("skipping the TypeScript SDK cross-check: %s is not installed; run `npm ci` in conformance/hashing", pkg)
		}
	}
	return node, dir
}

// installedVersion reads the version of an installed npm package.
func installedVersion(t *testing.T, dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s/package.json: %v", pkg, err)
	}
	return p.Version
}

// crossCheckSet is the batch of generated V2 transactions: one third small,
// the rest a few to a few dozen nodes; half of those keep int64s within
// ±2^53, so that both classes are well represented.
func crossCheckSet(n int) []*damlpb.PreparedTransaction {
	txs := make([]*damlpb.PreparedTransaction, n)
	for i := range txs {
		r := rand.New(rand.NewPCG(uint64(i), 0x63726f7373))
		var opts txgen.Options
		switch i % 3 {
		case 0:
			opts = txgen.Small()
		default:
			opts = txgen.Options{Nodes: 2 + r.IntN(40), MaxDepth: 1 + r.IntN(12), SafeInt64: i%2 == 0}
		}
		if i%50 == 49 {
			opts = txgen.Options{Nodes: 20, MaxDepth: hashing.MaxValueNesting}
		}
		txs[i] = txgen.Generate(r, opts)
	}
	return txs
}

func marshalAll(t testing.TB, txs []*damlpb.PreparedTransaction) [][]byte {
	out := make([][]byte, len(txs))
	for i, pt := range txs {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

func base64Lines(bins [][]byte) []byte {
	var buf bytes.Buffer
	for _, b := range bins {
		buf.WriteString(base64.StdEncoding.EncodeToString(b))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// sdkHashes runs hash.mjs once over all transactions.
func sdkHashes(t *testing.T, node, dir, impl string, bins [][]byte) []string {
	t.Helper()
	cmd := exec.Command(node, "hash.mjs", "--impl", impl)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(base64Lines(bins))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node hash.mjs --impl %s: %v\n%s", impl, err, stderr.String())
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(bins) {
		t.Fatalf("hash.mjs --impl %s printed %d lines for %d transactions", impl, len(lines), len(bins))
	}
	return lines
}

// TestCrossCheckTypeScriptSDK hashes a few hundred generated V2
// transactions with our hasher and with each of the SDK's two V2 hashers.
// A hasher must agree on every transaction, except that disagreement is
// tolerated, and logged, on transactions holding an int64 beyond ±2^53 —
// the known parseInt bug of core-tx-visualizer (docs/hashing.md §10 item 7).
// Any other disagreement fails the test.
func TestCrossCheckTypeScriptSDK(t *testing.T) {
	node, dir := requireNodeSDK(t)
	txs := crossCheckSet(360)
	bins := marshalAll(t, txs)
	ours := make([]string, len(bins))
	unsafe := make([]bool, len(txs))
	nUnsafe := 0
	for i, b := range bins {
		sum, err := hashing.Sum(b, hashing.V2)
		if err != nil {
			t.Fatalf("transaction %d: our hasher refused a generated transaction: %v", i, err)
		}
		ours[i] = hashing.Hex(sum)
		if unsafe[i] = txgen.HasUnsafeInt64(txs[i]); unsafe[i] {
			nUnsafe++
		}
	}
	if nUnsafe == 0 || nUnsafe == len(txs) {
		t.Fatalf("the batch needs transactions with and without int64s beyond 2^53; %d of %d have them", nUnsafe, len(txs))
	}

	for _, impl := range []struct{ name, pkg string }{
		{"sdk", "@canton-network/wallet-sdk"},
		{"visualizer", "@canton-network/core-tx-visualizer"},
	} {
		t.Run(impl.name, func(t *testing.T) {
			theirs := sdkHashes(t, node, dir, impl.name, bins)
			agreeSafe, agreeUnsafe, differUnsafe := 0, 0, 0
			for i := range bins {
				switch {
				case strings.HasPrefix(theirs[i], "error:"):
					t.Errorf("transaction %d: %s %s refused it: %s", i, impl.pkg, installedVersion(t, dir, impl.pkg), theirs[i])
				case theirs[i] == ours[i] && unsafe[i]:
					agreeUnsafe++
				case theirs[i] == ours[i]:
					agreeSafe++
				case unsafe[i]:
					differUnsafe++
				default:
					t.Errorf("transaction %d (no int64 beyond 2^53): ours %s, %s %s", i, ours[i], impl.pkg, theirs[i])
				}
			}
			summary := fmt.Sprintf("%s %s: %d transactions, %d with an int64 beyond ±2^53; agrees on %d/%d without and %d/%d with",
				impl.pkg, installedVersion(t, dir, impl.pkg), len(bins), nUnsafe,
				agreeSafe, len(bins)-nUnsafe, agreeUnsafe, nUnsafe)
			if differUnsafe > 0 {
				summary += fmt.Sprintf("; its %d disagreements are all on int64s beyond ±2^53: the known parseInt precision bug", differUnsafe)
			}
			t.Log(summary)
		})
	}
}

// TestCrossCheckThroughput measures, in one run on the same inputs, our
// hashing.Sum throughput and the SDK's (bench.mjs, in-process, start-up
// excluded), and prints the ratio. Set LEDGER_TS_BENCH=1 to run it.
func TestCrossCheckThroughput(t *testing.T) {
	if os.Getenv("LEDGER_TS_BENCH") != "1" {
		t.Skip("set LEDGER_TS_BENCH=1 to measure throughput against the TypeScript SDK")
	}
	node, dir := requireNodeSDK(t)
	minSeconds := 5.0
	sets := []struct {
		name  string
		opts  txgen.Options
		count int
	}{
		{"small", txgen.Small(), 200},
		{"medium", txgen.Medium(), 20},
		{"large", txgen.Large(), 1},
	}
	tmp := t.TempDir()
	type result struct {
		name          string
		txs, bytes    int
		bins          [][]byte
		before, after rate // our tx/s
		sdk, vis      benchLine
	}
	var results []result
	var files []string
	for _, s := range sets {
		txs := make([]*damlpb.PreparedTransaction, s.count)
		for i := range txs {
			txs[i] = txgen.Generate(rand.New(rand.NewPCG(uint64(i), 0x62656e6368)), s.opts)
		}
		bins := marshalAll(t, txs)
		total := 0
		for _, b := range bins {
			total += len(b)
		}
		f := filepath.Join(tmp, s.name+".b64")
		if err := os.WriteFile(f, base64Lines(bins), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		results = append(results, result{name: s.name, txs: len(bins), bytes: total, bins: bins})
	}
	// Ours is measured before and after the SDK, and the two averaged, so a
	// change in machine load during the run shows and evens out.
	for i := range results {
		results[i].before = measureOurs(t, results[i].bins, minSeconds)
	}
	sdk := runBench(t, node, dir, "sdk", minSeconds, files)
	for i := range results {
		results[i].after = measureOurs(t, results[i].bins, minSeconds)
	}
	vis := runBench(t, node, dir, "visualizer", minSeconds, files)
	t.Logf("throughput in transactions per second of CPU time (wall-clock in brackets); ratio = ledger / SDK")
	t.Logf("%-7s %5s %9s | %-22s %-20s %-20s | %-15s %-15s", "set", "txs", "bytes/tx", "ledger", "wallet-sdk", "tx-visualizer", "×sdk cpu (wall)", "×vis cpu (wall)")
	for i := range results {
		r := &results[i]
		r.sdk, r.vis = sdk[i], vis[i]
		ours := rate{(r.before.wall + r.after.wall) / 2, (r.before.cpu + r.after.cpu) / 2}
		t.Logf("%-7s %5d %9d | %-22s %-20s %-20s | %-15s %-15s", r.name, r.txs, r.bytes/r.txs,
			num(ours.cpu)+" ("+num(ours.wall)+")",
			num(r.sdk.TxPerCPUSec)+" ("+num(r.sdk.TxPerSec)+")",
			num(r.vis.TxPerCPUSec)+" ("+num(r.vis.TxPerSec)+")",
			num(ours.cpu/r.sdk.TxPerCPUSec)+" ("+num(ours.wall/r.sdk.TxPerSec)+")",
			num(ours.cpu/r.vis.TxPerCPUSec)+" ("+num(ours.wall/r.vis.TxPerSec)+")")
		t.Logf("%-7s ledger cpu tx/s before the SDK %s, after %s", r.name, num(r.before.cpu), num(r.after.cpu))
	}
}

// rate is a throughput measured two ways: per wall-clock second and per
// second of the process's CPU time (user+system, all threads), which other
// load on the machine disturbs much less.
type rate struct{ wall, cpu float64 }

// cpuSeconds returns the CPU time this process has used so far.
func cpuSeconds(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	tv := func(v syscall.Timeval) float64 { return float64(v.Sec) + float64(v.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// measureOurs hashes bins over and over for at least minSeconds, the same
// loop bench.mjs runs, and returns transactions per second.
func measureOurs(t *testing.T, bins [][]byte, minSeconds float64) rate {
	for _, b := range bins { // warm-up, as bench.mjs does
		if _, err := hashing.Sum(b, hashing.V2); err != nil {
			t.Fatal(err)
		}
	}
	rounds, cpu0, start := 0, cpuSeconds(t), time.Now()
	for time.Since(start).Seconds() < minSeconds {
		for _, b := range bins {
			if _, err := hashing.Sum(b, hashing.V2); err != nil {
				t.Fatal(err)
			}
		}
		rounds++
	}
	n := float64(rounds * len(bins))
	return rate{wall: n / time.Since(start).Seconds(), cpu: n / (cpuSeconds(t) - cpu0)}
}

// num formats a positive rate with about three significant digits.
func num(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 1:
		return fmt.Sprintf("%.3g", x)
	}
	return fmt.Sprintf("%.2g", x)
}

type benchLine struct {
	File             string
	Impl             string
	Txs, Iterations  int
	Seconds          float64
	CPUSeconds       float64 `json:"cpuSeconds"`
	TxPerSec         float64
	TxPerCPUSec      float64 `json:"txPerCpuSec"`
	ProtoBytesPerSec float64
}

func runBench(t *testing.T, node, dir, impl string, minSeconds float64, files []string) []benchLine {
	t.Helper()
	args := append([]string{"bench.mjs", "--impl", impl, "--min-seconds", fmt.Sprint(minSeconds)}, files...)
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node bench.mjs --impl %s: %v\n%s", impl, err, stderr.String())
	}
	var lines []benchLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var l benchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bench.mjs printed %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) != len(files) {
		t.Fatalf("bench.mjs --impl %s printed %d results for %d files", impl, len(lines), len(files))
	}
	return lines
}
