#!/usr/bin/env node
// The fresh check as `sylk index` runs it in a new process (the index
// unchanged), of one or more builds alternated round by round with a stat
// walk of the same tree, `find <tree> -printf '%s %T@\n'` (one stat per
// entry). Per build: the median of the summary's own durationMs (what
// bench-scale reports as "in process"), its ratio to find's median, and the
// median of the whole process.
//
//   npm run build && node scripts/bench-fresh-check.mjs --tree <dir> --home <SYLK_HOME with the tree indexed>
//        [--rounds 10] [--sylk <another build's bin/sylk.js> …]
//
// Without --sylk, this checkout's bin/sylk.js. Every run must find the index
// fresh: index the tree once first (`SYLK_HOME=<home> sylk index --yes <tree>`),
// then run `sylk index` once more after 2 s, so the directories read too soon
// after the tree was written have stored their snapshots.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    home: { type: "string" },
    rounds: { type: "string", default: "10" },
    sylk: { type: "string", multiple: true },
  },
});
if (!values.tree || !values.home) {
  console.error("Usage: node scripts/bench-fresh-check.mjs --tree <dir> --home <SYLK_HOME> [--rounds 10] [--sylk <bin/sylk.js> …]");
  process.exit(2);
}
const tree = resolve(values.tree);
const builds = (values.sylk ?? [join(repo, "bin/sylk.js")]).map((path) => resolve(path));
const env = { ...process.env, SYLK_HOME: resolve(values.home) };

const runs = new Map(builds.map((build) => [build, { inProcess: [], process: [] }]));
const find = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const build of builds) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [build, "index", "--json", tree], { env, encoding: "utf8", maxBuffer: 1 << 26 });
    const processMs = performance.now() - started;
    if (run.status !== 0) throw new Error(`${build} exited with ${run.status}: ${run.stderr}`);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1));
    if (summary.before !== "fresh") throw new Error(`${build} found the index ${summary.before}: index the tree first`);
    runs.get(build).inProcess.push(summary.durationMs);
    runs.get(build).process.push(processMs);
  }
  const started = performance.now();
  spawnSync("find", [tree, "-printf", "%s %T@\\n"], { stdio: ["ignore", "ignore", "inherit"] });
  find.push(performance.now() - started);
}

const findMs = median(find);
console.log(`find -printf: ${findMs.toFixed(0)} ms at the median of ${find.length}`);
for (const [build, { inProcess, process: whole }] of runs) {
  const freshMs = median(inProcess);
  console.log(
    `${build}: fresh check ${freshMs.toFixed(0)} ms in process (${(freshMs / findMs).toFixed(2)}× find), ${median(whole).toFixed(0)} ms the process; every run: ${inProcess.map((ms) => ms.toFixed(0)).join(" ")}`,
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
