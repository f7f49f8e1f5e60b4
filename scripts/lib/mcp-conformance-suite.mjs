// What the two conformance scripts share: the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned here), installed once into
// $XDG_CACHE_HOME/sylk/mcp-conformance-<version> outside the repository's
// dependencies (it is run by hand, not by `npm test`, and its ~120 packages
// would otherwise be in every `npm ci`), run to its end, its results read
// back and printed as a table.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";

export const CONFORMANCE_VERSION = "0.1.16";

/** Says what went wrong and ends the script. */
export function fail(script, message) {
  process.stderr.write(`${script}: ${message}\n`);
  process.exit(1);
}

/** Ends the script unless it runs on a Node the suite supports. */
export function requireSupportedNode(script, scriptPath) {
  const [major] = process.versions.node.split(".").map(Number);
  if (major < 22) fail(script, `the conformance suite needs Node 22 or newer: node scripts/supported-node.mjs node ${scriptPath}`);
}

/** The suite's entry point, installed into the cache the first time. */
export function conformanceEntry(script) {
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "sylk", `mcp-conformance-${CONFORMANCE_VERSION}`);
  const entry = join(cache, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  if (existsSync(entry)) return entry;
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, "package.json"), '{ "private": true }\n');
  process.stderr.write(`Installing @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} into ${cache}…\n`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const installed = spawnSync(npm, ["install", "--no-audit", "--no-fund", `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`], {
    cwd: cache,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (installed.status !== 0 || !existsSync(entry)) fail(script, "could not install the conformance suite");
  return entry;
}

/** Runs the suite to its end, with what it wrote on stdout and stderr. */
export function runSuite(entry, suiteArgs) {
  const child = spawn(process.execPath, [entry, ...suiteArgs], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolvePromise) => child.once("exit", (code) => resolvePromise({ code, stdout, stderr })));
}

/**
 * Each scenario's results from the suite's results directory: its checks,
 * and what the client printed when the suite ran one. A scenario's folder is
 * its name and a time stamp (`server-` before a server scenario's), in a
 * sub-folder for a name with a slash (`auth/metadata-default-…`).
 */
export function readResults(outputDir, prefix = "") {
  const results = [];
  const visit = (directory) => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (!statSync(path).isDirectory()) continue;
      const checksFile = join(path, "checks.json");
      if (!existsSync(checksFile)) {
        visit(path);
        continue;
      }
      const scenario = relative(outputDir, path)
        .split("\\")
        .join("/")
        .replace(new RegExp(`^${prefix}`), "")
        .replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
      const stdoutFile = join(path, "stdout.txt");
      const clientOutput = existsSync(stdoutFile) ? readFileSync(stdoutFile, "utf8") : "";
      results.push({ scenario, checks: JSON.parse(readFileSync(checksFile, "utf8")), clientOutput });
    }
  };
  visit(outputDir);
  return results.sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/** The table the scripts print: one row a scenario, then the counts (and how long the run took, when given). */
export function printTable(title, rows, seconds) {
  process.stdout.write(`${title}\n\n`);
  process.stdout.write("| scenario | result | checks passed | checks failed | note |\n| --- | --- | --- | --- | --- |\n");
  for (const row of rows)
    process.stdout.write(`| ${row.scenario} | ${row.result} | ${row.passed} | ${row.failed} | ${row.note.replaceAll("|", "\\|")} |\n`);
  const count = (result) => rows.filter((row) => row.result === result).length;
  const took = seconds === undefined ? "" : ` (${seconds.toFixed(1)} s for the whole run)`;
  process.stdout.write(
    `\n${count("pass")} pass, ${count("n/a")} not applicable, ${count("FAIL")} fail, of ${rows.length} scenarios${took}\n`,
  );
}
