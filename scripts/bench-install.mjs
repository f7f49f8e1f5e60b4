#!/usr/bin/env node
// What a fresh install costs: `npm ci` time and the size of node_modules (disk
// usage as `du -sh` counts it, and the bytes of the files), for two checkouts,
// each on its own Node, measured alternately in the same run so that the load
// of the machine falls on both alike. The npm cache is warm for both (the first
// round fills it); nothing else is downloaded.
//
//   node scripts/bench-install.mjs --baseline <checkout> --baseline-node <dir of bin/node, or "system">
//                                  --candidate <checkout> --candidate-node <dir> [--rounds 3]
//
// docs/BENCHMARKS.md compares main on the machine's Node 20 with this branch on
// Node 24 (`node scripts/supported-node.mjs --install 24` prints its directory).
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { environmentFor } from "./supported-node.mjs";

const { values } = parseArgs({
  options: {
    baseline: { type: "string" },
    "baseline-node": { type: "string", default: "system" },
    candidate: { type: "string" },
    "candidate-node": { type: "string", default: "system" },
    rounds: { type: "string", default: "3" },
  },
});
if (!values.baseline || !values.candidate) {
  console.error(
    "Usage: node scripts/bench-install.mjs --baseline <checkout> --baseline-node <dir|system> --candidate <checkout> --candidate-node <dir|system> [--rounds 3]",
  );
  process.exit(2);
}

/** The environment that runs npm (and install scripts) on the given Node: the machine's, or the one in that directory. */
const onNode = (nodeDirectory) => (nodeDirectory === "system" ? { ...process.env } : environmentFor(resolve(nodeDirectory)));

const subjects = [
  { name: "baseline", checkout: resolve(values.baseline), env: onNode(values["baseline-node"]) },
  { name: "candidate", checkout: resolve(values.candidate), env: onNode(values["candidate-node"]) },
];

function kibibytes(checkout, apparent) {
  const result = spawnSync("du", ["-sk", ...(apparent ? ["--apparent-size"] : []), join(checkout, "node_modules")], { encoding: "utf8" });
  return Number(result.stdout.split("\t")[0]);
}

for (const subject of subjects) {
  const version = spawnSync("node", ["--version"], { env: subject.env, encoding: "utf8" }).stdout.trim();
  subject.node = version;
  subject.times = [];
}

for (let round = 0; round < Number(values.rounds); round++) {
  for (const subject of subjects) {
    rmSync(join(subject.checkout, "node_modules"), { recursive: true, force: true });
    const started = performance.now();
    const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], {
      cwd: subject.checkout,
      env: subject.env,
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    });
    const seconds = (performance.now() - started) / 1000;
    if (result.status !== 0) {
      console.error(result.stderr);
      throw new Error(`npm ci failed in ${subject.checkout}`);
    }
    subject.times.push(seconds);
    console.error(`round ${round + 1}: ${subject.name} (${subject.node}) npm ci ${seconds.toFixed(1)} s`);
  }
}

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
console.log("| checkout | Node | `npm ci` (median; each round) | node_modules, `du -sh` | node_modules, bytes of the files |");
console.log("| --- | --- | --- | --- | --- |");
for (const subject of subjects) {
  const disk = kibibytes(subject.checkout, false) / 1024;
  const bytes = kibibytes(subject.checkout, true) / 1024;
  const rounds = subject.times.map((seconds) => seconds.toFixed(1)).join(", ");
  console.log(
    `| ${subject.name} (${subject.checkout}) | ${subject.node} | ${median(subject.times).toFixed(1)} s (${rounds}) | ${disk.toFixed(0)} MiB | ${bytes.toFixed(0)} MiB |`,
  );
}
