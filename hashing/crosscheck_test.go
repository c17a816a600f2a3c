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
// the known parseInt bug of core-tx-visualizer (hashing.md §10 item 7).
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
	minSeconds := 3.0
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
		name              string
		txs, bytes        int
		oursTx, oursBytes float64
		sdk, vis          benchLine
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
		// Ours: the same loop as bench.mjs, over the same bytes.
		rounds, start := 0, time.Now()
		for time.Since(start).Seconds() < minSeconds {
			for _, b := range bins {
				if _, err := hashing.Sum(b, hashing.V2); err != nil {
					t.Fatal(err)
				}
			}
			rounds++
		}
		el := time.Since(start).Seconds()
		results = append(results, result{
			name: s.name, txs: len(bins), bytes: total,
			oursTx:    float64(rounds*len(bins)) / el,
			oursBytes: float64(rounds*total) / el,
		})
	}
	sdk := runBench(t, node, dir, "sdk", minSeconds, files)
	vis := runBench(t, node, dir, "visualizer", minSeconds, files)
	t.Logf("%-7s %6s %12s | %14s %14s %14s | %9s %9s", "set", "txs", "tx bytes", "ledger tx/s", "sdk tx/s", "visualizer tx/s", "×sdk", "×visual.")
	for i := range results {
		r := &results[i]
		r.sdk, r.vis = sdk[i], vis[i]
		t.Logf("%-7s %6d %12d | %14.1f %14.1f %14.1f | %9.1f %9.1f", r.name, r.txs, r.bytes/r.txs,
			r.oursTx, r.sdk.TxPerSec, r.vis.TxPerSec, r.oursTx/r.sdk.TxPerSec, r.oursTx/r.vis.TxPerSec)
		t.Logf("%-7s protobuf MB/s: ledger %.1f, sdk %.2f, visualizer %.2f", r.name,
			r.oursBytes/1e6, r.sdk.ProtoBytesPerSec/1e6, r.vis.ProtoBytesPerSec/1e6)
	}
}

type benchLine struct {
	File             string
	Impl             string
	Txs, Iterations  int
	Seconds          float64
	TxPerSec         float64
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
