// The interactive `sylk`'s memory on a large tree, as a user's `top` sees it: the resident set
// (VmRSS of /proc/<pid>/status, every thread of the process included) of the real `node bin/sylk.js`
// in a pseudo-terminal, sampled over time, and its peak (VmHWM). Shared by scripts/bench-everyday.mjs
// and scripts/bench-memory.mjs.
//
//   1. a first index of the tree in a new SYLK_HOME, from the consent prompt: the peak while it runs,
//      and the resident set once it has settled, `settleMs` after "index: fresh";
//   2. a new `sylk` on the finished index: idle (`settleMs` after "index: fresh"), and after one `/search`.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchInTerminal, quit, waitForText } from "./pseudo-terminal.mjs";

/** The targets: the peak of a first index, the settled TUI against a reopened one, a reopened one after a search. */
export const MEMORY_TARGETS = { firstIndexPeakMb: 500, settledRatio: 1.3, reopenedAfterSearchMb: 400 };

const SAMPLE_INTERVAL_MS = 200;

/** VmRSS and VmHWM of `pid` in MB, or undefined once it is gone. */
export function residentMb(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  const figures = { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  // An exiting process (a zombie) has a status without its memory.
  return Number.isNaN(figures.rss) ? undefined : figures;
}

/** The node process `script` runs (its shell execs node): the first descendant whose command is node. */
async function sylkPid(session) {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const found = nodeDescendant(session.child.pid);
    if (found) return found;
    await sleep(20);
  }
  throw new Error("the sylk process did not start");
}

function nodeDescendant(pid) {
  let children;
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return undefined;
  }
  for (const child of children) {
    try {
      if (readFileSync(`/proc/${child}/cmdline`, "utf8").includes("sylk.js")) return child;
    } catch {
      continue;
    }
    const deeper = nodeDescendant(child);
    if (deeper) return deeper;
  }
  return undefined;
}

/** The `sylk index` processes the session started for its large runs (`--for-session`), by pid. */
function indexProcessesOf(pid) {
  let children;
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").includes("--for-session");
    } catch {
      return false;
    }
  });
}

/**
 * Samples the resident set every 200 ms until stopped; `max` is the largest sample. Also the peak
 * (VmHWM) of each index process the session started, read while it runs, so that the memory moved
 * out of the session is still counted somewhere.
 */
function sampler(pid) {
  const samples = [];
  const indexPeaks = new Map();
  const timer = setInterval(() => {
    const now = residentMb(pid);
    if (now) samples.push({ at: performance.now(), rss: now.rss });
    for (const child of indexProcessesOf(pid)) {
      const figures = residentMb(child);
      if (figures) indexPeaks.set(child, Math.max(indexPeaks.get(child) ?? 0, figures.peak));
    }
  }, SAMPLE_INTERVAL_MS);
  return {
    samples,
    max: (from = 0) => Math.max(0, ...samples.filter((sample) => sample.at >= from).map((sample) => sample.rss)),
    indexProcessPeak: () => Math.max(0, ...indexPeaks.values()),
    stop: () => clearInterval(timer),
  };
}

/**
 * Runs both parts and returns the figures in MB. `home` must not hold an index of the tree (a new
 * temporary one is made and removed when it is not given). `log` hears what is going on.
 */
