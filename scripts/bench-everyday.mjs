#!/usr/bin/env node
// Everyday speed on a large repository, each figure beside its reference,
// measured alternately in the same run:
//   1. the fresh check (in process, index unchanged) beside a plain stat walk of the
//      same tree, `find <tree> -printf '%s %T@\n'`;
//   2. `sylk index` after one file changed, as a whole process, beside `node -e 0`
//      (what any Node process costs to start);
//   3. a one-shot `sylk search "<query>"` as a whole process, beside `rg` with the
//      query's terms on the same tree (`rg -i -l -F -e t1 -e t2 …`);
//   4. the same while an interactive `sylk` of the tree runs (in a pseudo-terminal) and
//      serves its warm index to the searches;
//   5. the model's `grep` tool (as a session makes it) beside `rg -n` with the same pattern and
//      path, idle and while a first index of the tree runs (scripts/lib/bench-grep-rows.mjs).
//   6. the interactive `sylk`'s memory: during and after a first index in a new SYLK_HOME,
//      then a new `sylk` on that index, idle and after one `/search` (scripts/lib/bench-memory-rows.mjs).
// The TUI's launch time is measured by scripts/bench-tui-launch.mjs.
//
//   npm run build && node scripts/bench-everyday.mjs --tree <dir> [--rounds 15] [--home <SYLK_HOME with the tree indexed>]
//
// --tree is a checkout of a large repository (required); docs/BENCHMARKS.md uses
// biomejs/biome at commit 18883b7d. Without --home a temporary SYLK_HOME is indexed
// first and removed at the end. The edited file is restored afterwards.
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { launchInTerminal, quit, requireScriptCommand, waitForText } from "./lib/pseudo-terminal.mjs";
import { measureTuiMemory, memoryRows } from "./lib/bench-memory-rows.mjs";
import { sampleQueries } from "./lib/sample-queries.mjs";
import { grepRows } from "./lib/bench-grep-rows.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    rounds: { type: "string", default: "15" },
    home: { type: "string" },
    seed: { type: "string", default: "11" },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error(
    "Usage: node scripts/bench-everyday.mjs --tree <dir> [--rounds 15] [--home <SYLK_HOME>] (a checkout of a large repository)",
  );
  process.exit(2);
}
for (const [command, debianPackage] of [
  ["rg", "ripgrep"],
  ["find", "findutils"],
]) {
  try {
    execFileSync("which", [command], { stdio: "ignore" });
  } catch {
    console.error(`${command} is missing: apt-get install ${debianPackage}`);
    process.exit(2);
  }
}

const tree = resolve(values.tree);
const rounds = Number(values.rounds);
const sylk = join(repo, "bin/sylk.js");
const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), "sylk-bench-everyday-"));
const env = { ...process.env, SYLK_HOME: home };
delete env.CI;

const run = (command, args, options = {}) => {
  const started = performance.now();
  const result = spawnSync(command, args, { env, cwd: tree, encoding: "utf8", maxBuffer: 1 << 28, ...options });
  const ms = performance.now() - started;
  if (result.status !== 0 && !options.allowFailure) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stderr}`);
  return { ms, stdout: result.stdout };
};

console.error(`Indexing ${tree} (SYLK_HOME ${home})…`);
run(process.execPath, [sylk, "index", "--yes", tree]);

const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { scanProject } = await import(join(repo, "dist/src/indexer/scanner.js"));

// 1. Fresh check beside find, alternating.
const services = openProject({ root: tree, env });
const freshCheck = [];
const find = [];
for (let round = 0; round < rounds; round++) {
  find.push(run("find", [tree, "-printf", "%s %T@\n"]).ms);
  const started = performance.now();
  const report = await services.indexer.checkFreshness();
  freshCheck.push(performance.now() - started);
  if (report.state !== "fresh") throw new Error(`the index is ${report.state}; run sylk index on the tree first`);
}
const files = (await scanProject(tree, services.loadedConfig.config.index)).files;
await services.close();

// 2. `sylk index` after one file changed, beside `node -e 0`.
const victim = files.find((file) => /\.(rs|ts|js|py|go)$/.test(file.path))?.path ?? files[0].path;
const victimPath = join(tree, victim);
const original = readFileSync(victimPath);
const oneFileIndex = [];
const nodeStart = [];
try {
  for (let round = 0; round < rounds; round++) {
    nodeStart.push(run(process.execPath, ["-e", "0"]).ms);
    appendFileSync(victimPath, `// sylk benchmark edit ${round}\n`);
    const index = run(process.execPath, [sylk, "index", "--json", tree]);
    const summary = JSON.parse(index.stdout.trim().split("\n").at(-1));
    if (summary.indexed + summary.unchangedContent !== 1) throw new Error(`expected one file refreshed, got ${JSON.stringify(summary)}`);
    oneFileIndex.push(index.ms);
  }
} finally {
  writeFileSync(victimPath, original);
  run(process.execPath, [sylk, "index", tree]);
}

