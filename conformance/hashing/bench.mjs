#!/usr/bin/env node
// Measures the TypeScript SDK's V2 hash throughput in-process, so process
// start-up and module loading are excluded.
//
//   node bench.mjs [--impl sdk|visualizer] [--min-seconds S] FILE...
//
// Each FILE holds base64 PreparedTransactions, one per line. For each file
// the script hashes every transaction once to warm up, then hashes the whole
// file again and again until at least S seconds (default 2) have passed, and
// prints one JSON object per file:
//   {"file":…, "impl":…, "txs":n, "iterations":k, "seconds":t, "cpuSeconds":c,
//    "txPerSec":…, "txPerCpuSec":…, "protoBytesPerSec":…}
// seconds is wall-clock time; cpuSeconds is the process's user+system CPU
// time over the same span (all threads, so garbage collection counts), which
// a busy machine disturbs much less. protoBytesPerSec counts the decoded
// PreparedTransaction bytes; the SDK exposes no preimage, so preimage
// bytes/s is not measurable here.

import { readFileSync } from "node:fs";
import { makeHasher, parseImpl } from "./hashers.mjs";

const { impl, rest } = parseImpl(process.argv.slice(2));
let minSeconds = 2;
const files = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--min-seconds") minSeconds = Number(rest[++i]);
  else files.push(rest[i]);
}
if (files.length === 0 || !(minSeconds > 0)) {
  process.stderr.write("usage: node bench.mjs [--impl sdk|visualizer] [--min-seconds S] FILE...\n");
  process.exit(2);
}
const hash = makeHasher(impl);

for (const file of files) {
  const txs = readFileSync(file, "utf8").split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const protoBytes = txs.reduce((n, b64) => n + Buffer.from(b64, "base64").length, 0);
  for (const tx of txs) await hash(tx); // warm-up: JIT, lazy module state
  let iterations = 0;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    for (const tx of txs) await hash(tx);
    iterations++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < minSeconds);
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const n = iterations * txs.length;
  process.stdout.write(
    JSON.stringify({
      file,
      impl,
      txs: txs.length,
      iterations,
      seconds: elapsed,
      cpuSeconds,
      txPerSec: n / elapsed,
      txPerCpuSec: n / cpuSeconds,
      protoBytesPerSec: (iterations * protoBytes) / elapsed,
    }) + "\n",
  );
}
