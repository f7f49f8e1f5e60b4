#!/usr/bin/env node
// Runs the official MCP conformance suite's client scenarios against Sylk's
// own MCP client, and prints a table of what passed, what failed, and which
// scenarios do not apply to Sylk's client (and why).
//
//   npm run build && node scripts/supported-node.mjs node scripts/mcp-conformance-client.mjs [--json] [--keep]
//
// For each scenario the suite starts its test server and runs a client
// command with the server's URL as its last argument and the scenario's name
// in MCP_CONFORMANCE_SCENARIO. That command is this script with `--client`:
// it configures the URL as a user does in `.sylkrc` (`mcpServers` with a
// `url`), starts it with the function `sylk ask` and the TUI use, calls the
// scenario's tool as a model's call of `mcp__conformance__<tool>` is run, and
// prints what happened on one line, which the suite keeps in the scenario's
// stdout.txt. Sylk is imported from the build (dist/src), not from the SDK:
// it is Sylk's client that is tested. The suite is installed and run as
// scripts/lib/mcp-conformance-suite.mjs says.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { callFor, classify, REPORT_PREFIX, SERVER_NAME } from "./lib/mcp-conformance-client-scenarios.mjs";
import {
  CONFORMANCE_VERSION,
  conformanceEntry,
  fail as failScript,
  printTable,
  readResults,
  requireSupportedNode,
  runSuite,
} from "./lib/mcp-conformance-suite.mjs";

const script = fileURLToPath(import.meta.url);
const repo = resolve(dirname(script), "..");
const args = process.argv.slice(2);
const fail = (message) => failScript("mcp-conformance-client", message);
const dist = (path) => import(pathToFileURL(join(repo, "dist", "src", path)).href);

/** Large results are stored as a session's content entries; here they are kept in memory, each named by its index. */
function memorySink() {
  const stored = [];
  return {
    async store(piece) {
      stored.push(piece);
      return `entry-${stored.length}`;
    },
    marker: (entryIds) => `[CTX-REF:${entryIds.join(",")}]`,
  };
}

/** The scenario's tool called as the agent calls an MCP tool: through the tool Sylk makes of it. */
async function callTool(servers, call) {
  const { mcpTools, mcpToolName } = await dist("mcp/session/mcp-tools.js");
  const name = mcpToolName(SERVER_NAME, call.tool);
  const tool = mcpTools(servers, memorySink()).find((candidate) => candidate.name === name);
  if (!tool) return { tool: call.tool, error: `the server listed no tool ${call.tool}` };
  try {
    // The SDK ends a call at mcp.toolTimeoutMs; the signal is the turn's, which nobody interrupts here.
    const context = { root: process.cwd(), signal: new AbortController().signal, extraDirectories: [] };
    const output = await tool.execute(call.arguments, context);
    return { tool: call.tool, output: output.output, ...(output.isError ? { isError: true } : {}) };
  } catch (error) {
    return { tool: call.tool, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The suite's client: Sylk's MCP client against the scenario's server at `url`. */
async function runClient(url, scenario) {
  const { configSchema } = await dist("config/schema.js");
  const { startMcpServers } = await dist("mcp/session/start-mcp-servers.js");
  const config = configSchema.parse({ mcpServers: { [SERVER_NAME]: { url } } });
  const servers = startMcpServers(config, process.env, process.cwd());
  const report = { scenario };
  try {
    await servers.settled();
    const [status] = servers.statuses();
    Object.assign(report, { state: status.state, tools: status.tools.map((tool) => tool.name) });
    if (status.error) report.error = status.error;
    const call = callFor(scenario);
    if (status.state === "connected" && call) report.call = await callTool(servers, call);
  } finally {
    await servers.close();
  }
  process.stdout.write(`${REPORT_PREFIX}${JSON.stringify(report)}\n`);
  if (report.state !== "connected" || report.call?.error || report.call?.isError) process.exitCode = 1;
}

/** A word of a shell command line, quoted: the suite runs the client command through the shell. */
const shellWord = (word) => `'${word.replaceAll("'", "'\\''")}'`;

async function runAll() {
  requireSupportedNode("mcp-conformance-client", "scripts/mcp-conformance-client.mjs");
  if (!existsSync(join(repo, "dist", "src", "mcp", "client", "mcp-servers.js"))) fail("build first: npm run build");
  const entry = conformanceEntry("mcp-conformance-client");
  const base = mkdtempSync(join(tmpdir(), "sylk-mcp-conformance-client-"));
  try {
    const outputDir = join(base, "results");
    const command = [process.execPath, script, "--client"].map(shellWord).join(" ");
    const listed = await runSuite(entry, ["list", "--client"]);
    const scenarios = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
    if (scenarios.length === 0) fail(`the suite listed no client scenarios: ${listed.stderr}`);
    const started = performance.now();
    // One scenario at a time, as a session starts its few servers: the suite's own `--suite all` starts every
    // scenario's client at once, and 26 Node processes loading the SDK together on a small machine exceed
    // Sylk's start-up timeout, which would measure the machine, not the client.
    const runs = new Map();
    for (const scenario of scenarios)
      runs.set(scenario, await runSuite(entry, ["client", "--command", command, "--scenario", scenario, "-o", outputDir]));
    const seconds = (performance.now() - started) / 1000;
    const results = existsSync(outputDir) ? readResults(outputDir) : [];
    const rows = scenarios.map((scenario) => {
      const result = results.find((candidate) => candidate.scenario === scenario);
      if (result) return classify(result);
      const run = runs.get(scenario);
      return {
        scenario,
        result: "FAIL",
        passed: 0,
        failed: 0,
        note: `the suite wrote no results (exit ${run.code}): ${run.stderr.trim().slice(-300)}`,
      };
    });
    if (args.includes("--json")) {
      process.stdout.write(`${JSON.stringify({ version: CONFORMANCE_VERSION, seconds, rows }, null, 2)}\n`);
    } else {
      printTable(
        `@modelcontextprotocol/conformance ${CONFORMANCE_VERSION}, every client scenario, one at a time, against Sylk's MCP client`,
        rows,
        seconds,
      );
    }
    if (rows.some((row) => row.result === "FAIL")) process.exitCode = 1;
    if (args.includes("--keep")) process.stderr.write(`results kept in ${outputDir}\n`);
  } finally {
    if (!args.includes("--keep")) rmSync(base, { recursive: true, force: true });
  }
}

if (args[0] === "--client") {
  const url = args.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (!url || url === "--client" || !scenario) fail("--client is run by the suite, with the server's URL and MCP_CONFORMANCE_SCENARIO");
  await runClient(url, scenario);
} else {
  await runAll();
}
