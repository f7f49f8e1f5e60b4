#!/usr/bin/env node
// Localisation quality: does `sylk search` find the files a real commit changed,
// given its commit message? File-level recall@1/5/10 and MRR@10 for full text
// only, vectors only, and the hybrid (RRF) — all through the real CLI, one
// `sylk search --json -` process per mode.
//
//   node scripts/bench-localization.mjs --tree <dir> --queries <jsonl> [--limit N]
//
// --tree is vitejs/vite at the snapshot commit of the query file
// (a98c8d95d552c6fa98ab66fb810f5b39ad5abf49 for vitejs__vite.fixed.jsonl);
// --queries is that file, from the benchmark data docs/BENCHMARKS.md names.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    queries: { type: "string" },
    limit: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});

if (!values.tree || !values.queries) {
  console.error("Usage: node scripts/bench-localization.mjs --tree <vite checkout> --queries <vitejs__vite.fixed.jsonl> [--limit N]");
  process.exit(2);
}
if (!existsSync(values.tree)) {
  console.error(`No tree at ${values.tree}. Export vitejs/vite at the snapshot commit there first (see the header of this script).`);
  process.exit(2);
}
const queries = readFileSync(values.queries, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line))
  .slice(0, values.limit ? Number(values.limit) : undefined);

const sylk = join(repo, "bin/sylk.js");
const home = mkdtempSync(join(tmpdir(), "sylk-bench-loc-"));
const env = { ...process.env, SYLK_HOME: home };

console.error(`Indexing ${values.tree} …`);
const started = performance.now();
const indexRun = spawnSync(process.execPath, [sylk, "index", "--yes", "--json", values.tree], { env, encoding: "utf8" });
if (indexRun.status !== 0) {
  console.error(indexRun.stderr);
  process.exit(1);
}
const summary = indexRun.stdout
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line))
  .find((event) => event.type === "summary");
console.error(`Indexed ${summary.indexed} files, ${summary.chunks} chunks in ${((performance.now() - started) / 1000).toFixed(1)} s`);

function runMode(signals) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [sylk, "-C", values.tree, "search", "--json", "--k", "50", "--signals", signals, "-"], {
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

function score(responses) {
  const totals = { r1: 0, r5: 0, r10: 0, mrr10: 0 };
  responses.forEach((response, index) => {
    const gold = new Set(queries[index].gold_files);
    const files = [];
    for (const result of response.results) if (result.path && !files.includes(result.path)) files.push(result.path);
    const rank = files.findIndex((path) => gold.has(path)) + 1;
    if (rank >= 1 && rank <= 1) totals.r1++;
    if (rank >= 1 && rank <= 5) totals.r5++;
    if (rank >= 1 && rank <= 10) {
      totals.r10++;
      totals.mrr10 += 1 / rank;
    }
  });
  const n = responses.length;
  return { recall1: totals.r1 / n, recall5: totals.r5 / n, recall10: totals.r10 / n, mrr10: totals.mrr10 / n };
}

const results = {};
for (const [mode, signals] of [
  ["fulltext", "fulltext"],
  ["vector", "vector"],
  ["hybrid", "fulltext,vector"],
]) {
  const t = performance.now();
  const responses = await runMode(signals);
  if (responses.length !== queries.length) throw new Error(`${mode}: ${responses.length} answers for ${queries.length} queries`);
  results[mode] = { ...score(responses), seconds: (performance.now() - t) / 1000 };
}

const fmt = (x) => x.toFixed(3);
console.log(`\nLocalisation, ${queries.length} queries, vitejs/vite @ snapshot (file level)\n`);
console.log("| signal | recall@1 | recall@5 | recall@10 | MRR@10 |");
console.log("| --- | --- | --- | --- | --- |");
console.log("| plain BM25 (bench README) | 0.273 | 0.573 | 0.720 | 0.404 |");
for (const [mode, r] of Object.entries(results)) {
  console.log(`| sylk ${mode} | ${fmt(r.recall1)} | ${fmt(r.recall5)} | ${fmt(r.recall10)} | ${fmt(r.mrr10)} |`);
}
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/localization.json"), JSON.stringify({ queries: queries.length, results }, null, 2));
if (!values.keep) rmSync(home, { recursive: true, force: true });
