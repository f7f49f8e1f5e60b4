#!/usr/bin/env node
// What `sylk mcp serve` costs a client: the time from spawning it to its
// answer to `initialize`, and a tool call over stdio beside the same call
// made in-process on the same registry (the protocol's and the process
// boundary's share of a call).
//
//   npm run build && node scripts/bench-mcp-serve.mjs --tree <dir> [--rounds 40] [--home <SYLK_HOME with the tree indexed>]
//
// Without --home a temporary SYLK_HOME is indexed first. The queries are
// identifiers and phrases; each round calls search_codebase and
// get_symbol_context once each, over stdio and in-process alternately, after
// both have settled (their start-up index passes done, a first call made).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    rounds: { type: "string", default: "40" },
    home: { type: "string" },
    starts: { type: "string", default: "5" },
  },
});
if (!values.tree || !existsSync(values.tree)) {
  console.error("Usage: node scripts/bench-mcp-serve.mjs --tree <dir> [--rounds 40] [--starts 5] [--home <SYLK_HOME>]");
  process.exit(2);
}
const tree = resolve(values.tree);
const home = values.home ? resolve(values.home) : mkdtempSync(join(tmpdir(), "sylk-bench-mcp-"));
const env = { ...process.env, SYLK_HOME: home };
delete env.CI;
if (
  spawnSync(process.execPath, [join(repo, "bin/sylk.js"), "index", "--yes", tree], { env, stdio: ["ignore", "ignore", "inherit"] })
    .status !== 0
) {
  process.exit(1);
}

/** A `sylk mcp serve` over pipes, speaking JSON-RPC by hand (no client library between the timer and the process). */
function serve() {
  const child = spawn(process.execPath, [join(repo, "bin/sylk.js"), "mcp", "serve"], { cwd: tree, env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let nextId = 1;
  const send = (method, params) =>
    new Promise((resolvePromise) => {
      const id = nextId++;
      waiting.set(id, resolvePromise);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  const notify = (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  const stop = () =>
    new Promise((resolvePromise) => {
      child.once("exit", resolvePromise);
      child.stdin.end();
    });
  return { send, notify, stop };
}

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } };

function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const format = (ms) => `${ms.toFixed(1)} ms`;

// Start: spawn → initialize answered, and the first tools/list.
const starts = [];
const lists = [];
for (let round = 0; round < Number(values.starts); round++) {
  const began = performance.now();
  const server = serve();
  await server.send("initialize", INITIALIZE);
  starts.push(performance.now() - began);
  server.notify("notifications/initialized");
  const listed = performance.now();
  await server.send("tools/list", {});
  lists.push(performance.now() - listed);
  await server.stop();
}

// Calls: the same tool calls over stdio and in-process, alternately.
const { openServedProject } = await import(join(repo, "dist/src/mcp/server/served-project.js"));
const project = await openServedProject({ root: tree, env, yes: true, onNotice: () => undefined });
const server = serve();
await server.send("initialize", INITIALIZE);
server.notify("notifications/initialized");
const calls = [
  ["search_codebase", { query: "permission policy decides a tool call" }],
  ["search_codebase", { query: "HybridCodeSearcher" }],
  ["get_symbol_context", { symbol: "openProject" }],
  ["get_symbol_context", { symbol: "ToolRegistry" }],
];
const context = { root: project.services.paths.root, signal: new AbortController().signal, extraDirectories: [] };
// Both sides settle first: the start-up freshness pass and the watcher's, and each index loaded by a first call.
await new Promise((resolvePromise) => setTimeout(resolvePromise, 5_000));
for (const [name, args] of calls) {
  await server.send("tools/call", { name, arguments: args });
  await project.registry.run({ id: "warm-up", name, input: args }, context);
}
const overStdio = new Map(calls.map(([name]) => [name, []]));
const inProcess = new Map(calls.map(([name]) => [name, []]));
const pings = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const pinged = performance.now();
  await server.send("ping", {});
  pings.push(performance.now() - pinged);
  for (const [name, args] of calls) {
    let began = performance.now();
    const answer = await server.send("tools/call", { name, arguments: args });
    overStdio.get(name).push(performance.now() - began);
    if (answer.error || answer.result.isError) throw new Error(`${name} failed: ${JSON.stringify(answer)}`);
    began = performance.now();
    await project.registry.run({ id: String(round), name, input: args }, context);
    inProcess.get(name).push(performance.now() - began);
  }
}
await server.stop();
await project.close();
if (!values.home) rmSync(home, { recursive: true, force: true });

console.log(`sylk mcp serve on ${tree} (Node ${process.versions.node})\n`);
console.log(`| measure | p50 | p95 |\n| --- | --- | --- |`);
console.log(
  `| spawn → initialize answered (${starts.length} starts) | ${format(percentile(starts, 50))} | ${format(percentile(starts, 95))} |`,
);
console.log(`| tools/list | ${format(percentile(lists, 50))} | ${format(percentile(lists, 95))} |`);
console.log(
  `| ping over stdio: the round trip alone (${pings.length}) | ${format(percentile(pings, 50))} | ${format(percentile(pings, 95))} |`,
);
for (const name of overStdio.keys()) {
  const stdio = overStdio.get(name);
  const direct = inProcess.get(name);
  console.log(`| ${name} over stdio (${stdio.length} calls) | ${format(percentile(stdio, 50))} | ${format(percentile(stdio, 95))} |`);
  console.log(`| ${name} in-process, same registry | ${format(percentile(direct, 50))} | ${format(percentile(direct, 95))} |`);
  console.log(`| ${name}: the protocol's share (p50 difference) | ${format(percentile(stdio, 50) - percentile(direct, 50))} | |`);
}
