#!/usr/bin/env node
// What running a first index's file work on worker threads costs beyond the
// work itself (docs/BENCHMARKS.md, "The floor of a cold index"). Linux only:
// V8's helper threads (garbage collection, compiles) are read from
// /proc/self/task, where V8 names them V8Worker.
//
//   npm run build && node scripts/bench-index-workers.mjs --tree <checkout> [--build <checkout, built>] [--workers 1,2] [--rounds 2]
//
// Every file a full walk would index goes through the build's
// `FileBatchProcessor` in batches of 100, on 1 or on 2 worker threads at
// once (alternate batches, as the pool hands them out; the pool's heap
// limits), with no main-thread work beside it; the counts alternate each
// round. Reported: the workers' CPU and V8's helper threads' CPU.
//
//   node scripts/bench-index-workers.mjs --tree <checkout> --grammars 3000
//
// tree-sitter alone: a first, second and third worker, one after the other
// in one process (each kept alive), extract the same files (every k-th file
// tree-sitter parses, about 3,000): whether a later worker compiles the
// grammars' WebAssembly again (V8's native module cache shares a module
// between isolates of a process while one holds it).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { buildModules, filesToIndex } from "./lib/index-bench-build.mjs";
import { loadAverages, threadCpuByName } from "./lib/proc-stats.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string" },
    workers: { type: "string", default: "1,2" },
    rounds: { type: "string", default: "2" },
    grammars: { type: "string" },
  },
});
if (!values.tree) {
  console.error(
    "Usage: node scripts/bench-index-workers.mjs --tree <checkout> [--build <checkout>] [--workers 1,2] [--rounds 2] [--grammars N]",
  );
  process.exit(2);
}
const tree = resolve(values.tree);
const { url: moduleUrl, load } = buildModules(values.build);

const { WORKER_HEAP_LIMITS } = await load("indexer/worker-pool.js");
const { boundWasmOptimizerMemory } = await load("parsing/wasm-optimizer-memory.js");
// As the pool does before its threads start.
boundWasmOptimizerMemory();
const { config, files: indexable } = await filesToIndex(load, tree);
const files = indexable.map(({ path, size, mtimeMs, priority }) => ({ path, size, mtimeMs, priority }));

/** CPU seconds of this process's threads V8 names V8Worker (its platform's helper threads). */
const helperSeconds = () => threadCpuByName().V8Worker ?? 0;

/** Runs `source` (a CommonJS body that posts its own thread's CPU seconds) in a worker; resolves with the worker and that figure. */
function runWorker(source, workerData, resourceLimits) {
  const worker = new Worker(source, { eval: true, workerData, resourceLimits });
  return new Promise((resolveRun, reject) => {
    worker.once("message", (seconds) => resolveRun({ worker, seconds }));
    worker.once("error", reject);
  });
}

const BATCHES_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { FileBatchProcessor } = await import(workerData.url);
  const processor = new FileBatchProcessor();
  const start = process.threadCpuUsage();
  for (const files of workerData.batches) await processor.process({ ...workerData.task, files });
  const used = process.threadCpuUsage(start);
  parentPort.postMessage((used.user + used.system) / 1e6);
})();`;

const EXTRACT_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
(async () => {
  const { TreeSitterExtractor } = await import(workerData.extractor);
  const extractor = new TreeSitterExtractor();
  const start = process.threadCpuUsage();
  for (const [path, language] of workerData.files) await extractor.extract(readFileSync(workerData.root + "/" + path, "utf8"), language);
  const used = process.threadCpuUsage(start);
  parentPort.postMessage((used.user + used.system) / 1e6);
})();`;

if (values.grammars) {
  const { detectLanguage } = await load("parsing/languages.js");
  const { GRAMMARS } = await load("parsing/grammar-specs.js");
  const { MAX_PARSE_BYTES } = await load("indexer/file-processor.js");
  const parsed = files.filter((file) => file.size <= MAX_PARSE_BYTES && detectLanguage(file.path) in GRAMMARS);
  const every = Math.max(1, Math.floor(parsed.length / Number(values.grammars)));
  const chosen = parsed.filter((_, index) => index % every === 0).map((file) => [file.path, detectLanguage(file.path)]);
  console.log(`${chosen.length} files, ${new Set(chosen.map(([, language]) => language)).size} languages; load ${loadAverages()}`);
  const kept = [];
  for (const label of ["first", "second", "third"]) {
    const before = helperSeconds();
    const run = await runWorker(EXTRACT_SOURCE, { extractor: moduleUrl("parsing/tree-sitter-extractor.js"), root: tree, files: chosen });
    await new Promise((settle) => setTimeout(settle, 500)); // compiles still running finish on the helpers
    kept.push(run.worker);
    console.log(`${label} worker: its thread ${run.seconds.toFixed(2)} s, V8's helper threads ${(helperSeconds() - before).toFixed(2)} s`);
  }
  process.exit(0);
}

const batches = [];
for (let at = 0; at < files.length; at += 100) batches.push(files.slice(at, at + 100));
const task = { root: tree, chunkLines: config.index.chunkLines, embeddingDimensions: 256 };
const counts = values.workers.split(",").map(Number);
console.log(`${files.length} files in ${batches.length} batches`);
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const count of counts) {
    const before = helperSeconds();
    const loadBefore = loadAverages();
    const runs = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        runWorker(
          BATCHES_SOURCE,
          { url: moduleUrl("indexer/file-batch.js"), task, batches: batches.filter((_, at) => at % count === index) },
          WORKER_HEAP_LIMITS,
        ),
      ),
    );
    const helpers = helperSeconds() - before;
    await Promise.all(runs.map((run) => run.worker.terminate()));
    const workers = runs.reduce((sum, run) => sum + run.seconds, 0);
    console.log(
      `round ${round}, ${count} worker(s): workers ${workers.toFixed(2)} s (${runs.map((run) => run.seconds.toFixed(2)).join(" + ")}), V8's helper threads ${helpers.toFixed(2)} s, together ${(workers + helpers).toFixed(2)} s; load ${loadBefore} → ${loadAverages()}`,
    );
  }
}
process.exit(0);
