#!/usr/bin/env node
// The extraction's parse and symbol walk, the product's web-tree-sitter
// (WebAssembly) path beside the native Node-API binding (`tree-sitter` and
// the grammar packages of the versions in grammars/manifest.json), on the
// files a first index would parse: each file's CPU on this one thread
// (`process.threadCpuUsage`) in its parse, its symbol walk and the freeing of
// its tree, the paths turned over rounds (A B C, C B A, …), summed by
// language. The walk is the product's own (`collectExtraction`), run on each
// parser's tree. The outputs are
// compared file by file: the node count, the extraction (symbols, comments,
// whether the parse had errors) and, on every `--sample`th file, the root's
// S-expression.
//
//   npm run build && node scripts/bench-parse-native.mjs --tree <checkout> [--languages rust,typescript,javascript,tsx]
//     [--rounds 4] [--sample 10] [--gc-every <bytes, 262144>] [--only wasm|native|native-lazy] [--workers] [--build <checkout, built>]
//
// --only: one path alone (no comparison), for its peak RSS in a process of its own.
// --workers: first, two worker threads at once each load the native binding and parse every text
// (as the index's file workers would), their node counts by language printed beside this thread's.
// The native packages are not the project's dependencies: install them for the measurement, into a
// node_modules of its own (not one hard-linked from another checkout), with
//   npm install --no-save --legacy-peer-deps tree-sitter@0.25.1 tree-sitter-rust@0.24.0 tree-sitter-typescript@0.23.2 tree-sitter-javascript@0.25.0
// (--legacy-peer-deps: the grammars declare peers of older runtimes, ^0.21/^0.22).
// docs/BENCHMARKS.md runs it on biomejs/biome at 18883b7d (m-native).
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { setImmediate } from "node:timers/promises";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Worker } from "node:worker_threads";
import { inTurn, median } from "./lib/alternated-rounds.mjs";
import { buildModules, filesToIndex } from "./lib/index-bench-build.mjs";
import { loadAverages } from "./lib/proc-stats.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    languages: { type: "string", default: "rust,typescript,javascript,tsx" },
    rounds: { type: "string", default: "4" },
    sample: { type: "string", default: "10" },
    "gc-every": { type: "string", default: "262144" },
    only: { type: "string" },
    workers: { type: "boolean", default: false },
    build: { type: "string" },
  },
});
if (!values.tree || (values.only && !["wasm", "native", "native-lazy"].includes(values.only))) {
  console.error(
    "Usage: node scripts/bench-parse-native.mjs --tree <checkout> [--languages rust,typescript,javascript,tsx] [--rounds 4] [--sample 10] [--gc-every <bytes, 262144>] [--only wasm|native|native-lazy] [--workers] [--build <checkout, built>]",
  );
  process.exit(2);
}
const require = createRequire(import.meta.url);
/**
 * The native grammar of each language measured: its package and, where the package holds two, the
 * member. The versions are grammars/manifest.json's; the packages are not dependencies of the project
 * (the lean install), so this measurement installs them into a copy of node_modules first.
 */
const NATIVE_GRAMMARS = {
  rust: ["tree-sitter-rust"],
  typescript: ["tree-sitter-typescript", "typescript"],
  tsx: ["tree-sitter-typescript", "tsx"],
  javascript: ["tree-sitter-javascript"],
};
const NATIVE_PACKAGES = ["tree-sitter@0.25.1", "tree-sitter-rust@0.24.0", "tree-sitter-typescript@0.23.2", "tree-sitter-javascript@0.25.0"];
try {
  for (const name of NATIVE_PACKAGES) require.resolve(name.slice(0, name.lastIndexOf("@")));
} catch {
  console.error(`The native packages are not installed: npm install --no-save --legacy-peer-deps ${NATIVE_PACKAGES.join(" ")}`);
  process.exit(2);
}
const nativeGrammar = (language) => {
  const [name, member] = NATIVE_GRAMMARS[language];
  return member ? require(name)[member] : require(name);
};
const languages = values.languages.split(",");
for (const language of languages) if (!NATIVE_GRAMMARS[language]) throw new Error(`no native grammar here for ${language}`);

const tree = resolve(values.tree);
const { load } = buildModules(values.build);
const { BINARY_EXTENSIONS, decodeText, detectLanguage, extensionOf, looksBinary } = await load("parsing/languages.js");
const { maskSecrets } = await load("security/secrets.js");
const { readRegularFile } = await load("files/regular-file.js");
const { MAX_PARSE_BYTES } = await load("indexer/file-processor.js");
const { TreeSitterExtractor, collectExtraction } = await load("parsing/tree-sitter-extractor.js");
const { querySource } = await load("parsing/grammar-specs.js");

