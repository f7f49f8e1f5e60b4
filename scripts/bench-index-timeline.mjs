#!/usr/bin/env node
// When each thread of a cold `sylk index` is busy, and which phases leave a
// core idle: runs `node <build>/bin/sylk.js index --yes --json <tree>` in a new
// SYLK_HOME under /usr/bin/time, reads every thread's CPU time
// (/proc/<pid>/task/<tid>/schedstat, nanoseconds on the CPU; the name from
// `comm`) every --interval ms, and marks the phases by the run's own JSON
// events. Prints each phase's wall time, the cores busy in it by kind of
// thread (main, file workers, V8's helpers, other) and the core-seconds left
// idle of --cores, the file workers' time asleep (neither on a core nor waiting for one) and the highest
// resident memory sampled (VmRSS), then a row a second.
//
//   node scripts/bench-index-timeline.mjs --tree <dir> [--build <checkout>] [--home <new dir>] [--interval 100]
//       [--cores 2] [--samples <file.jsonl>] [--json]
//
// Phases: "start" (process start, configuration, the store opened, the count that
// decides the restart for a first index, the restart) to the `scanning` event;
// "walk" to the `indexing` event with nothing indexed; "first batch" to the first
// batch committed; "files" to the last batch; "tail" from the last batch to
// `complete` (the snapshot's merge, the deferred indexes, the directories' states);
// "exit" from `complete` to the process's end. A run that prints `phase` events of
// its own (`{"type":"phase","name":…}`, none today) would split these further.
// The totals are /usr/bin/time's (all threads, including those that ended between
// two samples); the sampled sum covers the threads alive at some sample.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { firstChildOf, loadAverages, statusField, threadStat } from "./lib/proc-stats.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string", default: "." },
    home: { type: "string" },
    interval: { type: "string", default: "100" },
    cores: { type: "string", default: String(availableParallelism()) },
    samples: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-index-timeline.mjs --tree <dir> [--build <checkout>] [--home <new dir>] [--interval 100]");
  process.exit(2);
}
const build = resolve(values.build);
const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), "sylk-timeline-"));
if (existsSync(join(home, "projects"))) throw new Error(`${home} already holds projects: a cold index needs a new SYLK_HOME`);
mkdirSync(home, { recursive: true });
const cores = Number(values.cores);
const interval = Number(values.interval);
const KINDS = ["main", "workers", "helpers", "other"];
/** What is summed between two times: each kind's CPU, the run's threads' time runnable but not running, the machine's idle. */
const COLUMNS = [...KINDS, "waiting", "workersWaiting", "workersAlive", "machineIdle"];

/** The machine's idle CPU seconds so far, all cores (/proc/stat's idle and iowait, USER_HZ ticks). */
function machineIdleSeconds() {
  const fields = readFileSync("/proc/stat", "utf8").slice(0, 200).split("\n")[0].trim().split(/\s+/);
  return (Number(fields[4]) + Number(fields[5])) / 100;
}

/** Which kind a thread is: the process's own thread, a worker thread (piscina's file workers), V8's platform threads, the rest. */
function kindOf(tid, pid, name) {
  if (tid === pid) return "main";
  if (name === "WorkerThread") return "workers";
  if (name === "V8Worker") return "helpers";
  return "other";
}

/** Every live thread's CPU seconds so far, keyed by tid and start time (a tid can be reused). */
function readThreads(pid) {
  const threads = new Map();
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    const stat = threadStat(pid, tid);
    if (!stat) continue;
    try {
      const [onCpuNs, waitingNs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
      threads.set(`${tid}@${stat.fields[19]}`, {
        kind: kindOf(Number(tid), pid, stat.name),
        name: stat.name,
        seconds: onCpuNs / 1e9,
        waiting: waitingNs / 1e9,
      });
    } catch {
      // Ended between the listing and the read: its last slice is in /usr/bin/time's total only.
    }
  }
  return threads;
}

/** The process's resident memory now (VmRSS), in MiB; 0 before it exists or after it ended. */
function residentMib(pid) {
  return pid === undefined ? 0 : (statusField(pid, "VmRSS") ?? 0) / 1024;
}

