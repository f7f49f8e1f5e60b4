#!/usr/bin/env node
// Indexing and search speed on a large real repository, beside ripgrep in the
// same run: cold index (files/s, MB/s, peak RSS), restart on a fresh index,
// refresh after changing one file (CLI, and a watcher's in-process refresh),
// and search latency p50/p95 per signal and fused, against `rg` on the same terms.
//
//   npm run build && node scripts/bench-index-speed.mjs --tree <dir> [--queries 200] [--session]
//
// --session also times the interactive session's first index of the tree (consent to "index: fresh",
// in a new SYLK_HOME, through a pseudo-terminal as scripts/bench-memory.mjs does) right after the cold
// `sylk index`, for the two side by side.
//
// --tree is a checkout of a large repository (required). docs/BENCHMARKS.md uses
// biomejs/biome at commit 18883b7d (27,993 files).
//
//   node scripts/bench-index-speed.mjs --tree <dir> --only refresh --home <SYLK_HOME> [--rounds 9] [--baseline <other checkout>]
//
// --only refresh times `sylk index` after one changed file, as a whole process (wall and CPU), `--rounds`
// times on the index in --home (indexed first if it has none); with --baseline, that checkout's build
// (its bin/sylk.js, built, reading the same index) runs before this one in each round, for a ratio
// measured under the same load. The edited file is put back at the end.
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { measureTuiMemory } from "./lib/bench-memory-rows.mjs";
import { requireScriptCommand } from "./lib/pseudo-terminal.mjs";
import { sampleQueries } from "./lib/sample-queries.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    queries: { type: "string", default: "200" },
    seed: { type: "string", default: "7" },
    session: { type: "boolean", default: false },
    only: { type: "string" },
    home: { type: "string" },
    rounds: { type: "string", default: "9" },
    baseline: { type: "string" },
  },
});
if (!values.tree) {
  console.error("Usage: node scripts/bench-index-speed.mjs --tree <dir> [--queries 200] (a checkout of a 25k+ file repository)");
  process.exit(2);
}
const tree = resolve(values.tree);
if (!existsSync(tree)) {
  console.error(`No tree at ${tree}; export a 25k+ file repository there first (see the header).`);
  process.exit(2);
}
ensureTool("rg", "ripgrep");
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const sylk = join(repo, "bin/sylk.js");
const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), "sylk-bench-speed-"));
const env = { ...process.env, SYLK_HOME: home };
const { scanProject } = await import(join(repo, "dist/src/indexer/scanner.js"));
const { defaultConfig } = await import(join(repo, "dist/src/config/schema.js"));
const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));

if (values.only === "refresh") {
  await oneFileRefreshRounds();
  process.exit(0);
} else if (values.only !== undefined) {
  console.error(`--only takes refresh (got ${values.only})`);
  process.exit(2);
}
const scan = await scanProject(tree, defaultConfig().index);
const corpus = { files: scan.files.length, bytes: scan.files.reduce((sum, file) => sum + file.size, 0) };
console.error(`Corpus ${tree}: ${corpus.files} indexable files, ${(corpus.bytes / 1e6).toFixed(1)} MB`);

// 0. What the interactive session does on a tree with no index before it hands the first index to
// `sylk index --for-session`: the time from its run's start to the hand-off, in a SYLK_HOME of its own.
const { SEPARATE_INDEX_PROCESS_ABOVE_FILES } = await import(join(repo, "dist/src/app/interactive-session.js"));
const handOffHome = mkdtempSync(join(tmpdir(), "sylk-bench-hand-off-"));
const handOffServices = openProject({ root: tree, env: { ...process.env, SYLK_HOME: handOffHome } });
const handOffStarted = performance.now();
const handOffRun = handOffServices.indexer.run(undefined, { handOffAbove: SEPARATE_INDEX_PROCESS_ABOVE_FILES });
let handOffStep = await handOffRun.next();
while (!handOffStep.done) handOffStep = await handOffRun.next();
const handOffMs = performance.now() - handOffStarted;
if (!handOffStep.value.handedOff) console.error(`the session's run did not hand off: ${corpus.files} files are too few`);
await handOffServices.close();
rmSync(handOffHome, { recursive: true, force: true });

// 1. Cold index.
const cold = timed(["index", "--yes", "--json", tree]);
const coldSummary = lastJson(cold.stdout);
console.error(`cold index: ${cold.seconds.toFixed(1)} s`);

// 1b. The interactive session's first index of the same tree, right after it.
let sessionIndexSeconds = null;
if (values.session) {
  requireScriptCommand("bench-index-speed --session");
  const session = await measureTuiMemory({ sylk, tree, env: process.env, query: "parse", settleMs: 0 });
  sessionIndexSeconds = session.indexSeconds;
  console.error(`the session's first index: ${sessionIndexSeconds.toFixed(1)} s`);
}

