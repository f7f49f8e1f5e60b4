#!/usr/bin/env node
// How indexing scales with the file count, in one run: synthetic trees of
// 27k, 55k, 110k and 250k files (copies of a real repository under distinct
// prefixes, scripts/make-scale-tree.mjs), each indexed cold by `sylk index`
// in a SYLK_HOME of its own, then searched and checked for freshness.
//
//   npm run build && node scripts/bench-scale.mjs --from <tree> [--sizes 27993,55000,110000,250000]
//        [--work <dir> (default: under the system temporary directory)] [--queries 100] [--sylk <bin/sylk.js of another build>] [--keep]
//
// Per size: the cold index's wall time and CPU (user + system, every thread),
// its peak resident set (VmHWM of the process, worker threads included, read
// by GNU time as getrusage's maxrss, and the largest VmRSS sampled every
// 100 ms as a check), time per file against the smallest tree's (the target:
// within 1.1× of linear), search p50/p95 in process (`sylk search --json -`:
// each answer's own tookMs, after the hot tier is warm) with that process's
// peak, and the fresh check (`sylk index` on the unchanged tree: its own
// durationMs, and the process) against a stat walk of the same tree
// (`find -printf '%s %T@'`, one stat per entry), each three times, medians.
//
// The trees are made under --work and deleted at the end unless --keep;
// --from is only read. docs/BENCHMARKS.md uses biomejs/biome at 18883b7d.
//
//   node scripts/bench-scale.mjs --search-only --home <SYLK_HOME> --from <tree> [--sylk <build>] [--queries 100]
//
// measures only the searches, on a tree already indexed in that SYLK_HOME (nothing
// is made or indexed; pass a copy of a home that must not change: the search opens
// the project's database, and may write to it).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { firstChildOf, statusField } from "./lib/proc-stats.mjs";
import { sampleQueries } from "./lib/sample-queries.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const { values } = parseArgs({
  options: {
    from: { type: "string" },
    sizes: { type: "string", default: "27993,55000,110000,250000" },
    work: { type: "string", default: join(tmpdir(), "sylk-scale") },
    queries: { type: "string", default: "100" },
    seed: { type: "string", default: "7" },
    sylk: { type: "string" },
    keep: { type: "boolean", default: false },
    "search-only": { type: "boolean", default: false },
    home: { type: "string" },
  },
});
if (!values.from) {
  console.error("Usage: node scripts/bench-scale.mjs --from <tree> [--sizes 27993,55000,110000,250000] [--work <dir>] [--keep]");
  process.exit(2);
}
if (!existsSync("/usr/bin/time"))
  throw new Error("GNU time (/usr/bin/time) is needed for the peak resident set and CPU: apt-get install time");
const from = resolve(values.from);
const work = resolve(values.work);
const sylk = resolve(values.sylk ?? join(repo, "bin/sylk.js"));
const sizes = values.sizes.split(",").map(Number);
mkdirSync(work, { recursive: true });
const { scanProject } = await import(join(repo, "dist/src/indexer/scanner.js"));
const { defaultConfig } = await import(join(repo, "dist/src/config/schema.js"));

if (values["search-only"]) {
  if (!values.home) throw new Error("--search-only needs --home <the SYLK_HOME the tree --from was indexed in>");
  const scan = await scanProject(from, defaultConfig().index);
  const queries = sampleQueries(from, scan.files, Number(values.queries), Number(values.seed));
  const search = await searchTimes(from, { ...process.env, SYLK_HOME: resolve(values.home) }, queries);
  console.log(`\nSearch of ${sylk} on ${from} (${scan.files.length} files), ${queries.length} queries\n`);
  console.log("| full text p50 / p95 | hybrid p50 / p95 | full text process peak | hybrid process peak |");
  console.log("| --- | --- | --- | --- |");
  const ms = (row) => `${row.p50.toFixed(1)} / ${row.p95.toFixed(1)} ms`;
  console.log(
    `| ${ms(search.fulltext)} | ${ms(search.hybrid)} | ${search.fulltext.peakMB.toFixed(0)} MB | ${search.hybrid.peakMB.toFixed(0)} MB |`,
  );
  process.exit(0);
}

