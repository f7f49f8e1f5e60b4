#!/usr/bin/env node
// A cold `sylk index` of a tree, builds side by side: each run in a new
// SYLK_HOME (removed after), under GNU time (wall, user and system CPU, peak
// resident, minor page faults), builds alternating run by run with the order
// reversed every other round. Prints each run, then per build the medians and
// how often it was the faster of a round's pair (against the first build).
//
//   npm run build && node scripts/bench-cold-index.mjs --tree <dir> --build <checkout, built> [--build …] [--rounds 8] [--fsyncs] [--json]
//
// --fsyncs: one more run per build under `strace -f -T -e trace=fsync,execve`,
// for the fsync calls and the time spent in them, on the main thread and on
// all others together (needs strace).
//
// docs/BENCHMARKS.md runs it on biomejs/biome at 18883b7d.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { inTurn, median } from "./lib/alternated-rounds.mjs";
import { loadAverages } from "./lib/proc-stats.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string", multiple: true, default: ["."] },
    rounds: { type: "string", default: "8" },
    fsyncs: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-cold-index.mjs --tree <dir> --build <checkout> [--build …] [--rounds 8] [--fsyncs] [--json]");
  process.exit(2);
}
const tree = resolve(values.tree);
const builds = values.build.map((build) => resolve(build));
if (!existsSync("/usr/bin/time")) throw new Error("GNU time (/usr/bin/time) is needed: apt-get install time");

/** One cold index: `wrap` is the command put before node (GNU time, or strace), `read` what it left in `report`. */
function inNewHome(build, wrap) {
  const home = mkdtempSync(join(tmpdir(), "sylk-cold-"));
  const report = join(home, "report.txt");
  try {
    const run = spawnSync(
      wrap[0],
      [
        ...wrap.slice(1).map((arg) => arg.replace("{report}", report)),
        process.execPath,
        join(build, "bin/sylk.js"),
        "index",
        "--yes",
        "--json",
        tree,
      ],
      {
        env: { ...process.env, SYLK_HOME: home },
        encoding: "utf8",
        maxBuffer: 1 << 28,
      },
    );
    if (run.status !== 0) throw new Error(`${build}: exit ${run.status}\n${run.stderr}`);
    const summary = run.stdout
      .split("\n")
      .filter((line) => line.includes('"summary"'))
      .map((line) => JSON.parse(line))
      .pop();
    return { report: readFileSync(report, "utf8"), chunks: summary?.chunks };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function timedRun(build) {
  const load = loadAverages();
  const { report, chunks } = inNewHome(build, ["/usr/bin/time", "-o", "{report}", "-f", "%e %U %S %M %R"]);
  const [wall, user, sys, peakKb, minorFaults] = report.trim().split("\n").pop().split(" ").map(Number);
  return { wall, user, sys, cpu: user + sys, peakMiB: peakKb / 1024, minorFaults, chunks, load };
}

/** The fsync calls of one run: the main thread's (the run restarts itself in place, so its id is the process's), and the other threads'. */
function fsyncRun(build) {
  const { report } = inNewHome(build, ["strace", "-f", "-T", "-e", "trace=fsync,execve", "-o", "{report}"]);
  const byThread = new Map();
  for (const line of report.split("\n")) {
    const match = /^(\d+)\s+(?:fsync\(.*|<\.\.\. fsync resumed>.*)<([\d.]+)>$/.exec(line);
    if (!match) continue;
    const entry = byThread.get(match[1]) ?? { calls: 0, seconds: 0 };
    entry.calls++;
    entry.seconds += Number(match[2]);
    byThread.set(match[1], entry);
  }
  // The main thread: the one that started node (its first execve); the restart for a first index keeps its id.
  const main = Number(/^(\d+)\s+execve\(/m.exec(report)?.[1]);
  const none = { calls: 0, seconds: 0 };
  const others = [...byThread].filter(([thread]) => Number(thread) !== main).map(([, entry]) => entry);
  const rest = others.reduce((sum, entry) => ({ calls: sum.calls + entry.calls, seconds: sum.seconds + entry.seconds }), none);
  return { main: byThread.get(String(main)) ?? none, others: rest, otherThreads: others.length };
}

const runs = builds.map(() => []);
const order = builds.map((_, index) => index);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const index of inTurn(order, round)) {
    const run = timedRun(builds[index]);
    runs[index].push(run);
    if (!values.json)
      console.log(
        `round ${round + 1} ${builds[index]}: ${run.wall.toFixed(2)} s wall, ${run.cpu.toFixed(2)} s CPU (${run.user.toFixed(2)} + ${run.sys.toFixed(2)}), ${run.peakMiB.toFixed(1)} MiB, ${run.minorFaults} minor faults, ${run.chunks} chunks, load ${run.load}`,
      );
  }
}

const summary = builds.map((build, index) => {
  const own = runs[index];
  const faster = index === 0 ? undefined : own.filter((run, round) => run.wall < runs[0][round].wall).length;
  return {
    build,
    rounds: own.length,
    medianWall: median(own.map((run) => run.wall)),
    medianCpu: median(own.map((run) => run.cpu)),
    medianSys: median(own.map((run) => run.sys)),
    medianPeakMiB: median(own.map((run) => run.peakMiB)),
    medianMinorFaults: median(own.map((run) => run.minorFaults)),
    chunks: [...new Set(own.map((run) => run.chunks))],
    ...(faster === undefined ? {} : { fasterThanFirst: faster }),
    ...(values.fsyncs ? { fsyncs: fsyncRun(build) } : {}),
    runs: own,
  };
});
if (values.json) console.log(JSON.stringify(summary, null, 2));
else
  for (const entry of summary) {
    const against =
      entry.fasterThanFirst === undefined ? "" : `, faster than the first build in ${entry.fasterThanFirst} of ${entry.rounds} rounds`;
    console.log(
      `${entry.build}: median ${entry.medianWall.toFixed(2)} s wall, ${entry.medianCpu.toFixed(2)} s CPU (${entry.medianSys.toFixed(2)} s system), ${entry.medianPeakMiB.toFixed(1)} MiB peak, ${entry.medianMinorFaults} minor faults, chunks ${entry.chunks.join("/")}${against}`,
    );
    if (entry.fsyncs)
      console.log(
        `  fsync: ${entry.fsyncs.main.calls} calls, ${entry.fsyncs.main.seconds.toFixed(3)} s on the main thread; ${entry.fsyncs.others.calls} calls, ${entry.fsyncs.others.seconds.toFixed(3)} s on ${entry.fsyncs.otherThreads} other threads`,
      );
  }
