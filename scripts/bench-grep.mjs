#!/usr/bin/env node
// The grep tool's speed beside ripgrep: section 5 of scripts/bench-everyday.mjs on its own.
//
//   npm run build && node scripts/bench-grep.mjs --tree <dir> [--rounds 15] [--home <SYLK_HOME with the tree indexed>]
//
// The model's `grep` as a session makes it (the built `dist/` tool with the process's threads
// and the project index) and `rg -n` with the same pattern and path, alternately, for literal
// identifiers from the tree, a regex, a case-insensitive word and a literal on one package:
// idle (as `sylk` runs it, as `sylk ask` runs it, and with no watcher), then while
// `sylk index --for-session` (as the interactive session starts it) builds a first index of the
// tree under a new SYLK_HOME (which the measured process uses too). Without --home a temporary
// SYLK_HOME is indexed first.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
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
  console.error("Usage: node scripts/bench-grep.mjs --tree <dir> [--rounds 15] [--home <SYLK_HOME>]");
  process.exit(2);
}
try {
  execFileSync("which", ["rg"], { stdio: "ignore" });
} catch {
  console.error("rg is missing: apt-get install ripgrep");
  process.exit(2);
}
const tree = resolve(values.tree);
const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), "sylk-bench-grep-"));
const env = { ...process.env, SYLK_HOME: home };
delete env.CI;
if (spawnSync(process.execPath, [join(repo, "bin/sylk.js"), "index", "--yes", tree], { env, stdio: "inherit" }).status !== 0)
  process.exit(1);

const { scanProject } = await import(join(repo, "dist/src/indexer/scanner.js"));
const { defaultConfig } = await import(join(repo, "dist/src/config/schema.js"));
const { files } = await scanProject(tree, defaultConfig().index);
const rounds = Number(values.rounds);
const lines = await grepRows({ repo, tree, env, files, rounds, seed: Number(values.seed) });
if (!values.home) rmSync(home, { recursive: true, force: true });
console.log(`\ngrep on ${tree} (${files.length} files), ${rounds} rounds, p50 / p95\n`);
console.log("| measure | sylk | reference | ratio at p50 | target |");
console.log("| --- | --- | --- | --- | --- |");
for (const line of lines) console.log(line);
