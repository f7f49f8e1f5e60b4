#!/usr/bin/env node
// The MCP client's costs, against the reference server @modelcontextprotocol/server-everything
// (a devDependency, run from node_modules, so nothing is fetched):
//   1. tool-call overhead: the same `echo` call made directly with the SDK's client and through
//      Sylk's path (ToolRegistry → permission policy → McpServers → ProcessGroupTransport → the
//      result made into the model's text), alternated call by call, p50 of each in one run;
//   2. launch → interactive prompt of the real `sylk` in a pseudo-terminal (util-linux `script`) with
//      no server configured, three stdio servers, and three slow ones (each answers 4 s after it
//      starts): the servers start in the background, so the prompt must not wait for them;
//   3. how long three servers take to be ready (connected, tools listed), in parallel, in-process.
//
//   npm run build && node scripts/bench-mcp.mjs [--calls 300] [--launches 5]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { launchInTerminal, quit, requireScriptCommand, waitForText } from "./lib/pseudo-terminal.mjs";

const { values } = parseArgs({ options: { calls: { type: "string", default: "300" }, launches: { type: "string", default: "5" } } });
const REPO = fileURLToPath(new URL("..", import.meta.url));
const SYLK = join(REPO, "bin/sylk.js");
const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const dist = (path) => import(pathToFileURL(join(REPO, "dist/src", path)).href);
const PROMPT_READY = "Ask anything";
const SETTINGS = { startupTimeoutMs: 30_000, toolTimeoutMs: 60_000, maxOutputTokens: 8_000 };

const everything = { command: process.execPath, args: [EVERYTHING, "stdio"] };
/** A server that takes 4 s before it answers anything (a slow `npx` download, a cold JVM). */
const slow = { command: "sh", args: ["-c", `sleep 4; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`] };

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1)) };
}
const round = (value) => Math.round(value * 100) / 100;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function toolCallOverhead(calls) {
  const [{ McpServers }, { mcpTools }, { ToolRegistry }, { PermissionPolicy }, { CommandProcesses }] = await Promise.all([
    dist("mcp/client/mcp-servers.js"),
    dist("mcp/session/mcp-tools.js"),
    dist("agent/tools/tool-registry.js"),
    dist("agent/permissions/permission-policy.js"),
    dist("agent/tools/command-processes.js"),
  ]);
  const direct = new Client({ name: "bench", version: "1" });
  await direct.connect(new StdioClientTransport({ ...everything, stderr: "ignore" }));
  const servers = new McpServers({ everything }, { env: process.env, root: REPO, settings: SETTINGS, processes: new CommandProcesses() });
  await servers.settled();
  const sink = { store: () => Promise.reject(new Error("not reached")), marker: () => "" };
  // An allow rule covers the call, as a user's would: the policy's check is part of the path measured.
  const policy = new PermissionPolicy("default", { allow: ["mcp__everything__echo"], deny: [] });
  const registry = new ToolRegistry([], policy, undefined, { dynamicTools: () => mcpTools(servers, sink) });
  const context = { root: REPO, extraDirectories: [], signal: new AbortController().signal };
  const message = "the quick brown fox jumps over the lazy dog";
  const viaSdk = async () => {
    const result = await direct.callTool({ name: "echo", arguments: { message } });
    if (result.content[0]?.text !== `Echo: ${message}`) throw new Error("the direct call answered something else");
  };
  const viaSylk = async (index) => {
    const result = await registry.run({ id: `call_${index}`, name: "mcp__everything__echo", input: { message } }, context);
    if (result.output !== `Echo: ${message}`) throw new Error(`Sylk's call answered ${result.output}`);
  };
  for (let index = 0; index < 30; index++) {
    await viaSdk();
    await viaSylk(index);
  }
  const sdkTimes = [];
  const sylkTimes = [];
  for (let index = 0; index < calls; index++) {
    // Alternated, so that both see the same machine load.
    let start = performance.now();
    await viaSdk();
    sdkTimes.push(performance.now() - start);
    start = performance.now();
    await viaSylk(index);
    sylkTimes.push(performance.now() - start);
  }
  await direct.close();
  await servers.close();
  return { sdk: summary(sdkTimes), sylk: summary(sylkTimes) };
}