const rows = [];
for (const size of sizes) {
  const tree = join(work, `tree-${size}`);
  if (!existsSync(tree)) {
    run(process.execPath, [join(here, "make-scale-tree.mjs"), "--from", from, "--files", String(size), "--out", tree]);
  }
  const home = mkdtempSync(join(work, "home-"));
  const env = { ...process.env, SYLK_HOME: home };
  const scan = await scanProject(tree, defaultConfig().index);
  console.error(`tree of ${size} files: ${scan.files.length} indexable, indexing…`);

  const cold = await measured([sylk, "index", "--yes", "--json", tree], env);
  const summary = lastJson(cold.stdout);
  console.error(`  cold ${cold.seconds.toFixed(1)} s, peak ${cold.peakMB.toFixed(0)} MB`);

  const fresh = [];
  const statWalk = [];
  for (let round = 0; round < 3; round++) {
    const check = await measured([sylk, "index", "--json", tree], env);
    fresh.push({ inProcessMs: lastJson(check.stdout).durationMs, processMs: check.seconds * 1000 });
    const started = performance.now();
    run("find", [tree, "-printf", "%s %T@\\n"], { quiet: true });
    statWalk.push(performance.now() - started);
  }

  const queries = sampleQueries(tree, scan.files, Number(values.queries), Number(values.seed));
  const search = await searchTimes(tree, env, queries);
  rows.push({
    size,
    files: scan.files.length,
    chunks: summary.chunks,
    cold: { seconds: cold.seconds, cpuSeconds: cold.cpuSeconds, peakMB: cold.peakMB, sampledMaxMB: cold.sampledMaxMB },
    fresh: {
      inProcessMs: median(fresh.map((check) => check.inProcessMs)),
      processMs: median(fresh.map((check) => check.processMs)),
      statWalkMs: median(statWalk),
    },
    search,
    databaseMB: directoryMB(home),
  });
  mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
  writeFileSync(join(repo, ".sylk-bench/scale.json"), JSON.stringify({ sylk, from, rows }, null, 2));
  rmSync(home, { recursive: true, force: true });
  if (!values.keep) rmSync(tree, { recursive: true, force: true });
}

const base = rows[0];
const f0 = (x) => x.toFixed(0);
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
console.log(`\nScale of ${sylk}, trees copied from ${from}\n`);
console.log(
  "| files (indexed) | chunks | cold index (CPU) | per file vs the first | peak RSS (sampled) | fresh check in process / process | find -printf | ratio | full text p50 / p95 | hybrid p50 / p95 | search process peak | database |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) {
  const perFile = row.cold.seconds / row.files / (base.cold.seconds / base.files);
  const perFileCpu = row.cold.cpuSeconds / row.files / (base.cold.cpuSeconds / base.files);
  console.log(
    `| ${row.size} (${row.files}) | ${row.chunks} | ${f1(row.cold.seconds)} s (${f1(row.cold.cpuSeconds)} s) | ${f2(perFile)}× wall, ${f2(perFileCpu)}× CPU | ${f0(row.cold.peakMB)} MB (${f0(row.cold.sampledMaxMB)}) | ${f0(row.fresh.inProcessMs)} / ${f0(row.fresh.processMs)} ms | ${f0(row.fresh.statWalkMs)} ms | ${f2(row.fresh.inProcessMs / row.fresh.statWalkMs)}× | ${f1(row.search.fulltext.p50)} / ${f1(row.search.fulltext.p95)} ms | ${f1(row.search.hybrid.p50)} / ${f1(row.search.hybrid.p95)} ms | ${f0(row.search.hybrid.peakMB)} MB | ${f0(row.databaseMB)} MB |`,
  );
}

/** Search p50/p95 in process (each answer's own tookMs) and the process's peak, full text alone and hybrid. */
async function searchTimes(tree, env, queries) {
  const search = {};
  for (const [mode, signals] of [
    ["fulltext", "fulltext"],
    ["hybrid", "fulltext,vector"],
  ]) {
    const searched = await measured(
      [sylk, "-C", tree, "search", "--json", "--k", "10", "--signals", signals, "-"],
      env,
      `${queries.join("\n")}\n`,
    );
    const took = searched.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).tookMs);
    search[mode] = { ...percentiles(took), peakMB: searched.peakMB };
  }
  return search;
}

/** Runs `node <args>` under GNU time, sampling its resident set every 100 ms. */
async function measured(args, env, input) {
  const child = spawn("/usr/bin/time", ["-f", "%M %U %S", process.execPath, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(input ?? "");
  const started = performance.now();
  let sampledMaxKB = 0;
  const sampler = setInterval(() => {
    const pid = firstChildOf(child.pid);
    if (pid !== undefined) sampledMaxKB = Math.max(sampledMaxKB, statusField(pid, "VmRSS") ?? 0);
  }, 100);
  const code = await new Promise((done) => child.on("close", done));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`sylk ${args.slice(1).join(" ")} failed (${code}):\n${stderr.slice(-2000)}`);
  const [peakKB, user, system] = stderr.trim().split("\n").at(-1).split(" ").map(Number);
  return { stdout, seconds, peakMB: peakKB / 1024, cpuSeconds: user + system, sampledMaxMB: sampledMaxKB / 1024 };
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: options.quiet ? "ignore" : ["ignore", "ignore", "inherit"], maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status})`);
}

function directoryMB(path) {
  const result = spawnSync("du", ["-sk", path], { encoding: "utf8" });
  return Number(result.stdout.split("\t")[0]) / 1024;
}

function lastJson(stdout) {
  return JSON.parse(stdout.trim().split("\n").at(-1));
}

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), n: sorted.length };
}