// The texts the extraction would parse: the decoded, masked text of each file of these languages up to MAX_PARSE_BYTES.
const { files } = await filesToIndex(load, tree);
const texts = [];
for (const file of files) {
  if (BINARY_EXTENSIONS.has(extensionOf(file.path))) continue;
  const language = detectLanguage(file.path);
  if (!languages.includes(language)) continue;
  const bytes = readRegularFile(join(tree, file.path), { noFollow: true });
  if (looksBinary(bytes) || bytes.length > MAX_PARSE_BYTES) continue;
  texts.push({ path: file.path, language, size: bytes.length, text: maskSecrets(decodeText(bytes).text).text });
}

// Both paths' parsers and grammars, loaded before any timing. The native grammar shares the walk's node types (the same grammar version).
const extractor = new TreeSitterExtractor();
const NativeParser = require("tree-sitter");
const grammars = {};
for (const language of languages) {
  const wasm = await extractor.grammar(language);
  const nativeLanguage = nativeGrammar(language);
  const parser = new NativeParser();
  parser.setLanguage(nativeLanguage);
  const native = { ...wasm, parser, query: new NativeParser.Query(nativeLanguage, querySource(wasm.spec)) };
  grammars[language] = { wasm, native };
}

const threadSeconds = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1e6;
};
const processSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const digest = (value) => createHash("sha256").update(value).digest("hex").slice(0, 16);
const sampleEvery = Number(values.sample);

/**
 * How each path frees a tree. WebAssembly: `delete()`, as the extractor does. The native binding has no
 * delete: its tree's memory (malloc, unseen by V8) is freed by the wrapper's finalizer after a GC
 * collects it. "native": a minor GC once `--gc-every` bytes of text were parsed since the last (0: after
 * each file), then a turn of the event loop for the finalizers; "native-lazy": the turn alone, the
 * trees left to V8's own GCs. Every path takes the turn after each file.
 */
const PATHS = ["wasm", "native", "native-lazy"];
const gc = (() => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc");
})();
const gcEvery = Number(values["gc-every"]);
let parsedSinceGc = 0;
const grammarOf = (file, path) => grammars[file.language][path === "wasm" ? "wasm" : "native"];

/** One round of `path` over every text: CPU by language (parse, walk, free), and each file's outputs (on `record`). */
async function round(path, record) {
  const sums = Object.fromEntries(languages.map((language) => [language, { parse: 0, walk: 0, free: 0, nodes: 0, symbols: 0 }]));
  const processStart = processSeconds();
  for (const [index, file] of texts.entries()) {
    const grammar = grammarOf(file, path);
    const sum = sums[file.language];
    let started = threadSeconds();
    let parsed = grammar.parser.parse(file.text);
    let now = threadSeconds();
    sum.parse += now - started;
    started = now;
    const extraction = collectExtraction(file.language, grammar, parsed.rootNode);
    now = threadSeconds();
    sum.walk += now - started;
    const nodes = parsed.rootNode.descendantCount;
    sum.nodes += nodes;
    sum.symbols += extraction.symbols.length;
    if (record) {
      const output = { nodes, extraction: digest(JSON.stringify(extraction)) };
      if (index % sampleEvery === 0) output.tree = digest(parsed.rootNode.toString());
      record(index, output);
    }
    started = threadSeconds();
    if (path === "wasm") parsed.delete();
    parsed = undefined;
    parsedSinceGc += file.size;
    if (path === "native" && parsedSinceGc >= gcEvery) {
      gc({ type: "minor" });
      parsedSinceGc = 0;
    }
    await setImmediate(); // the finalizers of the trees a GC collected run here
    sum.free += threadSeconds() - started;
  }
  return { sums, processCpu: processSeconds() - processStart, rss: process.memoryUsage().rss };
}

