#!/usr/bin/env node
// The learning reference (m-onset26; docs/BENCHMARKS.md, "The learning reference"): Bayes over the handoff simulator's
// own family, where each (type, model) pair's parameters have a particle posterior learned from the sessions it has
// seen (scripts/lib/handoff-learning-reference.mjs). Writes JSONL to stdout: replay mode, one row per session (its first
// instance's gates, read at any level afterwards); live mode, one row per seed (runPolicy's summary). One worker thread
// per seed, --threads at a time; rows of different seeds interleave, a seed's own rows stay in order.
//
//   npm run build
//   node scripts/bench-handoff-reference.mjs --seeds 10,11 --sessions 60 --level 0.915 --particles 100 > replay.jsonl
//   node scripts/bench-handoff-reference.mjs --mode live --later 0.97 --seeds 10,11 --sessions 60 --level 0.915 > live.jsonl
//   node scripts/bench-handoff-reference.mjs --analyse [--levels 0.85,0.9] [--detail 0.915] replay.jsonl [more.jsonl …]
//   node scripts/bench-handoff-reference.mjs --analyse live.jsonl
//
// --level is the first instance's level; in replay mode it is also the data level (what an earlier session gives its
// pair is cut where the reference fires at it). --later is the carried instances' level in live mode (default --level).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const USAGE =
  "usage: node scripts/bench-handoff-reference.mjs [--mode replay|live] [--seeds 10,…] [--sessions 300] [--level 0.915] " +
  "[--later <level>] [--particles 400] [--threads 2]\n" +
  "       node scripts/bench-handoff-reference.mjs --analyse [--levels 0.85,0.9,0.915,0.93,0.95] [--detail <level>] <jsonl> …\n";

if (isMainThread) await main();
else await worker(workerData);

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        mode: { type: "string", default: "replay" },
        seeds: { type: "string", default: "10,11,12,13,14,15,16,17,18,19" },
        sessions: { type: "string", default: "300" },
        level: { type: "string", default: "0.915" },
        later: { type: "string" },
        particles: { type: "string", default: "400" },
        threads: { type: "string", default: "2" },
        analyse: { type: "boolean", default: false },
        levels: { type: "string", default: "0.85,0.9,0.915,0.93,0.95" },
        detail: { type: "string" },
      },
    });
  } catch (error) {
    fail(`${error.message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.analyse) return analyseFiles(positionals, values);
  if (positionals.length > 0 || !["replay", "live"].includes(values.mode)) fail(USAGE);
  const run = {
    mode: values.mode,
    sessions: integerFrom(values.sessions, "--sessions", 1),
    level: Number(values.level),
    later: Number(values.later ?? values.level),
    particles: integerFrom(values.particles, "--particles", 1),
  };
  if (!(run.level > 0 && run.level <= 1) || !(run.later > 0 && run.later <= 1)) fail("--level and --later are in (0, 1]\n");
  const seeds = values.seeds.split(",").map((seed) => integerFrom(seed, "--seeds", 0));
  const queue = [...seeds];
  const next = () => {
    const seed = queue.shift();
    if (seed === undefined) return;
    const thread = new Worker(new URL(import.meta.url), { workerData: { ...run, seed } });
    thread.on("message", (line) => process.stdout.write(line));
    thread.on("error", (error) => fail(`seed ${seed}: ${error.stack ?? error}\n`));
    thread.on("exit", next);
  };
  for (let t = 0; t < integerFrom(values.threads, "--threads", 1); t++) next();
}

async function worker(run) {
  const { liveSeed, replaySeed } = await import("./lib/handoff-reference-runs.mjs");
  const emit = (row) => parentPort.postMessage(`${JSON.stringify(row)}\n`);
  (run.mode === "live" ? liveSeed : replaySeed)(run, emit);
}

async function analyseFiles(files, values) {
  if (files.length === 0) fail(USAGE);
  const { analyse } = await import("./lib/handoff-reference-analysis.mjs");
  const rows = files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line)),
  );
  const levels = values.levels.split(",").map(Number);
  const detail = values.detail === undefined ? undefined : Number(values.detail);
  process.stdout.write(`${analyse(rows, { levels, detail }).join("\n")}\n`);
}

function integerFrom(text, name, least) {
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < least) fail(`${name}: ${text} is not an integer from ${least}\n`);
  return n;
}

function fail(message) {
  process.stderr.write(message);
  process.exit(2);
}
