#!/usr/bin/env node
// The two largest steps of a first index's per-file work, broken down by what
// the files are: tree-sitter's extraction (the parse alone, and the symbol
// walk or query alone: its nodes, of which comments) and the chunk
// features, each file's CPU on one thread (`process.threadCpuUsage` around
// it), summed by language and extension, by size, and by kind of path (test
// snapshot, a tests/specs/fixtures directory, a generated directory, the
// rest). The steps are `bench-index-floor`'s, in `processFile`'s order.
//
//   npm run build && node scripts/bench-index-breakdown.mjs --tree <checkout> [--build <checkout, built>] [--rows <file.json>]
//
// --rows: every file's figures as JSON, to group otherwise.
// docs/BENCHMARKS.md runs it on biomejs/biome at 18883b7d (m-cold9).
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildModules, filesToIndex } from "./lib/index-bench-build.mjs";
import { fileSteps, PARSE_ALONE, SYMBOLS_ALONE } from "./lib/index-bench-steps.mjs";
import { loadAverages } from "./lib/proc-stats.mjs";

const { values } = parseArgs({ options: { tree: { type: "string" }, build: { type: "string" }, rows: { type: "string" } } });
if (!values.tree) {
  console.error("Usage: node scripts/bench-index-breakdown.mjs --tree <checkout> [--build <checkout, built>] [--rows <file.json>]");
  process.exit(2);
}
const tree = resolve(values.tree);
const { load } = buildModules(values.build);
const { extensionOf } = await load("parsing/languages.js");
const { isTestSnapshot } = await load("search/document-kind.js");
const { config, files } = await filesToIndex(load, tree);
const steps = await fileSteps(load, { root: tree, chunkLines: config.index.chunkLines, embeddingDimensions: 256 });
/** The steps this breakdown reports, by their names in `fileSteps`. */
const COLUMN_OF = new Map([
  ["tree-sitter extraction", "extraction"],
  [PARSE_ALONE, "parse"],
  [SYMBOLS_ALONE, "walk"],
  ["chunk features", "features"],
]);
let started = process.threadCpuUsage();

const rows = [];
for (const file of files) {
  const row = { path: file.path, ext: extensionOf(file.path), snapshot: isTestSnapshot(file.path) };
  Object.assign(row, { extraction: 0, parse: 0, walk: 0, nodes: 0, comments: 0, symbols: 0, features: 0, chunks: 0 });
  const done = await steps.step(file, (step) => {
    const now = process.threadCpuUsage();
    const column = COLUMN_OF.get(step);
    if (column) row[column] += (now.user - started.user + now.system - started.system) / 1e6;
    started = now;
  });
  if (done === undefined) continue;
  Object.assign(row, { size: done.bytes.length, language: done.language, chunks: done.chunks.length });
  if (done.symbolNodes) {
    // Comments by node type on the walk, by capture name on the query (before m-cold9).
    const grammar = await steps.extractor.grammar(done.language);
    const comments = done.symbolNodes.filter((found) =>
      grammar.walk ? grammar.walk.comments.has(found.type) : found.name === "comment",
    ).length;
    Object.assign(row, { nodes: done.symbolNodes.length, comments, symbols: done.symbols.length });
  }
  rows.push(row);
}
if (values.rows) writeFileSync(values.rows, JSON.stringify(rows));

const sizeClass = (size) =>
  size < 1024
    ? "< 1 KB"
    : size < 4096
      ? "1–4 KB"
      : size < 16384
        ? "4–16 KB"
        : size < 65536
          ? "16–64 KB"
          : size <= steps.MAX_PARSE_BYTES
            ? "64–128 KB"
            : "> 128 KB (not parsed)";
const pathKind = (row) =>
  row.snapshot
    ? "test snapshot"
    : /(^|\/)generated\//.test(row.path)
      ? "a generated/ directory"
      : /(^|\/)(tests?|specs?|__tests__|fixtures?)\//.test(row.path)
        ? "a tests/specs/fixtures directory"
        : "the rest";
const columns = ["files", "extraction", "parse", "walk", "nodes", "comments", "symbols", "features", "chunks"];
/** Prints the rows summed by `key`, largest extraction + features first. */
function table(title, key) {
  const groups = new Map();
  for (const row of rows) {
    const name = key(row);
    const group = groups.get(name) ?? { files: 0, megabytes: 0, ...Object.fromEntries(columns.slice(1).map((column) => [column, 0])) };
    group.files++;
    group.megabytes += row.size / 1e6;
    for (const column of columns.slice(1)) group[column] += row[column];
    groups.set(name, group);
  }
  console.log(
    `\n${title}\n| group | files | MB | extraction (s) | parse (s) | walk/query (s) | its nodes (comments) | symbols | features (s) | chunks |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  const sorted = [...groups].sort((a, b) => b[1].extraction + b[1].features - a[1].extraction - a[1].features);
  for (const [name, g] of sorted.slice(0, 16)) {
    const seconds = (value) => value.toFixed(2);
    console.log(
      `| ${name} | ${g.files} | ${g.megabytes.toFixed(1)} | ${seconds(g.extraction)} | ${seconds(g.parse)} | ${seconds(g.walk)} | ${g.nodes} (${g.comments}) | ${g.symbols} | ${seconds(g.features)} | ${g.chunks} |`,
    );
  }
}
console.log(`load ${loadAverages()}; ${rows.length} files under ${tree}`);
table("By language and extension", (row) => `${row.language ?? "none"} ${row.ext || "(none)"}`);
table("By size", (row) => sizeClass(row.size));
table("By kind of path", pathKind);
table("Rust by kind of path", (row) => (row.language === "rust" ? pathKind(row) : "not Rust"));