/** Two worker threads at once, each loading the native binding and parsing every text: their node counts by language. */
const PARSE_IN_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const load = require("node:module").createRequire(workerData.from);
const Parser = load("tree-sitter");
const parsers = {};
const nodes = {};
(async () => {
  for (const { language, text } of workerData.texts) {
    if (!parsers[language]) {
      const [name, member] = workerData.grammars[language];
      parsers[language] = new Parser();
      parsers[language].setLanguage(member ? load(name)[member] : load(name));
    }
    nodes[language] = (nodes[language] ?? 0) + parsers[language].parse(text).rootNode.descendantCount;
    await new Promise((resolve) => setImmediate(resolve)); // the collected trees' finalizers
  }
  parentPort.postMessage(nodes);
})();
`;
if (values.workers) {
  const workerData = { from: import.meta.url, grammars: NATIVE_GRAMMARS, texts: texts.map(({ language, text }) => ({ language, text })) };
  const inWorkers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(PARSE_IN_WORKER, { eval: true, workerData });
          worker.once("message", resolve);
          worker.once("error", reject);
        }),
    ),
  );
  const here = {};
  for (const file of texts) {
    const tree = grammars[file.language].native.parser.parse(file.text);
    here[file.language] = (here[file.language] ?? 0) + tree.rootNode.descendantCount;
  }
  const counts = (nodes) => languages.map((language) => `${language} ${nodes[language] ?? 0}`).join(", ");
  console.log(
    `native binding in two worker threads at once (Node ${process.version}): nodes ${inWorkers.map(counts).join(" | ")}; this thread: ${counts(here)}`,
  );
}

// The outputs, compared once before the timed rounds (the comparison's own CPU is not timed).
const mismatches = { nodes: 0, extraction: 0, tree: 0, treesCompared: 0, examples: [] };
if (!values.only) {
  const outputs = [];
  await round("wasm", (index, output) => {
    outputs[index] = output;
  });
  await round("native", (index, output) => {
    const wasm = outputs[index];
    const path = texts[index].path;
    if (wasm.nodes !== output.nodes) mismatches.nodes++;
    if (wasm.extraction !== output.extraction) mismatches.extraction++;
    if (output.tree !== undefined) {
      mismatches.treesCompared++;
      if (wasm.tree !== output.tree) mismatches.tree++;
    }
    if ((wasm.nodes !== output.nodes || wasm.extraction !== output.extraction) && mismatches.examples.length < 5)
      mismatches.examples.push(path);
  });
}

// The paths in a turning order (A B C, C B A, …), so that none is always first after another.
const paths = values.only ? [values.only] : PATHS;
const results = Object.fromEntries(PATHS.map((path) => [path, []]));
for (let r = 0; r < Number(values.rounds); r++) {
  for (const path of inTurn(paths, r)) results[path].push(await round(path));
}
const peakMiB = process.resourceUsage().maxRSS / 1024;
console.log(`load ${loadAverages()}; Node ${process.version}; ${texts.length} files under ${tree}; ${values.rounds} rounds`);
console.log("\n| language | files | MB | path | parse (s) | walk (s) | free (s) | extraction with its free (s) | nodes | symbols |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const language of languages) {
  const ofLanguage = texts.filter((file) => file.language === language);
  const megabytes = ofLanguage.reduce((sum, file) => sum + file.size, 0) / 1e6;
  for (const path of PATHS) {
    const rounds = results[path].map((result) => result.sums[language]);
    if (rounds.length === 0) continue;
    const [parse, walk, free, extraction] = [(s) => s.parse, (s) => s.walk, (s) => s.free, (s) => s.parse + s.walk + s.free].map((of) =>
      median(rounds.map(of)).toFixed(2),
    );
    const { nodes, symbols } = rounds[0];
    console.log(
      `| ${language} | ${ofLanguage.length} | ${megabytes.toFixed(1)} | ${path} | ${parse} | ${walk} | ${free} | ${extraction} | ${nodes} | ${symbols} |`,
    );
  }
}
for (const path of PATHS) {
  if (results[path].length === 0) continue;
  const each = (of) =>
    results[path]
      .map(of)
      .map((value) => value.toFixed(2))
      .join(", ");
  console.log(
    `${path}: this thread's extraction CPU per round ${each((r) => Object.values(r.sums).reduce((sum, s) => sum + s.parse + s.walk + s.free, 0))} s; the process's CPU per round (V8's helper threads too) ${each((r) => r.processCpu)} s; RSS after each round ${results[path].map((r) => (r.rss / 2 ** 20).toFixed(0)).join(", ")} MiB`,
  );
}
if (!values.only) {
  console.log(
    `outputs: node counts differ in ${mismatches.nodes} of ${texts.length} files, extractions in ${mismatches.extraction}, root S-expressions in ${mismatches.tree} of ${mismatches.treesCompared} sampled${mismatches.examples.length ? `; e.g. ${mismatches.examples.join(", ")}` : ""}`,
  );
}
console.log(`peak RSS ${peakMiB.toFixed(1)} MiB`);