// 3. One-shot search beside rg, alternating, one query per round.
const queries = sampleQueries(tree, files, rounds, Number(values.seed));
const search = [];
const ripgrep = [];
for (const query of queries) {
  const terms = [...new Set(query.split(/\s+/))];
  ripgrep.push(run("rg", ["-i", "-l", "-F", ...terms.flatMap((term) => ["-e", term]), tree], { allowFailure: true }).ms);
  search.push(run(process.execPath, [sylk, "search", query]).ms);
}

// 4. The same searches while an interactive sylk of the tree runs and serves its warm index.
requireScriptCommand("bench-everyday");
const interactive = launchInTerminal(sylk, tree, env);
await waitForText(interactive, "index: fresh");
await new Promise((resolve) => setTimeout(resolve, 500));
const warmSearch = [];
const warmRipgrep = [];
for (const query of queries) {
  const terms = [...new Set(query.split(/\s+/))];
  warmRipgrep.push(run("rg", ["-i", "-l", "-F", ...terms.flatMap((term) => ["-e", term]), tree], { allowFailure: true }).ms);
  warmSearch.push(run(process.execPath, [sylk, "search", query]).ms);
}
await quit(interactive);

// 5. grep beside rg, alternately, idle and while a first index runs.
const grep = await grepRows({ repo, tree, env, files, rounds, seed: Number(values.seed) });
if (!values.home) rmSync(home, { recursive: true, force: true });

// 5. Memory: a first index in a new SYLK_HOME of its own, then a new sylk on it.
const memory = await measureTuiMemory({ sylk, tree, env, query: queries[0], log: (line) => console.error(line) });

const p = (samples, q) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(q * samples.length))];
const f1 = (x) => x.toFixed(1);
const row = (name, mine, reference, referenceName, target) =>
  console.log(
    `| ${name} | ${f1(p(mine, 0.5))} / ${f1(p(mine, 0.95))} ms | ${referenceName}: ${f1(p(reference, 0.5))} / ${f1(p(reference, 0.95))} ms | ${f1(p(mine, 0.5) / p(reference, 0.5))}× | ${target} |`,
  );
console.log(`\nEveryday speed on ${tree} (${files.length} files), ${rounds} rounds, p50 / p95\n`);
console.log("| measure | sylk | reference | ratio at p50 | target |");
console.log("| --- | --- | --- | --- | --- |");
row("fresh check (in process)", freshCheck, find, "find -printf '%s %T@'", "≤ 1.2×");
row("`sylk index`, one file changed (process)", oneFileIndex, nodeStart, "node -e 0", "< 500 ms");
row("one-shot `sylk search` (process)", search, ripgrep, "rg, same terms", "≤ 1.0×");
row("one-shot `sylk search`, interactive sylk running (process)", warmSearch, warmRipgrep, "rg, same terms", "≤ 1.0×");
for (const line of grep) console.log(line);
console.log("\nThe interactive sylk's memory (RSS, every thread)\n");
for (const line of memoryRows(memory)) console.log(line);
