#!/usr/bin/env node
// Fault figures: counts, not a pass/fail. The real built CLI runs as child processes
// with a temporary SYLK_HOME and is hurt on purpose:
//   index   kill -9 at seeded random moments of `sylk index` on a large tree; each run continues
//           the index the killed one left, until one completes (then it is compared with a
//           complete reference index and a new chain starts from nothing);
//   stream  kill -9 while `sylk ask` reads a model answer (at a random SSE event);
//   tool    kill -9 while a tool runs (`run_command sleep 1`, --permission-mode bypass);
//   evict   kill -9 around the eviction that precedes each model call (a window a little above
//           the request's fixed part, measured by a first run: evictions from the fourth turn);
//   model   429 with retry-after, 529, 500, a stream cut mid-event, malformed JSON, a request
//           that hangs and a stream that stalls past the timeout, each once (a retry should
//           recover) and on every attempt (the run should end with its documented exit code);
//   disk    SYLK_HOME on a small tmpfs (root only): a large index that does not fit, beside a
//           small complete one.
// After each killed run: PRAGMA integrity_check, the index against its manifest (and the
// full-text indexes against their tables), the session's turns against those the process
// printed, and a following `sylk index` / `sylk ask --continue`. Agent runs talk to a fake
// Messages API on loopback (scripts/lib/fake-messages-server.mjs).
//
//   npm run build && node scripts/bench-faults.mjs --tree <dir> [--trials 50] [--seed 11]
//        [--fault-runs 5] [--disk-runs 5] [--disk-mb 48] [--only index,stream,tool,evict,model,disk]
//
// --tree is a checkout of a large repository (required): the index trials need a tree whose cold
// index takes several seconds; docs/BENCHMARKS.md uses biomejs/biome at commit 18883b7d. Results
// go to stdout as markdown and to .sylk-bench/faults.json.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { openDriver } from "./lib/fault-checks.mjs";
import { sylkCli } from "./lib/fault-harness.mjs";
import { agentScenario } from "./lib/faults-agent.mjs";
import { diskScenario } from "./lib/faults-disk.mjs";
import { indexScenario } from "./lib/faults-index.mjs";
import { modelScenario } from "./lib/faults-model.mjs";
import { printTables } from "./lib/faults-report.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SCENARIOS = ["index", "stream", "tool", "evict", "model", "disk"];
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    trials: { type: "string", default: "50" },
    seed: { type: "string", default: "11" },
    "fault-runs": { type: "string", default: "5" },
    "disk-runs": { type: "string", default: "5" },
    "disk-mb": { type: "string", default: "48" },
    only: { type: "string", default: SCENARIOS.join(",") },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error(
    "Usage: node scripts/bench-faults.mjs --tree <dir> [--trials 50] [--seed 11] [--fault-runs 5] [--only index,stream,tool,evict,model,disk] (a checkout of a large repository)",
  );
  process.exit(2);
}
if (!existsSync(join(repo, "dist/src/app/project-services.js"))) {
  console.error("Run `npm run build` first.");
  process.exit(2);
}
const only = new Set(values.only.split(","));
/** What every scenario works with; the index scenario adds `completeIndex` (path → hash, chunks) for the disk one. */
const bench = {
  repo,
  tree: resolve(values.tree),
  trials: Number(values.trials),
  seed: Number(values.seed),
  faultRuns: Number(values["fault-runs"]),
  diskRuns: Number(values["disk-runs"]),
  diskMb: Number(values["disk-mb"]),
  scratch: mkdtempSync(join(tmpdir(), "sylk-bench-faults-")),
  openDb: openDriver(repo),
  ...sylkCli(join(repo, "bin/sylk.js")),
  log: (text) => process.stderr.write(`${text}\n`),
};
const results = { seed: bench.seed, trials: bench.trials, faultRuns: bench.faultRuns, tree: bench.tree, scenarios: {} };

const started = performance.now();
try {
  if (only.has("index")) results.scenarios.index = await indexScenario(bench);
  for (const kind of ["stream", "tool", "evict"]) if (only.has(kind)) results.scenarios[kind] = await agentScenario(bench, kind);
  if (only.has("model")) results.scenarios.model = await modelScenario(bench);
  if (only.has("disk")) results.scenarios.disk = await diskScenario(bench);
} finally {
  rmSync(bench.scratch, { recursive: true, force: true });
}
results.minutes = Number(((performance.now() - started) / 60_000).toFixed(1));
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/faults.json"), JSON.stringify(results, null, 2));
printTables(results);
