#!/usr/bin/env node
// Reads one base64 PreparedTransaction per line on stdin and prints, per
// line and in order, the V2 hash the TypeScript SDK computes, as lower-case
// hex. A line the SDK cannot hash prints "error: <reason>" instead.
//
//   node hash.mjs [--impl sdk|visualizer] < txs.b64

import { createInterface } from "node:readline";
import { makeHasher, parseImpl } from "./hashers.mjs";

const { impl } = parseImpl(process.argv.slice(2));
const hash = makeHasher(impl);

const out = [];
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const raw of lines) {
  const line = raw.trim();
  if (line === "") continue;
  try {
    out.push(await hash(line));
  } catch (err) {
    out.push("error: " + String(err?.message ?? err).replace(/\s+/g, " "));
  }
  if (out.length >= 256) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
}
if (out.length > 0) process.stdout.write(out.join("\n") + "\n");
