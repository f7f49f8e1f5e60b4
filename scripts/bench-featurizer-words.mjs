#!/usr/bin/env -S node --expose-gc
// What a file worker's `ChunkFeaturizer` holds and saves: its files' chunks
// replayed through one featurizer in this thread, as one of the index's
// worker threads featurizes them.
//
//   npm run build && node --expose-gc scripts/bench-featurizer-words.mjs --tree <dir> [--build <checkout>] \
//     [--share 2] [--limit <words>] [--plain] [--max-files <n>] [--passes 1] [--every 5000]
//
// --tree is a checkout (docs/BENCHMARKS.md uses biomejs/biome at 18883b7d, and the
// 250k tree `make-scale-tree --from` it). --build is a built checkout whose
// `dist` is measured (this one by default), so a branch point can be compared.
// --share 2 featurizes every second file of the walk, as each of two workers
// takes about half of them. Files are read, decoded, masked and chunked by
// lines as the workers do (without the symbol parse, which does not change the
// words a chunk holds), and only `featurize` is timed.
//
// Reports, every --every files and at the end: the table's distinct words, the
// featurizer's live heap after a full collection (what it holds: the heap with
// it minus the heap without it), bytes a word, the word lookups, how many
// of them tokenized, stemmed and hashed a word and how many copied one from
// the previous generation, and the time of `featurize` (wall, and the
// process's CPU while it ran, which counts the collector's threads). --limit passes a
// generation size (the branch point: a word limit) to the featurizer, its
// default otherwise. --plain times the plain path instead (`chunkTermCounts`,
// `termsFromCounts`, `TrigramFeatures.embed` with its own token cache), which
// the featurizer computes bit for bit: what the interning saves.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildModules } from "./lib/index-bench-build.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string" },
    share: { type: "string", default: "2" },
    limit: { type: "string" },
    plain: { type: "boolean", default: false },
    "max-files": { type: "string" },
    passes: { type: "string", default: "1" },
    every: { type: "string", default: "5000" },
  },
});
if (!values.tree) {
  console.error(
    "Usage: node --expose-gc scripts/bench-featurizer-words.mjs --tree <dir> [--build <checkout>] [--share 2] [--limit <words>]",
  );
  process.exit(2);
}
if (typeof globalThis.gc !== "function") {
  console.error("Run with node --expose-gc: the featurizer's live heap is measured after full collections.");
  process.exit(2);
}
const { load } = buildModules(values.build);
const { ChunkFeaturizer } = await load("indexer/chunk-featurizer.js");
const { TrigramFeatures } = await load("embedding/hashing-embedder.js");
const { chunkFile } = await load("parsing/chunker.js");
const { chunkTermCounts } = await load("parsing/term-counts.js");
const { termsFromCounts } = await load("search/full-text-document.js");
const { tokenize, tokenizePath } = await load("parsing/code-tokenizer.js");
const { BINARY_EXTENSIONS, decodeText, extensionOf, looksBinary } = await load("parsing/languages.js");
const { maskSecrets } = await load("security/secrets.js");

const MAX_FILE_BYTES = 1 << 20;
const CHUNK_LINES = 45;
const tree = resolve(values.tree);
const share = Number(values.share);
const every = Number(values.every);
const maxFiles = values["max-files"] === undefined ? Number.POSITIVE_INFINITY : Number(values["max-files"]);

/** The tree's files in walk order, names sorted as the scanner sorts them. */
function listFiles(directory, prefix, into) {
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name === ".git" || entry.name === "node_modules") continue;
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) listFiles(join(directory, entry.name), path, into);
    else if (entry.isFile()) into.push(path);
  }
  return into;
}

function heapAfterCollection() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

const files = listFiles(tree, "", []).filter((_, index) => index % share === 0);
const dimensions = 256; // the built-in embedder's default (`embedding.dimensions`)
const beforeFeaturizer = heapAfterCollection();
let featurizer =
  values.limit === undefined
    ? new ChunkFeaturizer(new TrigramFeatures(dimensions))
    : new ChunkFeaturizer(new TrigramFeatures(dimensions), Number(values.limit));

