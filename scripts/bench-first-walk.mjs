#!/usr/bin/env node
// A first index's walk alone: `scanTree` with no stored states (every
// directory changed, every entry judged by the rules), its changed
// directories taken as they come as the first index takes them, in a new
// process per run (the walk's code cold, as in a cold `sylk index`), timed by
// the main thread's own CPU (`process.threadCpuUsage`, user + system) and
// wall. Builds alternate run by run (the order reversed every other round);
// the tree's inodes are in the page cache after the first round.
//
//   node scripts/bench-first-walk.mjs --tree <dir> --build <checkout, built> [--build …] [--rounds 10] [--json]
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { inTurn, median } from "./lib/alternated-rounds.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    build: { type: "string", multiple: true, default: ["."] },
    rounds: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-first-walk.mjs --tree <dir> --build <checkout> [--build …] [--rounds 10] [--json]");
  process.exit(2);
}
const tree = resolve(values.tree);
const builds = values.build.map((build) => resolve(build));

function oneRun(build) {
  const module = (path) => JSON.stringify(pathToFileURL(join(build, "dist", "src", path)).href);
  const program = `
    const { loadConfig } = await import(${module("config/load-config.js")});
    const { scanTree } = await import(${module("indexer/scanner.js")});
    const { config } = loadConfig({ projectRoot: ${JSON.stringify(tree)}, env: {} });
    let files = 0;
    const cpu = process.threadCpuUsage();
    const started = performance.now();
    await scanTree(${JSON.stringify(tree)}, config.index, { onChangedDirectory: (directory) => { files += directory.files.length; } });
    const spent = process.threadCpuUsage(cpu);
    console.log(JSON.stringify({ cpuMs: (spent.user + spent.system) / 1000, wallMs: performance.now() - started, files }));`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const results = builds.map(() => []);
const buildIndexes = builds.map((_, index) => index);
for (let round = 0; round < Number(values.rounds); round++) {
  for (const index of inTurn(buildIndexes, round)) results[index].push(oneRun(builds[index]));
}
const summary = builds.map((build, index) => ({
  build,
  files: [...new Set(results[index].map((run) => run.files))],
  cpuMs: results[index].map((run) => Math.round(run.cpuMs)),
  wallMs: results[index].map((run) => Math.round(run.wallMs)),
  medianCpuMs: Math.round(median(results[index].map((run) => run.cpuMs))),
  medianWallMs: Math.round(median(results[index].map((run) => run.wallMs))),
}));
if (values.json) console.log(JSON.stringify(summary, null, 2));
else
  for (const row of summary)
    console.log(
      `${row.build}: ${row.files.join("/")} files, walk ${row.medianCpuMs} ms CPU (${row.cpuMs.join(", ")}), ${row.medianWallMs} ms wall (${row.wallMs.join(", ")})`,
    );