// 2. Restart on a fresh index: a new process checks freshness.
const fresh = timed(["index", "--json", tree]);
const freshSummary = lastJson(fresh.stdout);

// 3. One changed file: the CLI (walks the tree to find it) and a watcher's in-process refresh.
const victim = scan.files.find((file) => file.path.endsWith(".rs") || file.path.endsWith(".ts"))?.path ?? scan.files[0].path;
const victimPath = join(tree, victim);
const original = readFileSync(victimPath);
appendFileSync(victimPath, "\n// sylk benchmark edit\n");
const refreshCli = timed(["index", "--json", tree]);
const refreshCliSummary = lastJson(refreshCli.stdout);
const services = openProject({ root: tree, env });
services.codeFullText.load(); // a running session has its index in memory
appendFileSync(victimPath, "// second edit\n");
await services.indexer.refreshPaths([victim]); // warm the worker pool, as a session's first refresh would
appendFileSync(victimPath, "// third edit\n");
const refreshStarted = performance.now();
const watcherRefresh = await services.indexer.refreshPaths([victim]);
const refreshWatcherMs = performance.now() - refreshStarted;
await services.close();
writeFileSync(victimPath, original);
timed(["index", "--json", tree]); // back to the original content

// 4. Search latency per signal, in one process each, beside rg on the same terms.
const queries = sampleQueries(tree, scan.files, Number(values.queries), Number(values.seed));
const search = {};
for (const [mode, signals] of [
  ["fulltext", "fulltext"],
  ["vector", "vector"],
  ["hybrid", "fulltext,vector"],
]) {
  const run = spawnSync(process.execPath, [sylk, "-C", tree, "search", "--json", "--k", "10", "--signals", signals, "-"], {
    env,
    input: `${queries.join("\n")}\n`,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (run.status !== 0) throw new Error(`search ${mode} failed: ${run.stderr}`);
  const took = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).tookMs);
  search[mode] = percentiles(took);
}
// A one-off search in a new process: reads its terms' postings from the snapshot, uses sqlite-vec for vectors.
const oneOff = timed(["-C", tree, "search", "--json", queries[0]]);
search.oneOffProcessMs = oneOff.seconds * 1000;
const rgTimes = queries.map((query) => {
  const terms = [...new Set(query.split(/\s+/))];
  const started = performance.now();
  spawnSync("rg", ["-i", "-l", "-F", ...terms.flatMap((term) => ["-e", term]), tree], { stdio: "ignore" });
  return performance.now() - started;
});
search.ripgrep = percentiles(rgTimes);

const results = {
  tree,
  corpus,
  coldIndex: {
    seconds: cold.seconds,
    filesPerSecond: corpus.files / cold.seconds,
    megabytesPerSecond: corpus.bytes / 1e6 / cold.seconds,
    peakRssMB: cold.peakRssKB ? cold.peakRssKB / 1024 : null,
    cpuSeconds: cold.cpuSeconds ?? null,
    chunks: coldSummary.chunks,
    sessionSeconds: sessionIndexSeconds,
    sessionHandOffMs: handOffStep.value.handedOff ? handOffMs : null,
    failed: coldSummary.failed,
  },
  freshCheck: { processSeconds: fresh.seconds, inProcessMs: freshSummary.durationMs },
  oneFileRefresh: {
    cliProcessSeconds: refreshCli.seconds,
    cliInProcessMs: refreshCliSummary.durationMs,
    watcherMs: refreshWatcherMs,
    watcherIndexed: watcherRefresh.indexed,
  },
  search,
  queries: queries.length,
};