async function serversReady() {
  const [{ McpServers }, { CommandProcesses }] = await Promise.all([
    dist("mcp/client/mcp-servers.js"),
    dist("agent/tools/command-processes.js"),
  ]);
  const samples = [];
  for (let run = 0; run < 5; run++) {
    const servers = new McpServers(
      { a: everything, b: everything, c: everything },
      { env: process.env, root: REPO, settings: SETTINGS, processes: new CommandProcesses() },
    );
    const start = performance.now();
    await servers.settled();
    samples.push(performance.now() - start);
    if (servers.statuses().some((status) => status.state !== "connected")) throw new Error("a server did not connect");
    await servers.close();
  }
  return summary(samples);
}

async function launches(count) {
  requireScriptCommand("bench-mcp");
  const base = mkdtempSync(join(tmpdir(), "sylk-bench-mcp-"));
  const project = join(base, "project");
  const results = {};
  const samples = {};
  try {
    spawnSync("mkdir", ["-p", project]);
    writeFileSync(join(project, "README.md"), "# A project\n");
    writeFileSync(join(project, "main.js"), "export function greet(name) {\n  return `hello ${name}`;\n}\n");
    const env = { ...process.env, HOME: base, SYLK_HOME: join(base, "sylk-home"), ANTHROPIC_API_KEY: "" };
    delete env.CI; // Ink draws only the last frame under CI.
    const indexed = spawnSync(process.execPath, [SYLK, "index", "--yes"], { cwd: project, env, stdio: ["ignore", "ignore", "inherit"] });
    if (indexed.status !== 0) throw new Error(`sylk index failed (${indexed.status})`);
    const configs = {
      "no server": {},
      "three stdio servers": { a: everything, b: everything, c: everything },
      "three slow servers (4 s each)": { a: slow, b: slow, c: slow },
    };
    // Interleaved launch by launch, so that the three see the same machine load.
    for (let run = 0; run < count; run++) {
      for (const [label, mcpServers] of Object.entries(configs)) {
        writeFileSync(join(base, ".sylkrc"), JSON.stringify({ mcpServers }));
        const session = launchInTerminal(SYLK, project, env);
        const prompt = await waitForText(session, PROMPT_READY);
        samples[label] = [...(samples[label] ?? []), prompt - session.started];
        await sleep(300);
        await quit(session);
      }
    }
    for (const [label, times] of Object.entries(samples)) results[label] = summary(times);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return results;
}

async function main() {
  const calls = Number(values.calls);
  console.log(`1. echo through server-everything, ${calls} calls each, alternated:`);
  const overhead = await toolCallOverhead(calls);
  console.log(`   the SDK's client directly: p50 ${overhead.sdk.p50} ms, p95 ${overhead.sdk.p95} ms`);
  console.log(`   through Sylk's tool path:  p50 ${overhead.sylk.p50} ms, p95 ${overhead.sylk.p95} ms`);
  console.log(`   overhead at p50: ${round(overhead.sylk.p50 - overhead.sdk.p50)} ms per call`);
  console.log("2. launch → interactive prompt (sylk in a 120×40 pseudo-terminal, index fresh):");
  for (const [label, result] of Object.entries(await launches(Number(values.launches)))) {
    console.log(`   ${label.padEnd(30)} p50 ${result.p50} ms, max ${result.max} ms (${result.n} launches)`);
  }
  const ready = await serversReady();
  console.log(
    `3. three stdio servers connected with their tools listed, in parallel: p50 ${ready.p50} ms, max ${ready.max} ms (${ready.n} runs)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
