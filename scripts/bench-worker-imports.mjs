#!/usr/bin/env node
// What a file worker's imports cost on its own thread: the module graph
// (dist/workers/file-worker.js, ≈ 120 files) against its bundle
// (dist/workers/file-worker.bundle.js, scripts/bundle.mjs). Each run is a new
// process with Node's compile cache on, as `bin/sylk.js` has it, that starts
// one worker thread; the thread reads its own CPU (`process.threadCpuUsage`,
// user + system) and the wall time around `import(<entry>)`. The entries
// alternate run by run (the order reversed every other round).
//
//   node scripts/bench-worker-imports.mjs [--build <checkout, built>] [--rounds 8] [--json]
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { inTurn, median } from "./lib/alternated-rounds.mjs";

const { values } = parseArgs({
  options: {
    build: { type: "string", default: "." },
    rounds: { type: "string", default: "8" },
    json: { type: "boolean", default: false },
  },
});
const build = resolve(values.build);
const entries = ["file-worker.js", "file-worker.bundle.js"].map((name) => join(build, "dist", "workers", name));
for (const entry of entries) if (!existsSync(entry)) throw new Error(`${entry} not found: build first`);
const compileCache = pathToFileURL(join(build, "bin", "compile-cache.js")).href;

/** One process, one worker thread: what importing `entry` cost that thread. */
function oneRun(entry) {
  const program = `
    import { Worker } from "node:worker_threads";
    import { enableSylkCompileCache } from ${JSON.stringify(compileCache)};
    enableSylkCompileCache(process.env);
    const source = \`
      const { parentPort, workerData } = require("node:worker_threads");
      const cpu = process.threadCpuUsage();
      const started = performance.now();
      import(workerData.entry).then(() => {
        const spent = process.threadCpuUsage(cpu);
        parentPort.postMessage({ cpuMs: (spent.user + spent.system) / 1000, wallMs: performance.now() - started });
      });\`;
    const worker = new Worker(source, { eval: true, execArgv: [], workerData: { entry: ${JSON.stringify(entry)} } });
    worker.once("message", (result) => { console.log(JSON.stringify(result)); process.exit(0); });`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const results = entries.map(() => []);
// A first run of each fills the compile cache, as any launch after an install would have.
for (const entry of entries) oneRun(entry);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const index of inTurn([0, 1], round)) results[index].push(oneRun(entries[index]));
}
const summary = entries.map((entry, index) => ({
  entry,
  cpuMs: results[index].map((run) => Math.round(run.cpuMs)),
  wallMs: results[index].map((run) => Math.round(run.wallMs)),
  medianCpuMs: Math.round(median(results[index].map((run) => run.cpuMs))),
  medianWallMs: Math.round(median(results[index].map((run) => run.wallMs))),
}));
if (values.json) console.log(JSON.stringify(summary, null, 2));
else
  for (const row of summary)
    console.log(
      `${row.entry}: imports ${row.medianCpuMs} ms CPU (${row.cpuMs.join(", ")}), ${row.medianWallMs} ms wall (${row.wallMs.join(", ")})`,
    );
