#!/usr/bin/env node
// Localisation quality: does `sylk search` find the files a real commit changed,
// given its commit message? File-level recall@1/5/10 and MRR@10 for full text
// only, vectors only and the hybrid, side by side, for one or more query sets,
// all through the real CLI (one `sylk search --json -` process per set and mode).
//
//   node scripts/bench-localization.mjs --set <queries.jsonl>=<tree> [--set …] [--home <dir>] [--limit N] [--rankings <file>]
//
// Each --set pairs a query file of the benchmark data docs/BENCHMARKS.md names
// (localization/*.fixed.jsonl) with the tree of its snapshot commit, exported
// from the repository the file names:
//   vitejs__vite.fixed.jsonl   vitejs/vite   a98c8d95d552c6fa98ab66fb810f5b39ad5abf49
//   pallets__flask.fixed.jsonl pallets/flask 2ac89889f4cc330eabd50f295dcef02828522c69
// --home keeps the index in that SYLK_HOME between runs (`sylk index` then
// only checks that it is fresh); without it a temporary one is used and removed.
// --rankings writes every answer's ranking (set, mode, query, then each hit's
// path and lines, 50 a query), one line per answer: two indexes of the same
// tree must rank alike, ties included, so two runs' files compare equal.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const MODES = [
  ["full text", "fulltext"],
  ["vectors", "vector"],
  ["hybrid", "fulltext,vector"],
];
/** The bench data's own plain-BM25 figures (its README), shown for reference. */
const PLAIN_BM25 = {
  "vitejs/vite": { recall1: 0.273, recall5: 0.573, recall10: 0.72, mrr10: 0.404 },
  "pallets/flask": { recall1: 0.2, recall5: 0.521, recall10: 0.672, mrr10: 0.337 },
};

const { values } = parseArgs({
  options: {
    set: { type: "string", multiple: true },
    home: { type: "string" },
    limit: { type: "string" },
    rankings: { type: "string" },
  },
});

if (!values.set || values.set.length === 0) {
  console.error(
    "Usage: node scripts/bench-localization.mjs --set <queries.jsonl>=<tree> [--set …] [--home <dir>] [--limit N] [--rankings <file>]",
  );
  process.exit(2);
}

const sets = values.set.map((spec) => {
  const separator = spec.indexOf("=");
  if (separator < 0) {
    console.error(`--set takes <queries.jsonl>=<tree>, got ${spec}`);
    process.exit(2);
  }
  const queriesPath = spec.slice(0, separator);
  const tree = resolve(spec.slice(separator + 1));
  const queries = readFileSync(queriesPath, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .slice(0, values.limit ? Number(values.limit) : undefined);
  const { repo: source, snapshot_commit: commit } = queries[0];
  if (!existsSync(tree)) {
    console.error(`No tree at ${tree}. Export ${source} at ${commit} there first (see the header of this script).`);
    process.exit(2);
  }
  return { name: `${source} @ ${commit.slice(0, 8)}`, source, tree, queries };
});

const sylk = join(repo, "bin/sylk.js");
const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), "sylk-bench-loc-"));
mkdirSync(home, { recursive: true });
const env = { ...process.env, SYLK_HOME: home };

function index(tree) {
  console.error(`Indexing ${tree} …`);
  const started = performance.now();
  const run = spawnSync(process.execPath, [sylk, "index", "--yes", "--json", tree], { env, encoding: "utf8" });
  if (run.status !== 0) {
    console.error(run.stderr);
    process.exit(1);
  }
  const summary = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .find((event) => event.type === "summary");
  console.error(`Indexed ${summary.indexed} files, ${summary.chunks} chunks in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function runMode(tree, queries, signals) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [sylk, "-C", tree, "search", "--json", "--k", "50", "--signals", signals, "-"], {
      env,
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`sylk search exited ${code}`));
      resolvePromise(
        output
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line)),
      );
    });
    // One query per line: a commit message's newlines become spaces.
    child.stdin.end(`${queries.map((query) => query.query.replace(/\s+/g, " ").trim()).join("\n")}\n`);
  });
}

/** The 1-based rank of the first gold file among the answer's files, 0 when absent. */
function goldRank(response, query) {
  const gold = new Set(query.gold_files);
  const files = [];
  for (const result of response.results) if (result.path && !files.includes(result.path)) files.push(result.path);
  return files.findIndex((path) => gold.has(path)) + 1;
}

function score(ranks) {
  const within = (n) => ranks.filter((rank) => rank >= 1 && rank <= n).length / ranks.length;
  const mrr10 = ranks.reduce((sum, rank) => sum + (rank >= 1 && rank <= 10 ? 1 / rank : 0), 0) / ranks.length;
  return { recall1: within(1), recall5: within(5), recall10: within(10), mrr10 };
}

const report = [];
const rankings = [];
for (const set of sets) {
  index(set.tree);
  const modes = {};
  for (const [label, signals] of MODES) {
    const started = performance.now();
    const responses = await runMode(set.tree, set.queries, signals);
    if (responses.length !== set.queries.length)
      throw new Error(`${set.name} ${label}: ${responses.length} answers for ${set.queries.length} queries`);
    const ranks = responses.map((response, index) => goldRank(response, set.queries[index]));
    responses.forEach((response, index) => {
      const hits = response.results.map((result) => `${result.path}:${result.startLine}-${result.endLine}`);
      rankings.push(JSON.stringify({ set: set.name, mode: label, query: index, hits }));
    });
    modes[label] = { ...score(ranks), ranks, seconds: (performance.now() - started) / 1000 };
  }
  report.push({ set: set.name, source: set.source, queries: set.queries.length, modes });
}

const fmt = (x) => x.toFixed(3);
const figures = (r) => [r.recall1, r.recall5, r.recall10, r.mrr10].map(fmt);
const cells = (r) => figures(r).join(" | ");
console.log("\nLocalisation (file level): recall@1 | recall@5 | recall@10 | MRR@10\n");
console.log(`| set (queries) | ${MODES.map(([label]) => `${label} R@1 / R@5 / R@10 / MRR@10`).join(" | ")} |`);
console.log(`| --- | ${MODES.map(() => "---").join(" | ")} |`);
for (const { set, queries, modes } of report) {
  console.log(`| ${set} (${queries}) | ${MODES.map(([label]) => figures(modes[label]).join(" / ")).join(" | ")} |`);
}
for (const { set, source, modes } of report) {
  console.log(`\n${set}\n\n| signal | recall@1 | recall@5 | recall@10 | MRR@10 |\n| --- | --- | --- | --- | --- |`);
  if (PLAIN_BM25[source]) console.log(`| plain BM25 (bench README) | ${cells(PLAIN_BM25[source])} |`);
  for (const [label] of MODES) console.log(`| sylk ${label} | ${cells(modes[label])} |`);
}
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/localization.json"), JSON.stringify(report, null, 2));
if (values.rankings) writeFileSync(values.rankings, `${rankings.join("\n")}\n`);
if (!values.home) rmSync(home, { recursive: true, force: true });
