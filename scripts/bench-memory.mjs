#!/usr/bin/env node
// The interactive `sylk`'s memory on a large tree, alone (scripts/bench-everyday.mjs runs the same
// section among its everyday figures): the resident set during and after a first index in a new
// SYLK_HOME, then of a new `sylk` on the finished index, idle and after one `/search`.
//
//   npm run build && node scripts/bench-memory.mjs --tree <dir> [--settle-ms 15000] [--query "…"] [--timeline]
//       [--index-command] [--sylk <bin/sylk.js of another build>]
//
// --index-command also times `sylk index` on the tree in a new SYLK_HOME, after the TUI's figures, for
// the TUI's first index beside it. --sylk measures another build (a branch point, for a before/after).
//
// --tree is a checkout of a large repository; docs/BENCHMARKS.md uses biomejs/biome at 18883b7d.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { measureIndexCommand, measureTuiMemory, memoryRows } from "./lib/bench-memory-rows.mjs";
import { requireScriptCommand } from "./lib/pseudo-terminal.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    "settle-ms": { type: "string", default: "15000" },
    query: { type: "string", default: "parse formatter options" },
    /** Also print the resident set sampled during the first index, one line a second. */
    timeline: { type: "boolean", default: false },
    "index-command": { type: "boolean", default: false },
    sylk: { type: "string" },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error('Usage: node scripts/bench-memory.mjs --tree <dir> [--settle-ms 15000] [--query "…"] [--timeline]');
  process.exit(2);
}
requireScriptCommand("bench-memory");

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const settleMs = Number(values["settle-ms"]);
const sylk = values.sylk ? resolve(values.sylk) : join(repo, "bin/sylk.js");
const figures = await measureTuiMemory({
  sylk,
  tree: resolve(values.tree),
  env: process.env,
  query: values.query,
  settleMs,
  log: (line) => console.error(line),
});
if (values.timeline) {
  let lastSecond = -1;
  for (const sample of figures.timeline) {
    if (Math.floor(sample.seconds) === lastSecond) continue;
    lastSecond = Math.floor(sample.seconds);
    console.log(`${sample.seconds.toFixed(1)} s\t${Math.round(sample.rss)} MB`);
  }
}
console.log(`\nThe interactive sylk's memory on ${values.tree}\n`);
for (const line of memoryRows(figures, settleMs)) console.log(line);
if (values["index-command"]) {
  console.error("memory: sylk index on the same tree, in a new SYLK_HOME…");
  const index = await measureIndexCommand({ sylk, tree: resolve(values.tree), env: process.env });
  console.log(`| \`sylk index\` on the same tree: wall time, peak | ${index.seconds.toFixed(1)} s, ${Math.round(index.peak)} MB | — |`);
  console.log(`| the TUI's first index beside it | ${(figures.indexSeconds / index.seconds).toFixed(2)}× | ≤ 1.2× |`);
}
