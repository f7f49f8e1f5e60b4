#!/usr/bin/env node
// The vector hot tier's scan alone, on the vectors of a project already
// indexed: every stored chunk vector loaded into one build's Int8VectorScan,
// then, on this one thread, the scan and top 100 of each of bench-scale's
// sampled queries (the same seed), three rounds, in CPU time (so that other
// processes on the machine count less than in wall time), the kernel alone,
// and dense random queries (every dimension used: another embedder's
// queries). It prints a digest of every query's top 100 (slot and score),
// which is the same for two builds that rank alike.
//
//   npm run build && node scripts/bench-vector-scan.mjs --home <SYLK_HOME> --from <tree> [--build <another checkout, built>] [--queries 100]
//
// The database is opened read-only, with SQL alone (no sqlite-vec).
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { sampleQueries } from "./lib/sample-queries.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    home: { type: "string" },
    from: { type: "string" },
    build: { type: "string", default: repo },
    queries: { type: "string", default: "100" },
    seed: { type: "string", default: "7" },
  },
});
if (!values.home || !values.from) {
  console.error("Usage: node scripts/bench-vector-scan.mjs --home <SYLK_HOME> --from <indexed tree> [--build <checkout>]");
  process.exit(2);
}
const dist = join(resolve(values.build), "dist/src");
const { Int8VectorScan } = await import(join(dist, "search/int8-vector-scan.js"));
const { instantiateKernel, runKernelScan } = await import(join(dist, "search/vector-kernel.js"));
const { visitVec0Blocks } = await import(join(dist, "store/vec0-blocks.js"));
const { HashingEmbedder } = await import(join(dist, "embedding/hashing-embedder.js"));
const { scanProject } = await import(join(dist, "indexer/scanner.js"));
const { defaultConfig } = await import(join(dist, "config/schema.js"));
const { projectHash } = await import(join(dist, "project/project-paths.js"));

const tree = realpathSync(resolve(values.from));
const db = new Database(join(resolve(values.home), "projects", projectHash(tree), "vector.db"), { readonly: true });
const dims = 256;
const scan = new Int8VectorScan(dims);
scan.reserve(db.prepare("SELECT count(*) AS n FROM chunk_vectors_rowids").get().n);
let slots = 0;
const loadStarted = performance.now();
visitVec0Blocks(db, "chunk_vectors", dims, (_id, vector) => scan.set(slots++, vector));
const loadMs = performance.now() - loadStarted;

const files = (await scanProject(tree, defaultConfig().index)).files;
const queries = await new HashingEmbedder(dims).embed(sampleQueries(tree, files, Number(values.queries), Number(values.seed)));
const kernel = instantiateKernel(scan.memory);
const everySlot = () => true;
const cpuMs = (run) => {
  const started = process.cpuUsage();
  run();
  return process.cpuUsage(started).user / 1000;
};
for (const query of queries.slice(0, 10)) scan.topK(query, 100, everySlot); // compiled and warm before timing

const topK = [];
const kernelOnly = [];
const answers = [];
for (let round = 0; round < 3; round++) {
  for (const query of queries) {
    let answer;
    topK.push(cpuMs(() => (answer = scan.topK(query, 100, everySlot))));
    if (round === 0) answers.push(answer.map((hit) => `${hit.slot}:${hit.score.toFixed(6)}`).join(","));
    const prepared = scan.prepareScan(query);
    kernelOnly.push(cpuMs(() => runKernelScan(kernel, prepared)));
  }
}
let seed = 3;
const uniform = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const dense = Array.from({ length: 30 }, () => {
  const query = Float32Array.from({ length: dims }, uniform);
  const norm = Math.hypot(...query);
  const prepared = scan.prepareScan(query.map((x) => x / norm));
  return cpuMs(() => runKernelScan(kernel, prepared));
});

const percentile = (samples, q) => [...samples].sort((a, b) => a - b)[Math.floor(q * samples.length)];
const ms = (samples) => `${percentile(samples, 0.5).toFixed(2)} / ${percentile(samples, 0.95).toFixed(2)} ms`;
console.log(
  `${values.build}: ${slots} vectors loaded in ${loadMs.toFixed(0)} ms, ${(scan.memory.buffer.byteLength / 2 ** 20).toFixed(0)} MB of wasm memory`,
);
console.log(`scan and top 100, CPU p50 / p95: ${ms(topK)}; the kernel alone: ${ms(kernelOnly)}; dense queries, the kernel: ${ms(dense)}`);
console.log(`answers digest: ${createHash("sha256").update(answers.join(";")).digest("hex").slice(0, 16)}`);