// Word lookups, words added to a table, and of those the ones copied from a previous generation rather than
// tokenized, counted on the tables' own methods: the branch point's `WordTable` (`find` a lookup, `add` a word
// tokenized), or a `Vocabulary` of two generations (`wordOffset` a lookup; its `WordTable`'s `add` a word added,
// `copiedForward`, or `lastFound` before it, one copied forward).
const counts = { lookups: 0, added: 0, copied: 0 };
function countCalls(prototype, name, key) {
  const original = prototype[name];
  prototype[name] = function counted(...args) {
    counts[key]++;
    return original.apply(this, args);
  };
}
const generational = featurizer.vocabulary !== undefined;
const wordTablePrototype = Object.getPrototypeOf(generational ? featurizer.vocabulary.words : featurizer.words);
if (generational) {
  const vocabularyPrototype = Object.getPrototypeOf(featurizer.vocabulary);
  countCalls(vocabularyPrototype, "wordOffset", "lookups");
  // A word copied forward: `Vocabulary.copiedForward` since the word table keeps characters, not strings; `lastFound` before.
  if (typeof vocabularyPrototype.copiedForward === "function") countCalls(vocabularyPrototype, "copiedForward", "copied");
  else countCalls(wordTablePrototype, "lastFound", "copied");
} else {
  countCalls(wordTablePrototype, "find", "lookups");
}
countCalls(wordTablePrototype, "add", "added");
const wordsHeld = () => (generational ? featurizer.rememberedWords : featurizer.words.size);

let featurizeNs = 0n;
let featurizeCpuMicros = 0;
let featurized = 0;
let chunksFeaturized = 0;
const passes = Number(values.passes);
const started = process.cpuUsage();
/** The plain path the featurizer stands for (what queries and history entries use), for --plain. */
const plainEmbedding = new TrigramFeatures(dimensions);
function plainFeatures(pathTokens, chunk) {
  const counts = chunkTermCounts(pathTokens, chunk.symbols, tokenize(chunk.content));
  const terms = termsFromCounts(counts);
  return { terms: terms.distinct.join(" "), termCount: terms.count, vector: plainEmbedding.embed(counts) };
}

// What the featurizer holds: the heap after a full collection less the heap without it, taken both before it was
// made and once it is dropped at the end (the two differ by what the run itself left, e.g. the walk's list, which
// one of them counts); rows are printed at the end, with both.
const rows = [];
function report(label) {
  const words = wordsHeld();
  const heap = heapAfterCollection();
  rows.push({
    label,
    files: featurized,
    chunks: chunksFeaturized,
    words,
    heap,
    lookups: counts.lookups,
    tokenized: counts.added - counts.copied,
    copied: counts.copied,
    tokenizedShare: counts.lookups === 0 ? null : +((counts.added - counts.copied) / counts.lookups).toFixed(4),
    featurizeS: +(Number(featurizeNs) / 1e9).toFixed(2),
    featurizeCpuS: +(featurizeCpuMicros / 1e6).toFixed(2),
    processCpuS: +((process.cpuUsage(started).user + process.cpuUsage(started).system) / 1e6).toFixed(1),
  });
}

for (let pass = 0; pass < passes; pass++) {
  for (const path of files) {
    if (featurized >= maxFiles * (pass + 1)) break;
    if (BINARY_EXTENSIONS.has(extensionOf(path))) continue;
    const full = join(tree, path);
    if (statSync(full).size > MAX_FILE_BYTES) continue;
    const bytes = readFileSync(full);
    if (looksBinary(bytes)) continue;
    const text = maskSecrets(decodeText(bytes).text).text;
    const pathTokens = tokenizePath(path);
    const chunks = chunkFile(text, [], { maxLines: CHUNK_LINES });
    const before = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    if (values.plain) for (const chunk of chunks) plainFeatures(pathTokens, chunk);
    else for (const chunk of chunks) featurizer.featurize(pathTokens, chunk.symbols, chunk.content);
    const cpu = process.cpuUsage(cpuBefore);
    featurizeNs += process.hrtime.bigint() - before;
    featurizeCpuMicros += cpu.user + cpu.system;
    chunksFeaturized += chunks.length;
    featurized++;
    if (featurized % every === 0) report(`pass ${pass + 1}`);
  }
}
report("end");
featurizer = null;
const withoutFeaturizer = heapAfterCollection();
const megabytes = (bytes) => +(bytes / 2 ** 20).toFixed(1);
for (const { heap, ...row } of rows) {
  const overStart = heap - beforeFeaturizer;
  const overDropped = heap - withoutFeaturizer;
  console.log(
    JSON.stringify({
      ...row,
      heldOverStartMb: megabytes(overStart),
      heldOverDroppedMb: megabytes(overDropped),
      bytesPerWord: row.words === 0 ? null : Math.round(Math.max(overStart, overDropped) / row.words),
    }),
  );
}
