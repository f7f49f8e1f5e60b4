#!/usr/bin/env node
// The chunk features of a cold index on one thread, builds alternated in one
// process: every chunk `processFile` featurizes in a full walk of a tree (its
// path tokens, symbols and content, recorded once through this checkout's
// `processFile`), replayed through each build's `ChunkFeaturizer`, a new one
// a pass, as a file worker's featurizer starts empty. Each pass's thread CPU
// is reported, and every build's terms, term counts and vectors are compared
// with the first build's, byte for byte.
//
//   npm run build && node scripts/bench-chunk-features.mjs --tree <checkout> [--inputs <cache.json>] \
//     [--build <checkout, built>]... [--rounds 5] [--limit N]
//
// --inputs caches the recorded chunks (read when the file exists, else written), so that
// profiling runs (`node --cpu-prof …`) skip the recording. docs/BENCHMARKS.md runs it on
// biomejs/biome at 18883b7d.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildModules, filesToIndex } from "./lib/index-bench-build.mjs";
import { loadAverages } from "./lib/proc-stats.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    inputs: { type: "string" },
    build: { type: "string", multiple: true },
    rounds: { type: "string", default: "5" },
    limit: { type: "string" },
  },
});
if (!values.tree) {
  console.error(
    "Usage: node scripts/bench-chunk-features.mjs --tree <checkout> [--inputs <cache.json>] [--build <checkout>]... [--rounds 5]",
  );
  process.exit(2);
}
const tree = resolve(values.tree);
const here = buildModules(undefined);

/** Every featurized chunk of a full walk, in walk order, as `[pathTokens, symbols, content]`. */
async function recordChunks() {
  const { TreeSitterExtractor } = await here.load("parsing/tree-sitter-extractor.js");
  const { featurizerFor, processFile } = await here.load("indexer/file-processor.js");
  const { config, files } = await filesToIndex(here.load, tree);
  const task = { root: tree, chunkLines: config.index.chunkLines, embeddingDimensions: 256 };
  const extractor = new TreeSitterExtractor();
  const featurizer = featurizerFor(task);
  const recorded = [];
  const featurize = featurizer.featurize.bind(featurizer);
  featurizer.featurize = (pathTokens, symbols, content) => {
    recorded.push([pathTokens, [...symbols], content]);
    return featurize(pathTokens, symbols, content);
  };
  for (const file of files.slice(0, values.limit ? Number(values.limit) : undefined)) {
    await processFile(task, file, extractor, featurizer);
  }
  return recorded;
}

let chunks;
if (values.inputs && existsSync(values.inputs)) chunks = JSON.parse(readFileSync(values.inputs, "utf8"));
else {
  chunks = await recordChunks();
  if (values.inputs) writeFileSync(values.inputs, JSON.stringify(chunks));
}

// A file's chunks share one path-token array, as `processFile` passes them (JSON gave each chunk its own).
for (let at = 1; at < chunks.length; at++) {
  const [previous] = chunks[at - 1];
  const [tokens] = chunks[at];
  if (previous.length === tokens.length && previous.every((token, index) => token === tokens[index])) chunks[at][0] = previous;
}

const builds = [];
for (const checkout of values.build ?? [undefined]) {
  const modules = buildModules(checkout);
  const { ChunkFeaturizer } = await modules.load("indexer/chunk-featurizer.js");
  const { TrigramFeatures } = await modules.load("embedding/hashing-embedder.js");
  builds.push({ name: modules.checkout, ChunkFeaturizer, TrigramFeatures, seconds: [], outputs: null });
}

/** One pass of a build over every chunk with a new featurizer: its thread CPU in seconds, and its outputs when asked. */
function pass(build, keep) {
  const featurizer = new build.ChunkFeaturizer(new build.TrigramFeatures(256));
  const outputs = keep ? [] : null;
  const start = process.threadCpuUsage();
  for (const [pathTokens, symbols, content] of chunks) {
    const features = featurizer.featurize(pathTokens, symbols, content);
    if (outputs) outputs.push(features);
  }
  const used = process.threadCpuUsage(start);
  return { seconds: (used.user + used.system) / 1e6, outputs };
}

function sameFeatures(a, b) {
  if (a.terms !== b.terms || a.termCount !== b.termCount) return false;
  if ((a.vector === null) !== (b.vector === null)) return false;
  return (
    a.vector === null ||
    Buffer.from(a.vector.buffer, a.vector.byteOffset, a.vector.byteLength).equals(
      Buffer.from(b.vector.buffer, b.vector.byteOffset, b.vector.byteLength),
    )
  );
}

const rounds = Number(values.rounds);
console.log(`load ${loadAverages()}; ${chunks.length} chunks of ${tree}`);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const { seconds, outputs } = pass(build, round === 0);
    build.seconds.push(seconds);
    if (outputs) build.outputs = outputs;
  }
  console.log(`round ${round + 1}: ${builds.map((b) => `${b.seconds.at(-1).toFixed(3)} s`).join("  ")}  (load ${loadAverages()})`);
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
for (const build of builds) console.log(`${build.name}: median ${median(build.seconds).toFixed(3)} s of ${rounds}`);
for (const build of builds.slice(1)) {
  const differing = build.outputs.findIndex((features, index) => !sameFeatures(features, builds[0].outputs[index]));
  console.log(
    `${build.name} against ${builds[0].name}: ${differing < 0 ? "every chunk's terms, term count and vector equal" : `chunk ${differing} differs`}`,
  );
  console.log(`ratio of medians ${(median(build.seconds) / median(builds[0].seconds)).toFixed(3)}`);
}