async function runSampled() {
  const timeFile = join(home, "time.txt");
  const args = [
    "-f",
    "%e %U %S %M",
    "-o",
    timeFile,
    process.execPath,
    join(build, "bin/sylk.js"),
    "index",
    "--yes",
    "--json",
    resolve(values.tree),
  ];
  const loadBefore = loadAverages();
  const started = performance.now();
  const child = spawn("/usr/bin/time", args, { env: { ...process.env, SYLK_HOME: home }, stdio: ["ignore", "pipe", "inherit"] });
  const events = [];
  let pending = "";
  child.stdout.on("data", (data) => {
    const at = (performance.now() - started) / 1000;
    const lines = (pending + data).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("{")) events.push({ at, ...JSON.parse(line) });
  });
  const samples = [];
  const seen = new Map();
  let pid;
  let workersAlive = 0;
  const sample = () => {
    pid ??= firstChildOf(child.pid);
    const at = (performance.now() - started) / 1000;
    const live = pid === undefined ? new Map() : readThreads(pid);
    for (const [key, thread] of live) seen.set(key, thread);
    const byKind = Object.fromEntries(COLUMNS.map((column) => [column, 0]));
    for (const thread of seen.values()) {
      byKind[thread.kind] += thread.seconds;
      byKind.waiting += thread.waiting;
      if (thread.kind === "workers") byKind.workersWaiting += thread.waiting;
    }
    // Worker-seconds alive: the time the file workers could have been busy (the mean of two samples' counts).
    const alive = [...live.values()].filter((thread) => thread.kind === "workers").length;
    const previous = samples.at(-1);
    workersAlive += previous ? ((at - previous.at) * (alive + previous.alive)) / 2 : 0;
    samples.push({ at, ...byKind, workersAlive, alive, machineIdle: machineIdleSeconds(), rssMib: residentMib(pid) });
  };
  sample();
  const timer = setInterval(sample, interval);
  const code = await new Promise((done) => child.on("close", done));
  clearInterval(timer);
  const wall = (performance.now() - started) / 1000;
  const [elapsed, user, system, peakKb] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
  return {
    code,
    wall,
    elapsed,
    cpu: user + system,
    user,
    system,
    peakMib: peakKb / 1024,
    events,
    samples,
    threads: [...seen.values()],
    loadBefore,
    loadAfter: loadAverages(),
  };
}

/** The kinds' cumulative seconds at time `at`, linear between samples (0 before the first, the last after it). */
function cumulativeAt(samples, at) {
  const zero = Object.fromEntries(COLUMNS.map((column) => [column, 0]));
  if (samples.length === 0) return zero;
  if (at <= samples[0].at) return samples[0];
  const last = samples.at(-1);
  if (at >= last.at) return last;
  const index = samples.findIndex((sample) => sample.at >= at);
  const [before, after] = [samples[index - 1], samples[index]];
  const share = (at - before.at) / (after.at - before.at);
  return Object.fromEntries(COLUMNS.map((column) => [column, before[column] + share * (after[column] - before[column])]));
}

/** The phases' boundaries from the run's events (see the header). */
function phasesOf(run) {
  const progress = run.events.filter((event) => event.type === "progress");
  const at = (predicate) => progress.find(predicate)?.at;
  const scanning = at((event) => event.phase === "scanning");
  const indexing = at((event) => event.phase === "indexing");
  const firstBatch = at((event) => event.phase === "indexing" && event.indexed > 0);
  const lastBatch = progress.filter((event) => event.phase === "indexing").at(-1)?.at;
  const complete = at((event) => event.phase === "complete");
  const marks = [
    ["start", 0],
    ["walk", scanning],
    ["first batch", indexing],
    ["files", firstBatch],
    ["tail", lastBatch],
    ["exit", complete],
  ];
  for (const event of run.events.filter((event) => event.type === "phase")) marks.push([event.name, event.at]);
  const known = marks.filter(([, time]) => time !== undefined).sort((a, b) => a[1] - b[1]);
  return known.map(([name, from], index) => ({ name, from, to: known[index + 1]?.[1] ?? run.wall }));
}

function busyBetween(samples, from, to) {
  const [a, b] = [cumulativeAt(samples, from), cumulativeAt(samples, to)];
  return Object.fromEntries(COLUMNS.map((column) => [column, b[column] - a[column]]));
}

