#!/usr/bin/env node
// The floor of a first index's per-file work: each step a file worker takes,
// alone, over every file a full walk of the tree would index, on one thread,
// with the CPU of each step summed (`process.threadCpuUsage` around it).
// The steps are the ones `processFile` takes, in its order, on the same
// inputs: read (the bytes, their hash, the binary test, the decode), the
// secrets' mask, tree-sitter's parse alone, the symbol query's captures
// (or the descendants walk that replaces them) alone, the rest of the extraction (names, comments), chunking, the chunk
// features (full-text terms and the built-in embedding), the trigram sketch.
// Then the same files through `processFile` whole, for the sum to be judged
// against. V8's helper threads (garbage collection, WebAssembly compiles and
// tier-up) are the process's CPU less this thread's, reported apart.
//
//   npm run build && node scripts/bench-index-floor.mjs --tree <checkout> [--build <checkout, built>] [--limit N] [--whole-only]
//
// --whole-only: processFile whole alone (for a build older than this script, which lacks the
// exports the steps need, or to compare builds in less time).
//
// docs/BENCHMARKS.md runs it on biomejs/biome at 18883b7d.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildModules, filesToIndex } from "./lib/index-bench-build.mjs";
import { fileSteps, PARSE_ALONE, SYMBOLS_ALONE } from "./lib/index-bench-steps.mjs";
import { loadAverages } from "./lib/proc-stats.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string" },
    limit: { type: "string" },
    "whole-only": { type: "boolean", default: false },
  },
});
if (!values.tree) {
  console.error("Usage: node scripts/bench-index-floor.mjs --tree <checkout> [--build <checkout, built>] [--limit N]");
  process.exit(2);
}
const tree = resolve(values.tree);
const { checkout: build, load } = buildModules(values.build);

const { processFile, featurizerFor } = await load("indexer/file-processor.js");
const { TreeSitterExtractor } = await load("parsing/tree-sitter-extractor.js");

const indexable = await filesToIndex(load, tree);
const config = indexable.config;
const files = indexable.files.slice(0, values.limit ? Number(values.limit) : undefined);
const task = { root: tree, chunkLines: config.index.chunkLines, embeddingDimensions: 256 };
console.error(`${files.length} files to index under ${tree}`);

const seconds = new Map();
const counts = new Map();
let started = process.threadCpuUsage();
const stepsRun = !values["whole-only"];
const steps = stepsRun ? await fileSteps(load, task) : undefined;
if (steps && steps.indexedPart === undefined) throw new Error(`${build} does not export indexedPart: run it with --whole-only`);
/** Charges the CPU since the last call to `step`. */
function charge(step, times = 1) {
  const now = process.threadCpuUsage();
  seconds.set(step, (seconds.get(step) ?? 0) + (now.user - started.user + now.system - started.system) / 1e6);
  counts.set(step, (counts.get(step) ?? 0) + times);
  started = now;
}

const processStart = process.cpuUsage();
const threadStart = process.threadCpuUsage();
let parsedBytes = 0;
let chunkCount = 0;
started = process.threadCpuUsage();
for (const file of stepsRun ? files : []) {
  const done = await steps.step(file, charge);
  if (done === undefined) continue;
  if (done.symbolNodes) parsedBytes += done.bytes.length;
  chunkCount += done.chunks.length;
}
const stepsThread = process.threadCpuUsage(threadStart);
const stepsProcess = process.cpuUsage(processStart);

// The same files through processFile whole, with the same (now warm) extractor and a new featurizer.
const wholeThreadStart = process.threadCpuUsage();
const wholeProcessStart = process.cpuUsage();
const wholeFeaturizer = featurizerFor(task);
let wholeChunks = 0;
// The steps' extractor (its grammars loaded), else a new one.
const extractor = steps?.extractor ?? new TreeSitterExtractor();
for (const file of files) wholeChunks += (await processFile(task, file, extractor, wholeFeaturizer)).chunks.length;
const wholeThread = process.threadCpuUsage(wholeThreadStart);
const wholeProcess = process.cpuUsage(wholeProcessStart);

const cpu = (usage) => (usage.user + usage.system) / 1e6;
const apart = [PARSE_ALONE, SYMBOLS_ALONE];
const rows = [...seconds].filter(([step]) => !apart.includes(step));
const total = rows.reduce((sum, [, s]) => sum + s, 0);
console.log(`load ${loadAverages()}; ${files.length} files, ${(parsedBytes / 1e6).toFixed(1)} MB parsed, ${chunkCount} chunks`);
if (stepsRun) for (const [step, s] of rows) console.log(`${step.padEnd(48)} ${s.toFixed(2)} s  ${((100 * s) / total).toFixed(1)} %`);
if (stepsRun) console.log(`${"sum of the steps".padEnd(48)} ${total.toFixed(2)} s`);
if (stepsRun) for (const step of apart) console.log(`${step.padEnd(48)} ${(seconds.get(step) ?? 0).toFixed(2)} s`);
if (stepsRun)
  console.log(
    `steps pass: this thread ${cpu(stepsThread).toFixed(2)} s (the parse and the query run twice), V8's helper threads ${(cpu(stepsProcess) - cpu(stepsThread)).toFixed(2)} s`,
  );
console.log(
  `processFile whole: this thread ${cpu(wholeThread).toFixed(2)} s, V8's helper threads ${(cpu(wholeProcess) - cpu(wholeThread)).toFixed(2)} s, ${wholeChunks} chunks`,
);