const f1 = (x) => (x === null || x === undefined ? "n/a" : x.toFixed(1));
console.log(`\nSpeed on ${tree} (${corpus.files} files, ${(corpus.bytes / 1e6).toFixed(1)} MB), ${queries.length} queries\n`);
console.log("| measure | result |");
console.log("| --- | --- |");
console.log(
  `| cold index | ${f1(results.coldIndex.seconds)} s, ${f1(results.coldIndex.filesPerSecond)} files/s, ${f1(results.coldIndex.megabytesPerSecond)} MB/s, peak RSS ${f1(results.coldIndex.peakRssMB)} MB, ${results.coldIndex.chunks} chunks |`,
);
if (results.coldIndex.sessionHandOffMs !== null) {
  console.log(`| the session's run on no index, start to hand-off | ${f1(results.coldIndex.sessionHandOffMs)} ms |`);
}
if (results.coldIndex.sessionSeconds !== null) {
  console.log(
    `| the session's first index (consent to "index: fresh") | ${f1(results.coldIndex.sessionSeconds)} s, ${(results.coldIndex.sessionSeconds / results.coldIndex.seconds).toFixed(2)}× the cold index (target ≤ 1.2×) |`,
  );
}
if (results.coldIndex.cpuSeconds !== null) {
  console.log(
    `| cold index CPU (user + system, all threads) | ${f1(results.coldIndex.cpuSeconds)} s, ${f1(results.coldIndex.cpuSeconds / results.coldIndex.seconds)} cores busy on average |`,
  );
}
console.log(
  `| fresh check (new process) | ${f1(results.freshCheck.processSeconds * 1000)} ms process, ${f1(results.freshCheck.inProcessMs)} ms in process |`,
);
console.log(
  `| one-file refresh, sylk index | ${f1(results.oneFileRefresh.cliProcessSeconds * 1000)} ms process, ${f1(results.oneFileRefresh.cliInProcessMs)} ms in process |`,
);
console.log(`| one-file refresh, watcher (refreshPaths) | ${f1(results.oneFileRefresh.watcherMs)} ms |`);
for (const mode of ["fulltext", "vector", "hybrid", "ripgrep"]) {
  console.log(`| search ${mode} | p50 ${f1(search[mode].p50)} ms, p95 ${f1(search[mode].p95)} ms |`);
}
console.log(`| one-off search, new process | ${f1(search.oneOffProcessMs)} ms |`);
console.log(`| rg p50 / hybrid p50 | ${f1(search.ripgrep.p50 / search.hybrid.p50)}× |`);
console.log(`| rg p95 / hybrid p95 | ${f1(search.ripgrep.p95 / search.hybrid.p95)}× |`);
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/index-speed.json"), JSON.stringify(results, null, 2));
if (!values.home) rmSync(home, { recursive: true, force: true });

/**
 * `sylk index` after one changed file, `--rounds` times, alternating with the
 * baseline's build when there is one: p50 and range of wall and CPU time.
 */
async function oneFileRefreshRounds() {
  const builds = [...(values.baseline ? [["baseline", join(resolve(values.baseline), "bin/sylk.js")]] : []), ["this build", sylk]];
  timed(["index", "--yes", "--json", tree]); // indexes the tree when --home has no index of it
  const { files } = await scanProject(tree, defaultConfig().index);
  const victim = files.find((file) => /\.(rs|ts|js|py|go)$/.test(file.path))?.path ?? files[0].path;
  const victimPath = join(tree, victim);
  const original = readFileSync(victimPath);
  const samples = new Map(builds.map(([name]) => [name, { wall: [], cpu: [] }]));
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [name, bin] of builds) {
        appendFileSync(victimPath, `// sylk benchmark edit ${round} ${name}\n`);
        const run = timed(["index", "--json", tree], bin);
        const summary = lastJson(run.stdout);
        if (summary.indexed + summary.unchangedContent !== 1) throw new Error(`expected one file refreshed, got ${run.stdout}`);
        samples.get(name).wall.push(run.seconds * 1000);
        if (run.cpuSeconds !== undefined) samples.get(name).cpu.push(run.cpuSeconds * 1000);
      }
    }
  } finally {
    writeFileSync(victimPath, original);
    timed(["index", "--json", tree]);
  }
  const range = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0 ? "n/a" : `${percentiles(sorted).p50.toFixed(0)} ms (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)})`;
  };
  console.log(`\n\`sylk index\` after one changed file (${victim}) on ${tree} (${files.length} files), ${values.rounds} rounds\n`);
  console.log("| build | wall p50 (range) | CPU p50 (range) |");
  console.log("| --- | --- | --- |");
  for (const [name, { wall, cpu }] of samples) console.log(`| ${name} | ${range(wall)} | ${range(cpu)} |`);
  if (!values.home) rmSync(home, { recursive: true, force: true });
}

function timed(args, bin = sylk) {
  const command = gnuTime ? gnuTime : process.execPath;
  const commandArgs = gnuTime ? ["-f", "%M %U %S", process.execPath, bin, ...args] : [bin, ...args];
  const started = performance.now();
  const run = spawnSync(command, commandArgs, { env, encoding: "utf8", maxBuffer: 1 << 28 });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`sylk ${args.join(" ")} failed:\n${run.stderr}`);
  const [rss, user, system] = gnuTime ? run.stderr.trim().split("\n").at(-1).split(" ").map(Number) : [];
  // CPU seconds (user + system, all threads): on two cores a cold index cannot take less than half of it.
  const cpuSeconds = Number.isFinite(user) && Number.isFinite(system) ? user + system : undefined;
  return { seconds, stdout: run.stdout, peakRssKB: Number.isFinite(rss) ? rss : undefined, cpuSeconds };
}

function lastJson(stdout) {
  return JSON.parse(stdout.trim().split("\n").at(-1));
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), n: sorted.length };
}

function ensureTool(command, debianPackage) {
  try {
    execFileSync("which", [command], { stdio: "ignore" });
  } catch {
    console.error(`${command} not found; installing ${debianPackage} …`);
    execFileSync("apt-get", ["install", "-y", debianPackage], { stdio: "inherit" });
  }
}
