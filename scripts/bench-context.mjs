#!/usr/bin/env node
// Context virtualization costs, in process with the real store: a session grows
// turn by turn (a tool call with a ~500-token result each), and before every
// model call the VirtualContextManager prepares the window, evicting to
// references when needed. Reports tokens evicted per marker token, eviction
// latency as the evicted history reaches 1M tokens, and the assembly overhead
// per turn.
//
//   npm run build && node scripts/bench-context.mjs [--turns 2000] [--window 200000]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { turns: { type: "string", default: "2000" }, window: { type: "string", default: "200000" } } });
const TURNS = Number(values.turns);
const WINDOW = Number(values.window);
const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { SessionRecorder } = await import(join(repo, "dist/src/agent/session-recorder.js"));
const { createContextManager } = await import(join(repo, "dist/src/context/create-context-manager.js"));
const { renderReference } = await import(join(repo, "dist/src/context/context-reference.js"));
const { CalibratedTokenCounter } = await import(join(repo, "dist/src/llm/token-counter.js"));
const { defaultConfig } = await import(join(repo, "dist/src/config/schema.js"));
const { estimateTokens } = await import(join(repo, "dist/src/tokens/estimate-tokens.js"));

const base = mkdtempSync(join(tmpdir(), "sylk-bench-context-"));
const root = join(base, "project");
mkdirSync(root, { recursive: true });
const services = openProject({ root, env: { ...process.env, SYLK_HOME: join(base, "home"), HOME: base } });
const recorder = SessionRecorder.start(
  { sessions: services.sessions, contentStore: services.contentStore, identity: { agentId: "engineer-1", agentType: "engineer" } },
  { title: "bench", provider: "bench", model: "bench" },
);
const tokenCounter = new CalibratedTokenCounter();
const manager = createContextManager({
  config: defaultConfig().context,
  contentStore: services.contentStore,
  tokenCounter,
  windowTokens: WINDOW,
  agentType: "librarian",
});
const FIXED = 6_000; // system prompt + tool definitions + output reserve, roughly

const words = ["parser", "token", "lexer", "diagnostic", "syntax", "format", "rule", "node", "range", "emit", "cache", "index"];
function toolOutput(turn) {
  const lines = [];
  for (let line = 0; line < 40; line++)
    lines.push(
      `${String(line + 1).padStart(6)}\t${words[(turn + line) % words.length]}_${turn}_${line} = compute(${words[(turn * 7 + line) % words.length]}, ${turn * 131 + line});`,
    );
  return lines.join("\n");
}

const assembly = [];
const evictionLatencies = [];
let evictedTokens = 0;
let markerTokens = 0;
let references = 0;
let parent = await recorder.recordPrompt("Walk through every module and report.", recorder.nextTurn());
for (let turn = 1; turn <= TURNS; turn++) {
  const current = recorder.nextTurn();
  const call = { type: "tool_use", id: `c${turn}`, name: "read_file", input: { path: `src/module${turn % 400}.rs` } };
  const recorded = await recorder.recordResponse(
    current,
    {
      content: [{ type: "text", text: `Reading module ${turn % 400}.` }, call],
      stopReason: "tool_use",
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: "bench",
    },
    parent,
  );
  const output = toolOutput(turn);
  parent = await recorder.recordToolResult(current, call, { output, permission: "allowed" }, recorded.callIds.get(call.id));
  await recorder.appendToolResults(current, [{ call, result: { output }, entryId: parent }]);
  const started = performance.now();
  const prepared = await manager.prepare(recorder, FIXED);
  const elapsed = performance.now() - started;
  assembly.push(elapsed);
  if (prepared.usedTokens > WINDOW) throw new Error(`turn ${turn}: ${prepared.usedTokens} tokens > window ${WINDOW}`);
  if (prepared.evictions.length > 0) {
    evictionLatencies.push({ ms: elapsed, evictedSoFar: evictedTokens });
    references += prepared.evictions.length;
    // What the window holds now: the live markers and the tokens they stand for.
    const live = prepared.context.references;
    evictedTokens = live.reduce((sum, reference) => sum + reference.tokensSaved, 0);
    markerTokens = live.reduce((sum, reference) => sum + estimateTokens(renderReference(reference)), 0);
  }
}

const percentile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const lateEvictions = evictionLatencies.filter((sample) => sample.evictedSoFar >= 1_000_000).map((sample) => sample.ms);
const results = {
  turns: TURNS,
  windowTokens: WINDOW,
  references,
  evictedTokens,
  markerTokens,
  evictedPerMarkerToken: markerTokens > 0 ? evictedTokens / markerTokens : 0,
  evictionLatencyP50Ms: percentile(
    evictionLatencies.map((sample) => sample.ms),
    0.5,
  ),
  evictionLatencyP95Ms: percentile(
    evictionLatencies.map((sample) => sample.ms),
    0.95,
  ),
  evictionLatencyAtMillionP95Ms: lateEvictions.length ? percentile(lateEvictions, 0.95) : null,
  assemblyP50Ms: percentile(assembly, 0.5),
  assemblyP95Ms: percentile(assembly, 0.95),
};
const f = (x) => (x === null ? "n/a" : x.toFixed(1));
console.log(`\nContext virtualization: ${TURNS} turns of ~500-token tool results, ${WINDOW.toLocaleString("en-US")}-token window\n`);
console.log("| measure | result | target |");
console.log("| --- | --- | --- |");
console.log(
  `| tokens evicted per marker token | ${f(results.evictedPerMarkerToken)}× (${evictedTokens.toLocaleString("en-US")} evicted tokens behind the markers in the window, ${markerTokens.toLocaleString("en-US")} marker tokens; ${references} references made) | ≥ 50× |`,
);
console.log(
  `| eviction latency | p50 ${f(results.evictionLatencyP50Ms)} ms, p95 ${f(results.evictionLatencyP95Ms)} ms; ${lateEvictions.length ? `max ${f(Math.max(...lateEvictions))} ms over the ${lateEvictions.length} evictions made once ≥ 1,000,000 tokens were evicted` : "fewer than 1,000,000 tokens evicted: run more turns"} | < 20 ms at 1M evicted tokens |`,
);
console.log(`| assembly overhead per turn | p50 ${f(results.assemblyP50Ms)} ms, p95 ${f(results.assemblyP95Ms)} ms | p95 < 50 ms |`);
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench/context.json"), JSON.stringify(results, null, 2));
await services.close();
rmSync(base, { recursive: true, force: true });