function phaseRows(run) {
  return phasesOf(run).map(({ name, from, to }) => {
    const busy = busyBetween(run.samples, from, to);
    const total = KINDS.reduce((sum, kind) => sum + busy[kind], 0);
    const wall = to - from;
    // A file worker neither on a core nor waiting for one is waiting for work: for the main thread, in this run.
    const workersAsleep = Math.max(0, busy.workersAlive - busy.workers - busy.workersWaiting);
    // The highest resident memory sampled in the phase (the run's peak is /usr/bin/time's).
    const rssPeak = Math.max(0, ...run.samples.filter((sample) => sample.at >= from && sample.at <= to).map((sample) => sample.rssMib));
    return {
      name,
      from,
      wall,
      busy,
      total,
      cores: wall > 0 ? total / wall : 0,
      idle: Math.max(0, wall * cores - total),
      workersAsleep,
      rssPeak,
    };
  });
}

function secondRows(run) {
  const rows = [];
  for (let second = 0; second < Math.ceil(run.wall); second++) {
    const to = Math.min(second + 1, run.wall);
    const busy = busyBetween(run.samples, second, to);
    const wall = to - second;
    const indexed = run.events.filter((event) => event.type === "progress" && event.at <= to).at(-1);
    rows.push({
      second,
      busy: Object.fromEntries(COLUMNS.map((column) => [column, busy[column] / wall])),
      phase: indexed?.phase,
      indexed: indexed?.indexed ?? 0,
    });
  }
  return rows;
}

const fixed = (value, digits = 2) => value.toFixed(digits);

function print(run, phases, seconds) {
  const sampled = run.samples.at(-1) ?? {};
  const sampledTotal = KINDS.reduce((sum, kind) => sum + (sampled[kind] ?? 0), 0);
  console.log(`build ${build}, tree ${resolve(values.tree)}, load ${run.loadBefore} -> ${run.loadAfter}, exit ${run.code}`);
  console.log(
    `wall ${fixed(run.elapsed)} s, CPU ${fixed(run.cpu)} s (${fixed(run.user)} user + ${fixed(run.system)} sys), ${fixed(run.cpu / run.elapsed)} cores busy of ${cores}, peak ${fixed(run.peakMib, 1)} MiB`,
  );
  console.log(`sampled ${fixed(sampledTotal)} s: ${KINDS.map((kind) => `${kind} ${fixed(sampled[kind] ?? 0)}`).join(", ")}`);
  const summary = run.events.find((event) => event.type === "summary");
  if (summary) console.log(`indexed ${summary.indexed} files, ${summary.chunks} chunks`);
  console.log(
    "\n| phase | from (s) | wall (s) | main | workers | helpers | other | cores busy | idle core-s | runnable, waiting (s) | machine idle (core-s) | workers asleep (s) | RSS sampled, highest (MiB) |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const row of phases) {
    const kinds = KINDS.map((kind) => fixed(row.busy[kind]));
    const rest = `${fixed(row.cores)} | ${fixed(row.idle)} | ${fixed(row.busy.waiting)} | ${fixed(row.busy.machineIdle)} | ${fixed(row.workersAsleep)} | ${fixed(row.rssPeak, 1)}`;
    console.log(`| ${row.name} | ${fixed(row.from)} | ${fixed(row.wall)} | ${kinds.join(" | ")} | ${rest} |`);
  }
  console.log("\n| second | main | workers | helpers | other | all | runnable, waiting | machine idle | phase, files indexed at its end |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const row of seconds) {
    const all = KINDS.reduce((sum, kind) => sum + row.busy[kind], 0);
    const kinds = KINDS.map((kind) => fixed(row.busy[kind])).join(" | ");
    console.log(
      `| ${row.second} | ${kinds} | ${fixed(all)} | ${fixed(row.busy.waiting)} | ${fixed(row.busy.machineIdle)} | ${row.phase ?? ""} ${row.indexed} |`,
    );
  }
}

const run = await runSampled();
if (values.samples) writeFileSync(values.samples, `${run.samples.map((sample) => JSON.stringify(sample)).join("\n")}\n`);
const phases = phaseRows(run);
const seconds = secondRows(run);
if (values.json) console.log(JSON.stringify({ ...run, samples: undefined, events: undefined, threads: undefined, phases, seconds }));
else print(run, phases, seconds);
process.exitCode = run.code ?? 1;
