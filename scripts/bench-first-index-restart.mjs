#!/usr/bin/env node
// How long the `sylk index` process that starts itself again for a large
// first index lives before its `execve` (docs/DESIGN-NOTES.md, "A large first
// index in a process set up for it"): its wall time since Node started
// (`process.uptime()`) and its CPU (`process.cpuUsage()`, user + system),
// read by a preload (`NODE_OPTIONS=--require`) at the moment it calls
// `process.execve`. The restarted process is then killed: its run is not
// what is measured. Builds alternate round by round (the order reversed
// every other round), each run in a new SYLK_HOME, removed after.
//
//   node scripts/bench-first-index-restart.mjs --tree <dir> --build <checkout> [--build <checkout> …] [--rounds 5] [--json]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { inTurn, median } from "./lib/alternated-rounds.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string", multiple: true, default: ["."] },
    rounds: { type: "string", default: "5" },
    json: { type: "boolean", default: false },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-first-index-restart.mjs --tree <dir> --build <checkout> [--build …] [--rounds 5] [--json]");
  process.exit(2);
}
const builds = values.build.map((build) => resolve(build));
const rounds = Number(values.rounds);
const scratch = mkdtempSync(join(tmpdir(), "sylk-restart-bench-"));
const preload = join(scratch, "witness.cjs");
writeFileSync(
  preload,
  `const { writeFileSync } = require("node:fs");
const execve = process.execve;
if (typeof execve === "function") {
  process.execve = function (...args) {
    const cpu = process.cpuUsage();
    writeFileSync(process.env.RESTART_WITNESS_OUT, JSON.stringify({ wallMs: process.uptime() * 1000, cpuMs: (cpu.user + cpu.system) / 1000 }));
    return execve.apply(process, args);
  };
}
`,
);

/** One cold `sylk index` of the tree, killed once it has restarted; what the first process had spent by then. */
async function oneRun(build) {
  const home = mkdtempSync(join(scratch, "home-"));
  const out = join(scratch, "witness.json");
  rmSync(out, { force: true });
  const env = { ...process.env, SYLK_HOME: home, NODE_OPTIONS: `--require=${preload}`, RESTART_WITNESS_OUT: out };
  delete env.SYLK_FIRST_INDEX_PROCESS;
  delete env.GLIBC_TUNABLES;
  const child = spawn(process.execPath, [join(build, "bin", "sylk.js"), "index", "--yes", "--json", values.tree], {
    env,
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise((done) => child.on("exit", done));
  const started = Date.now();
  while (!existsSync(out) && child.exitCode === null && Date.now() - started < 60_000) await new Promise((done) => setTimeout(done, 5));
  child.kill("SIGKILL");
  await exited;
  rmSync(home, { recursive: true, force: true });
  if (!existsSync(out)) throw new Error(`${build}: the process did not restart`);
  // The file may be caught half-written: read it once the process is gone.
  return JSON.parse(readFileSync(out, "utf8"));
}

const results = builds.map(() => []);
const buildIndexes = builds.map((_, index) => index);
try {
  for (let round = 0; round < rounds; round++) {
    for (const index of inTurn(buildIndexes, round)) results[index].push(await oneRun(builds[index]));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const summary = builds.map((build, index) => ({
  build,
  wallMs: results[index].map((run) => Math.round(run.wallMs)),
  cpuMs: results[index].map((run) => Math.round(run.cpuMs)),
  medianWallMs: Math.round(median(results[index].map((run) => run.wallMs))),
  medianCpuMs: Math.round(median(results[index].map((run) => run.cpuMs))),
}));
if (values.json) console.log(JSON.stringify(summary, null, 2));
else
  for (const row of summary)
    console.log(
      `${row.build}: to the restart ${row.medianWallMs} ms wall (${row.wallMs.join(", ")}), ${row.medianCpuMs} ms CPU (${row.cpuMs.join(", ")})`,
    );
