#!/usr/bin/env node
// Security probes: each attack of the threat model reproduced against the real built CLI
// (bin/sylk.js) with a scripted fake model, reported held or broken by its effect. Every probe
// works in a laboratory of its own under /var/tmp (or SYLK_PROBE_TMPDIR): its own HOME and
// SYLK_HOME, never the caller's. Needs bubblewrap, tmux and git; a probe whose tool is missing is
// skipped with the reason, never held.
//
//   npm run build && node scripts/bench-security.mjs [--only group,…|id,…] [--json <file>] [--concurrency 2]
//
// Exits 1 when any probe is broken or could not run, 2 on bad usage.
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { closeOpenLabs, formatReport, PROBES, probeEnvironment, runProbes, selectProbes } from "./lib/security-probes.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
let values;
let probes;
let environment;
try {
  ({ values } = parseArgs({
    options: { only: { type: "string" }, json: { type: "string" }, concurrency: { type: "string", default: "2" } },
  }));
  probes = selectProbes(PROBES, values.only);
  environment = probeEnvironment(repo);
} catch (error) {
  console.error(`${error.message}\nUsage: node scripts/bench-security.mjs [--only group,…|id,…] [--json <file>] [--concurrency 2]`);
  process.exit(2);
}
const concurrency = Number(values.concurrency);
const missing = Object.entries(environment.missing).filter(([, reason]) => reason);
console.error(
  `Running ${probes.length} probes, ${concurrency} at a time, in ${environment.parent} (they need bubblewrap, tmux, git and curl).`,
);
for (const [name, reason] of missing) console.error(`Missing ${name}: ${reason}; the probes that need it are skipped.`);

// Interrupted: the laboratories under way are closed (their processes and tmux servers ended, their files removed).
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    console.error(`${signal}: closing the probes under way…`);
    void closeOpenLabs(environment).finally(() => process.exit(130));
  });
}
// A probe's bug thrown outside its promise (in an event handler) ends the run, but not before its laboratories are closed.
process.once("uncaughtException", (error) => {
  console.error(`A probe failed outside its run: ${error.stack ?? error}`);
  void closeOpenLabs(environment).finally(() => process.exit(1));
});

const started = performance.now();
const results = await runProbes(probes, environment, {
  concurrency,
  onResult: (result) => console.error(`${result.status.padEnd(7)} ${result.id} (${(result.ms / 1000).toFixed(1)} s): ${result.detail}`),
});
console.log(formatReport(results));
console.error(`Finished in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
if (values.json)
  writeFileSync(values.json, `${JSON.stringify({ results, seconds: Math.round((performance.now() - started) / 1000) }, null, 2)}\n`);
process.exitCode = results.every((result) => result.status === "held" || result.status === "skipped") ? 0 : 1;