export async function measureTuiMemory({ sylk, tree, env, query, settleMs = 15_000, home, log = () => {} }) {
  const sylkHome = home ?? mkdtempSync(join(tmpdir(), "sylk-bench-memory-"));
  const sessionEnv = { ...env, SYLK_HOME: sylkHome, ANTHROPIC_API_KEY: "" };
  delete sessionEnv.CI; // Ink draws only the last frame under CI.
  try {
    log(`memory: first index of ${tree} in a new SYLK_HOME (${sylkHome})…`);
    const first = launchInTerminal(sylk, tree, sessionEnv);
    const firstPid = await sylkPid(first);
    const firstSamples = sampler(firstPid);
    await waitForText(first, "Index this project?");
    await sleep(200);
    first.child.stdin.write("1");
    // From the answer: the scan, and starting an index process where there is one, are part of the wait.
    const consented = performance.now();
    const indexStarted = await waitForText(first, "Indexing [");
    const indexDone = await waitForText(first, "index: fresh", 0, 30 * 60_000);
    const atDone = residentMb(firstPid);
    await sleep(settleMs);
    const settled = residentMb(firstPid);
    firstSamples.stop();
    await quit(first);

    log("memory: a new sylk on the finished index…");
    const reopened = launchInTerminal(sylk, tree, sessionEnv);
    const reopenedPid = await sylkPid(reopened);
    await waitForText(reopened, "index: fresh");
    await sleep(settleMs);
    const idle = residentMb(reopenedPid);
    const from = reopened.output.length;
    reopened.child.stdin.write(`/search ${query}`);
    await sleep(300);
    reopened.child.stdin.write("\r");
    await waitForText(reopened, [" results in ", " result in ", "No results for"], from, 60_000);
    await sleep(2_000);
    const afterSearch = residentMb(reopenedPid);
    await quit(reopened);

    return {
      indexSeconds: (indexDone - consented) / 1000,
      firstIndexPeak: atDone.peak,
      firstIndexSampledMax: firstSamples.max(indexStarted),
      indexProcessPeak: firstSamples.indexProcessPeak(),
      atIndexDone: atDone.rss,
      settled: settled.rss,
      settledPeak: settled.peak,
      reopenedIdle: idle.rss,
      reopenedAfterSearch: afterSearch.rss,
      settledRatio: settled.rss / idle.rss,
      timeline: firstSamples.samples.map((sample) => ({ seconds: (sample.at - first.started) / 1000, rss: sample.rss })),
    };
  } finally {
    if (!home) rmSync(sylkHome, { recursive: true, force: true });
  }
}

/** The figures as rows of a markdown table, each beside its target. */
export function memoryRows(figures, settleMs = 15_000) {
  const mb = (value) => `${Math.round(value)} MB`;
  const met = (ok) => (ok ? "met" : "not met");
  const { firstIndexPeakMb, settledRatio, reopenedAfterSearchMb } = MEMORY_TARGETS;
  return [
    "| measure | RSS | target |",
    "| --- | --- | --- |",
    `| first index, peak (VmHWM; ${figures.indexSeconds.toFixed(1)} s) | ${mb(figures.firstIndexPeak)} | < ${firstIndexPeakMb} MB: ${met(figures.firstIndexPeak < firstIndexPeakMb)} |`,
    `| first index, the separate \`sylk index\` process's peak (0 when the session started none) | ${mb(figures.indexProcessPeak)} | — |`,
    `| first index, when done | ${mb(figures.atIndexDone)} | — |`,
    `| first index, settled ${settleMs / 1000} s after | ${mb(figures.settled)} (${figures.settledRatio.toFixed(2)}× reopened idle) | ≤ ${settledRatio}×: ${met(figures.settledRatio <= settledRatio)} |`,
    `| new sylk on the finished index, idle | ${mb(figures.reopenedIdle)} | — |`,
    `| new sylk on the finished index, after one /search | ${mb(figures.reopenedAfterSearch)} | < ${reopenedAfterSearchMb} MB: ${met(figures.reopenedAfterSearch < reopenedAfterSearchMb)} |`,
  ];
}

/**
 * `sylk index` on the same tree in a new SYLK_HOME: its wall time (the command's own start to end) and
 * its peak, to set beside the TUI's first index.
 */
export async function measureIndexCommand({ sylk, tree, env }) {
  const sylkHome = mkdtempSync(join(tmpdir(), "sylk-bench-index-"));
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [sylk, "index", tree], { env: { ...env, SYLK_HOME: sylkHome }, stdio: "ignore" });
    let peak = 0;
    const timer = setInterval(() => {
      const figures = residentMb(child.pid);
      if (figures) peak = Math.max(peak, figures.peak);
    }, SAMPLE_INTERVAL_MS);
    const [code] = await once(child, "exit");
    clearInterval(timer);
    if (code !== 0) throw new Error(`sylk index exited with ${code}`);
    return { seconds: (performance.now() - started) / 1000, peak };
  } finally {
    rmSync(sylkHome, { recursive: true, force: true });
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
