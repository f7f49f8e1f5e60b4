#!/usr/bin/env node
// Agent roles and sub-agents: what handing work to a sub-agent saves the caller's
// window, and what running two sub-agents at once saves in wall time. The real product (dist/)
// runs against a loopback Messages API (scripts/lib/fake-messages-server.mjs) whose answers
// are chosen from each request: the system prompt says which agent asks (`## Your role:
// librarian`), and the conversation so far says how far it got.
//
//   npm run build && node scripts/bench-agents.mjs [--via delegate|consult_librarian] [--runs 10] [--seed 1] [--json <file>]
//                                                  [--latency-ms 300] [--pipeline-runs 20] [--only context|parallel|pipeline]
//
// 1. Context ratio. A generated repository of 40 files (seeded) with one fact, a constant, in a
//    nested file. The scripted explorer reads 12 of the files with read_file, one per model
//    call, the fact's file among them, and then answers citing that file.
//    Run A: the engineer explores itself. Run B: the engineer hands the exploration to the
//    librarian once (--via: `delegate({agent: "librarian", task, max_tokens})`, or
//    `consult_librarian({query, max_tokens})`, where the librarian ends with `share_context`),
//    and the librarian does the same 12 reads and answers: in prose (the claim and the two-line
//    excerpt it cites, fenced), or through `share_context` with that excerpt as its one source
//    when its request offers the tool. Metric: what the exploration added to the
//    engineer's window (the `context_window` event's `usedTokens` at its final request minus at
//    its first), A / B; the totals (final request) are reported too. With --via
//    consult_librarian and no such tool in the engineer's request, the script fails.
// 2. Parallel speed-up. Every model call answers after 300 ms (server-side). The engineer
//    issues two `delegate` calls in one response; each librarian makes 3 model calls (two
//    read_file calls, then its answer). Measured: from the first delegate `tool_use` event to
//    the last of the two `tool_result` events, agents.maxParallel = 1 over = 2, the median of
//    --runs each, the two settings interleaved (their order alternating), after one discarded
//    warm-up run of each.
// 3. Pipeline overhead. Zero model latency; one project (opened and indexed once), each run a
//    new root session's `runPipeline`, the team scripted to the minimum of model calls: plan
//    (orchestrator), design (architect), review (inspector) and test (tester) call their tool
//    (submit_plan, submit_design, report_issues with no issues, report_test_results) and end with
//    a text turn; implement (engineer) and summary (orchestrator) are one text turn; no fix round.
//    Per stage: its wall time (`pipeline_stage` start to end event, as the consumer sees them)
//    minus the summed durations of its model calls as the API sees them: the fake server's
//    `timings` (body read to `response.end()`), i.e. the provider's own share, which a real
//    model replaces; the client's side of each call (building the request, the SDK's HTTP and
//    SSE parsing, recording) is Sylk's and stays in the figure. Median of --pipeline-runs (20)
//    after one discarded run; the per-stage medians, the median over all stage runs, and the
//    time before each start event (the runner opens a stage agent's session, with its registry
//    and prompt, before it says the stage started), reported beside it.
//
// --only context|parallel|pipeline runs one of the three (dev runs).
//
// Prefetch and self-tuning retrieval are off (SYLK_CONTEXT_PREFETCH=false,
// SYLK_LEARNING_ENABLED=false), so nothing but the scripted calls enters a window.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeMessagesServer } from "./lib/fake-messages-server.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    via: { type: "string" },
    runs: { type: "string", default: "10" },
    seed: { type: "string", default: "1" },
    json: { type: "string" },
    "latency-ms": { type: "string", default: "300" },
    "pipeline-runs": { type: "string", default: "20" },
    only: { type: "string" },
  },
});
const VIAS = ["consult_librarian", "delegate"];
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
const LATENCY_MS = Number(values["latency-ms"]);
const PIPELINE_RUNS = Number(values["pipeline-runs"]);
const METRICS = ["context", "parallel", "pipeline"];
const ONLY = values.only;
if (
  !Number.isInteger(RUNS) ||
  RUNS < 1 ||
  !Number.isInteger(PIPELINE_RUNS) ||
  PIPELINE_RUNS < 1 ||
  !Number.isFinite(SEED) ||
  !(LATENCY_MS >= 0) ||
  (values.via !== undefined && !VIAS.includes(values.via)) ||
  (ONLY !== undefined && !METRICS.includes(ONLY))
) {
  console.error(
    "Usage: node scripts/bench-agents.mjs [--via consult_librarian|delegate] [--runs 10] [--seed 1] [--json <file>] [--latency-ms 300] [--pipeline-runs 20] [--only context|parallel|pipeline]",
  );
  process.exit(2);
}

const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { openAgentSession } = await import(join(repo, "dist/src/app/session/open-agent-session.js"));
const { SESSION_TOOL_NAMES } = await import(join(repo, "dist/src/roles/tool-names.js"));

// The default is consult_librarian once the product offers it; until then delegate, and the table says which ran.
const consultBuilt = SESSION_TOOL_NAMES.includes("consult_librarian");
const VIA = values.via ?? (consultBuilt ? "consult_librarian" : "delegate");

const FILES = 40;
const READS = 12;
const LIBRARIAN = "## Your role: librarian";

class BenchFailure extends Error {}

// ---------------------------------------------------------------- the generated repository

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "invoice",
  "ledger",
  "account",
  "payment",
  "refund",
  "customer",
  "session",
  "token",
  "report",
  "export",
  "schedule",
  "audit",
  "quota",
  "tenant",
  "webhook",
  "currency",
];
const DIRS = ["src/api", "src/api/handlers", "src/billing", "src/billing/internal", "src/core", "src/core/util", "src/reports", "src/auth"];
const FACT_PATH = "src/billing/internal/retry/limits.ts";
const FACT_NAME = "MAX_INVOICE_RETRIES";

/** A module of ~45 lines (about 2.5 kB) of plausible, seeded TypeScript. */
function moduleText(random, index) {
  const pick = () => WORDS[Math.floor(random() * WORDS.length)];
  const lines = [`// Module ${index}: ${pick()} and ${pick()} handling.`, `import { assert } from "../util/assert.js";`, ""];
  for (let fn = 0; fn < 5; fn++) {
    const name = `${pick()}${pick()[0].toUpperCase()}${pick().slice(1)}${index}_${fn}`;
    lines.push(`export function ${name}(input: { id: string; amount: number }): number {`);
    lines.push(`  assert(input.id.length > 0, "${name}: empty id");`);
    lines.push(`  const scaled = input.amount * ${Math.floor(random() * 900) + 100} / ${Math.floor(random() * 90) + 10};`);
    lines.push(`  if (scaled > ${Math.floor(random() * 100_000)}) return Math.floor(scaled / ${Math.floor(random() * 9) + 2});`);
    lines.push(`  return Math.round(scaled) % ${Math.floor(random() * 1000) + 7};`);
    lines.push("}", "");
  }
  return `${lines.join("\n")}\n`;
}

/** 40 files, one of them (nested) holding the fact; the 12 the explorer reads, the fact's file among them; the answer. */
function generateRepository(root, seed) {
  const random = mulberry32(seed);
  const factValue = Math.floor(random() * 90) + 10;
  const files = new Map();
  for (let index = 0; files.size < FILES - 1; index++)
    files.set(`${DIRS[index % DIRS.length]}/${WORDS[index % WORDS.length]}-${index}.ts`, moduleText(random, index));
  const factLines = moduleText(random, 99).split("\n");
  const factLine = 20;
  factLines.splice(
    factLine - 1,
    0,
    `/** How often a failed invoice charge is retried before the invoice is marked uncollectable. */`,
    `export const ${FACT_NAME} = ${factValue};`,
  );
  files.set(FACT_PATH, factLines.join("\n"));
  for (const [path, text] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  // Seeded choice of 11 other files, the fact's file at a seeded place among the 12.
  const others = [...files.keys()].filter((path) => path !== FACT_PATH);
  for (let index = others.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [others[index], others[other]] = [others[other], others[index]];
  }
  const reads = others.slice(0, READS - 1);
  reads.splice(Math.floor(random() * READS), 0, FACT_PATH);
  const start = factLine;
  const end = factLine + 1;
  const answer = `${FACT_NAME} is ${factValue}: ${FACT_PATH}:${start}-${end} (the only definition among the files read).`;
  // What a librarian answering in prose returns: the claim and the excerpt it cites (share_context's excerpt comes from its sources).
  const excerpt = factLines.slice(start - 1, end).join("\n");
  const cited = `${answer}\n\n\`\`\`ts\n// ${FACT_PATH}:${start}-${end}\n${excerpt}\n\`\`\``;
  return { reads, answer, cited, source: { path: FACT_PATH, start_line: start, end_line: end } };
}

// ---------------------------------------------------------------- requests, read

const systemOf = (body) => (Array.isArray(body.system) ? body.system.map((block) => block.text).join("\n") : String(body.system ?? ""));
const toolNamesOf = (body) => (body.tools ?? []).map((tool) => tool.name);
const assistantBlocks = (body) =>
  body.messages.filter((message) => message.role === "assistant" && Array.isArray(message.content)).flatMap((message) => message.content);
const callsOf = (body, name) => assistantBlocks(body).filter((block) => block.type === "tool_use" && block.name === name).length;
const text = (value) => ({ type: "text", text: value });
const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });

// ---------------------------------------------------------------- one agent run

function benchEnv(base, server, extra = {}) {
  return {
    ...process.env,
    HOME: base,
    SYLK_HOME: join(base, "home"),
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_CONTEXT_PREFETCH: "false",
    SYLK_LEARNING_ENABLED: "false",
    ...extra,
  };
}

/** Runs one prompt to its end; `onEvent(event, now)` sees every event as it arrives. */
async function runPrompt(services, env, prompt, onEvent) {
  const session = openAgentSession({ services, env });
  try {
    const run = session.run(prompt, new AbortController().signal);
    let step = await run.next();
    for (; !step.done; step = await run.next()) onEvent(step.value, performance.now());
    return step.value;
  } finally {
    session.close();
  }
}

// ---------------------------------------------------------------- 1. context ratio

const EXPLORE_PROMPT = `How many times is a failed invoice charge retried? Find the constant that says so.`;

/** One run of the context measurement: "self" (A) or through the librarian (B). */
async function contextRun(mode, seed, via) {
  const base = mkdtempSync(join(tmpdir(), "sylk-bench-agents-"));
  const root = join(base, "project");
  const { reads, answer, cited, source } = generateRepository(root, seed);
  let failure;
  const explorerStep = (body, prefix) => {
    const done = callsOf(body, "read_file");
    if (done < READS) return { blocks: [toolUse(`toolu_${prefix}_read_${done}`, "read_file", { path: reads[done] })] };
    return undefined;
  };
  const server = await startFakeMessagesServer({
    plan: (body) => {
      if (systemOf(body).includes(LIBRARIAN)) {
        const read = explorerStep(body, "lib");
        if (read) return read;
        if (toolNamesOf(body).includes("share_context") && callsOf(body, "share_context") === 0) {
          return { blocks: [toolUse("toolu_lib_share", "share_context", { answer, sources: [source], confidence: 0.9, completeness: 1 })] };
        }
        return { blocks: [text(callsOf(body, "share_context") > 0 ? answer : cited)] };
      }
      // The engineer.
      if (mode === "self") return explorerStep(body, "eng") ?? { blocks: [text(answer)] };
      if (assistantBlocks(body).length === 0) {
        if (!toolNamesOf(body).includes(via)) {
          failure = `--via ${via}: the engineer's request offers no ${via} tool (it offers: ${toolNamesOf(body).join(", ")}). Build the product with that tool, or run with --via delegate.`;
          return { blocks: [text("stopped: the tool under test is missing")] };
        }
        const task = "Find the constant that sets how many times a failed invoice charge is retried, and cite where it is defined.";
        const input = via === "delegate" ? { agent: "librarian", task, max_tokens: 2000 } : { query: task, max_tokens: 2000 };
        return { blocks: [toolUse("toolu_eng_handoff", via, input)] };
      }
      return { blocks: [text(answer)] };
    },
  });
  const env = benchEnv(base, server);
  const services = openProject({ root, env });
  const windows = [];
  let childLast;
  let childRequests = 0;
  let readsDone = 0;
  let handedBack = "";
  const readOk = (event) => event.type === "tool_result" && event.name === "read_file" && !event.isError;
  try {
    const result = await runPrompt(services, env, EXPLORE_PROMPT, (event) => {
      if (event.type === "context_window") windows.push(event.usedTokens);
      if (readOk(event) || (event.type === "subagent_event" && readOk(event.event))) readsDone++;
      if (event.type === "tool_result" && event.id === "toolu_eng_handoff") handedBack = event.output;
      if (event.type === "subagent_event" && event.event.type === "context_window") {
        childRequests++;
        childLast = event.event.usedTokens;
      }
    });
    if (failure) throw new BenchFailure(failure);
    if (readsDone !== READS) throw new BenchFailure(`run ${mode}: ${readsDone} successful read_file calls, not ${READS}`);
    if (mode !== "self" && !handedBack.includes(`${FACT_PATH}:${source.start_line}-${source.end_line}`))
      throw new BenchFailure(`run B: the ${via} result does not carry the librarian's citation: ${handedBack.slice(0, 300)}`);
    if (result.stopReason !== "end_turn" || !result.response.includes(answer))
      throw new BenchFailure(
        `run ${mode}: the engineer did not end with the scripted answer (stop: ${result.stopReason}): ${result.response.slice(0, 300)}`,
      );
    const refused = server.requests.filter((request) => request.invalid);
    if (refused.length > 0) throw new BenchFailure(`run ${mode}: the fake API refused a request: ${refused[0].invalid}`);
    return {
      first: windows[0],
      final: windows.at(-1),
      added: windows.at(-1) - windows[0],
      parentRequests: windows.length,
      childRequests,
      childFinal: childLast ?? null,
    };
  } finally {
    await services.close();
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

async function contextRatio(seed, via) {
  const self = await contextRun("self", seed, via);
  const handed = await contextRun("librarian", seed, via);
  return {
    via,
    seed,
    files: FILES,
    reads: READS,
    self,
    handed,
    addedRatio: self.added / handed.added,
    totalRatio: self.final / handed.final,
  };
}

// ---------------------------------------------------------------- 2. parallel speed-up

/** A project whose services read agents.maxParallel = `maxParallel`; runs are timed on it. */
async function parallelProject(maxParallel, latencyMs) {
  const base = mkdtempSync(join(tmpdir(), `sylk-bench-agents-p${maxParallel}-`));
  const root = join(base, "project");
  const random = mulberry32(SEED + maxParallel);
  for (let index = 0; index < 4; index++) {
    mkdirSync(join(root, "src"), { recursive: true });
    writeFileSync(join(root, "src", `part-${index}.ts`), moduleText(random, index));
  }
  // Call ids unique across the runs on this project (the store keeps every run's calls).
  let calls = 0;
  const server = await startFakeMessagesServer({
    plan: (body) => {
      const delayMs = latencyMs;
      if (!systemOf(body).includes(LIBRARIAN)) {
        if (assistantBlocks(body).length > 0) return { delayMs, blocks: [text("Both answered.")] };
        return {
          delayMs,
          blocks: [
            toolUse(`toolu_alpha_${++calls}`, "delegate", {
              agent: "librarian",
              task: "Task alpha: summarise src/part-0.ts and src/part-1.ts.",
              max_tokens: 1000,
            }),
            toolUse(`toolu_beta_${++calls}`, "delegate", {
              agent: "librarian",
              task: "Task beta: summarise src/part-2.ts and src/part-3.ts.",
              max_tokens: 1000,
            }),
          ],
        };
      }
      const task = /Task (alpha|beta)/.exec(JSON.stringify(body.messages))?.[1] ?? "unknown";
      const done = callsOf(body, "read_file");
      const offset = task === "alpha" ? 0 : 2;
      if (done < 2)
        return { delayMs, blocks: [toolUse(`toolu_${task}_read_${++calls}`, "read_file", { path: `src/part-${offset + done}.ts` })] };
      return {
        delayMs,
        blocks: [
          text(`Task ${task}: both files define five arithmetic helpers (src/part-${offset}.ts:1-40, src/part-${offset + 1}.ts:1-40).`),
        ],
      };
    },
  });
  const env = benchEnv(base, server, { SYLK_AGENTS_MAX_PARALLEL: String(maxParallel) });
  const services = openProject({ root, env });
  return {
    maxParallel,
    async run() {
      let started;
      let ended;
      const ids = new Set();
      let results = 0;
      const result = await runPrompt(services, env, "Summarise the four parts, two librarians at once.", (event, now) => {
        if (event.type === "tool_use" && event.name === "delegate") {
          ids.add(event.id);
          started ??= now;
        }
        if (event.type === "tool_result" && ids.has(event.id)) {
          results++;
          ended = now;
        }
      });
      if (result.stopReason !== "end_turn" || results !== 2 || started === undefined)
        throw new BenchFailure(`parallel run (maxParallel ${maxParallel}): stop ${result.stopReason}, ${results} delegate results`);
      const refused = server.requests.filter((request) => request.invalid);
      if (refused.length > 0) throw new BenchFailure(`parallel run: the fake API refused a request: ${refused[0].invalid}`);
      return ended - started;
    },
    async close() {
      await services.close();
      await server.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function parallelSpeedup(runs, latencyMs) {
  const serial = await parallelProject(1, latencyMs);
  const parallel = await parallelProject(2, latencyMs);
  try {
    // Warm-up, discarded: the first run of a process compiles everything.
    await serial.run();
    await parallel.run();
    const times = { 1: [], 2: [] };
    for (let index = 0; index < runs; index++) {
      const order = index % 2 === 0 ? [serial, parallel] : [parallel, serial];
      for (const project of order) times[project.maxParallel].push(await project.run());
    }
    const serialMedian = median(times[1]);
    const parallelMedian = median(times[2]);
    return {
      latencyMs,
      runs,
      modelCalls: { parent: 2, perChild: 3 },
      serialMs: times[1],
      parallelMs: times[2],
      serialMedian,
      parallelMedian,
      speedup: serialMedian / parallelMedian,
      ideal: { serialMs: 6 * latencyMs, parallelMs: 3 * latencyMs },
    };
  } finally {
    await serial.close();
    await parallel.close();
  }
}

// ---------------------------------------------------------------- 3. pipeline overhead

const PIPELINE_STAGES = ["plan", "design", "implement", "review", "test", "summary"];
/** The model calls each stage is scripted to: its structured tool then a text turn, or one text turn. */
const STAGE_CALLS = { plan: 2, design: 2, implement: 1, review: 2, test: 2, summary: 1 };
const PIPELINE_TASK = "Make greet say Hello instead of hello.";

const roleOf = (body) => /## Your role: (\w+)/.exec(systemOf(body))?.[1] ?? "?";
const stageOf = (body) => [...JSON.stringify(body.messages).matchAll(/# Pipeline stage: (\w+)/g)].at(-1)?.[1];
const lastIsToolResult = (body) => {
  const last = body.messages.at(-1);
  return Array.isArray(last?.content) && last.content.some((block) => block.type === "tool_result");
};

/**
 * One project, opened (and indexed) once; each run is a new root session running the pipeline
 * against a zero-latency team scripted to its minimum: plan, design, review and test call their
 * tool and then end with a text turn, implement and summary end with one text turn; the inspector
 * reports no issues, so there is no fix round.
 */
async function pipelineOverhead(runs) {
  const base = mkdtempSync(join(tmpdir(), "sylk-bench-agents-pipeline-"));
  const root = join(base, "project");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "greet.ts"), "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n");
  let calls = 0;
  const server = await startFakeMessagesServer({
    plan: (body) => {
      const role = roleOf(body);
      if (lastIsToolResult(body)) return { blocks: [text(`${role}: done.`)] };
      const id = () => `toolu_pipe_${++calls}`;
      switch (role) {
        case "orchestrator":
          if (stageOf(body) === "summary")
            return { blocks: [text("Summary: greet says Hello; the review found nothing and the test passed.")] };
          return {
            blocks: [
              toolUse(id(), "submit_plan", {
                summary: "Design, build, review, test.",
                tasks: [{ id: "t1", description: "Capitalise the greeting", assigned_to: "engineer" }],
              }),
            ],
          };
        case "architect":
          return {
            blocks: [
              toolUse(id(), "submit_design", {
                summary: "Change the literal.",
                steps: [{ id: "s1", description: "Edit greet", files: ["src/greet.ts"], done_when: "It says Hello" }],
              }),
            ],
          };
        case "engineer":
          return { blocks: [text("Nothing to change: greet is as the design wants it.")] };
        case "inspector":
          return { blocks: [toolUse(id(), "report_issues", { issues: [], validation_state: { correctness: true } })] };
        case "tester":
          return { blocks: [toolUse(id(), "report_test_results", { test_results: [{ test_name: "greet says Hello", status: "pass" }] })] };
        default:
          return { blocks: [text(`unscripted role ${role}`)] };
      }
    },
  });
  const env = benchEnv(base, server);
  const services = openProject({ root, env });
  try {
    const index = services.indexer.run();
    for (let step = await index.next(); !step.done; step = await index.next());

    const runOnce = async () => {
      const from = server.timings.length;
      const session = openAgentSession({ services, env, permissionMode: "accept-edits" });
      const stages = [];
      let result;
      try {
        const run = session.runPipeline(PIPELINE_TASK, new AbortController().signal);
        let previous = performance.now();
        let step = await run.next();
        for (; !step.done; step = await run.next()) {
          const now = performance.now();
          const event = step.value;
          if (event.type !== "pipeline_stage") continue;
          if (event.status === "start")
            stages.push({ stage: event.stage, round: event.round, agentType: event.agentType, before: previous, start: now });
          else {
            const stage = stages.at(-1);
            Object.assign(stage, { end: now, outcome: event.outcome });
            previous = now;
          }
        }
        result = step.value;
      } finally {
        session.close();
      }
      const timings = server.timings.slice(from);
      const shown = stages.map((stage) => `${stage.stage}:${stage.outcome}`).join(", ");
      if (
        result.stopReason !== "end_turn" ||
        stages.map((stage) => stage.stage).join() !== PIPELINE_STAGES.join() ||
        stages.some((stage) => stage.outcome !== "done")
      ) {
        throw new BenchFailure(`pipeline run: stop ${result.stopReason}, stages ${shown}: ${result.response.slice(0, 300)}`);
      }
      const refused = server.requests.filter((request) => request.invalid);
      if (refused.length > 0) throw new BenchFailure(`pipeline run: the fake API refused a request: ${refused[0].invalid}`);
      if (timings.some((timing) => timing.finishedAt === undefined)) throw new BenchFailure("pipeline run: a request was left unanswered");
      return stages.map((stage) => {
        // The model's calls: the requests the server had within the stage's span (the stages run one after another).
        const inside = timings.filter((timing) => timing.receivedAt >= stage.start && timing.finishedAt <= stage.end);
        const messages = inside.filter((timing) => timing.route === "/v1/messages");
        const straddling = timings.filter(
          (timing) => timing.receivedAt < stage.end && timing.finishedAt > stage.start && !inside.includes(timing),
        );
        if (messages.length !== STAGE_CALLS[stage.stage] || straddling.length > 0) {
          throw new BenchFailure(
            `pipeline run: the ${stage.stage} stage made ${messages.length} model calls (scripted: ${STAGE_CALLS[stage.stage]}), ${straddling.length} across its bounds`,
          );
        }
        const modelMs = inside.reduce((sum, timing) => sum + (timing.finishedAt - timing.receivedAt), 0);
        const wallMs = stage.end - stage.start;
        return {
          stage: stage.stage,
          agentType: stage.agentType,
          wallMs,
          modelMs,
          calls: messages.length,
          otherRequests: inside.length - messages.length,
          overheadMs: wallMs - modelMs,
          beforeStartMs: stage.start - stage.before,
        };
      });
    };

    await runOnce(); // warm-up, discarded
    const samples = [];
    for (let run = 0; run < runs; run++) samples.push(await runOnce());
    const perStage = PIPELINE_STAGES.map((stage, position) => {
      const rows = samples.map((sample) => sample[position]);
      return {
        stage,
        agentType: rows[0].agentType,
        calls: rows[0].calls,
        otherRequests: median(rows.map((row) => row.otherRequests)),
        wallMs: median(rows.map((row) => row.wallMs)),
        modelMs: median(rows.map((row) => row.modelMs)),
        overheadMs: median(rows.map((row) => row.overheadMs)),
        minMs: Math.min(...rows.map((row) => row.overheadMs)),
        maxMs: Math.max(...rows.map((row) => row.overheadMs)),
        beforeStartMs: median(rows.map((row) => row.beforeStartMs)),
      };
    });
    const all = samples.flat();
    return {
      runs,
      stages: perStage,
      overallMedianMs: median(all.map((row) => row.overheadMs)),
      overallMaxMs: Math.max(...all.map((row) => row.overheadMs)),
      overallWithBeforeStartMs: median(all.map((row) => row.overheadMs + row.beforeStartMs)),
      samples,
    };
  } finally {
    await services.close();
    await server.close();
    rmSync(base, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main

let context;
let speed;
let pipeline;
try {
  if (!ONLY || ONLY === "context") context = await contextRatio(SEED, VIA);
  if (!ONLY || ONLY === "parallel") speed = await parallelSpeedup(RUNS, LATENCY_MS);
  if (!ONLY || ONLY === "pipeline") pipeline = await pipelineOverhead(PIPELINE_RUNS);
} catch (error) {
  if (!(error instanceof BenchFailure)) throw error;
  console.error(`bench-agents: ${error.message}`);
  process.exit(1);
}

const tokens = (value) => value.toLocaleString("en-US");
const ms = (value) => `${value.toFixed(0)} ms`;
const times = (value, target) => `${value.toFixed(2)}× (target ≥ ${target}×: ${value >= target ? "met" : "not met"})`;
const viaNote = values.via ? "" : consultBuilt ? " (default)" : " (default while consult_librarian is not built)";

if (context) {
  console.log(`Context ratio: ${FILES} files (seed ${SEED}), the explorer reads ${READS}; run B via ${VIA}${viaNote}.\n`);
  console.log("| engineer's window | A: explores itself | B: via the librarian | A / B |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(`| usedTokens at its first request | ${tokens(context.self.first)} | ${tokens(context.handed.first)} | |`);
  console.log(
    `| usedTokens at its final request | ${tokens(context.self.final)} | ${tokens(context.handed.final)} | ${context.totalRatio.toFixed(2)}× |`,
  );
  console.log(
    `| **added by the exploration** | **${tokens(context.self.added)}** | **${tokens(context.handed.added)}** | **${context.addedRatio.toFixed(2)}×** |`,
  );
  console.log(`| engineer's model calls | ${context.self.parentRequests} | ${context.handed.parentRequests} | |`);
  console.log(
    `| librarian's model calls (its window at its last) | | ${context.handed.childRequests} (${context.handed.childFinal === null ? "n/a" : tokens(context.handed.childFinal)}) | |`,
  );
  console.log(`\nContext ratio (added): ${times(context.addedRatio, 5)}; totals: ${context.totalRatio.toFixed(2)}×.\n`);
}

if (speed) {
  console.log(
    `Parallel speed-up: two delegate calls in one response, each librarian 3 model calls, ${LATENCY_MS} ms a call; median of ${RUNS} each, interleaved.\n`,
  );
  console.log("| agents.maxParallel | median | min | max | ideal |");
  console.log("| ---: | ---: | ---: | ---: | ---: |");
  console.log(
    `| 1 | ${ms(speed.serialMedian)} | ${ms(Math.min(...speed.serialMs))} | ${ms(Math.max(...speed.serialMs))} | ${ms(speed.ideal.serialMs)} |`,
  );
  console.log(
    `| 2 | ${ms(speed.parallelMedian)} | ${ms(Math.min(...speed.parallelMs))} | ${ms(Math.max(...speed.parallelMs))} | ${ms(speed.ideal.parallelMs)} |`,
  );
  console.log(`\nParallel speed-up (1 / 2): ${times(speed.speedup, 1.7)}.\n`);
}

if (pipeline) {
  console.log(
    `Pipeline overhead: zero model latency, ${PIPELINE_STAGES.join(" → ")}, each stage at its minimum of model calls; median of ${pipeline.runs} runs (after one discarded), a new root session each.\n`,
  );
  console.log(
    "| stage (agent) | model calls | stage wall time | its model calls (server-side) | **overhead** | min – max | before its start event |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const stage of pipeline.stages) {
    const others = stage.otherRequests > 0 ? ` (+${stage.otherRequests} other)` : "";
    console.log(
      `| ${stage.stage} (${stage.agentType}) | ${stage.calls}${others} | ${stage.wallMs.toFixed(1)} ms | ${stage.modelMs.toFixed(1)} ms | **${stage.overheadMs.toFixed(1)} ms** | ${stage.minMs.toFixed(1)} – ${stage.maxMs.toFixed(1)} ms | ${stage.beforeStartMs.toFixed(1)} ms |`,
    );
  }
  const met = pipeline.overallMedianMs < 50 ? "met" : "not met";
  console.log(
    `\nPipeline overhead: ${pipeline.overallMedianMs.toFixed(1)} ms per stage, median over all ${pipeline.stages.length * pipeline.runs} stage runs (target < 50 ms: ${met}); the largest ${pipeline.overallMaxMs.toFixed(1)} ms; with the time before each start event ${pipeline.overallWithBeforeStartMs.toFixed(1)} ms.`,
  );
}

if (values.json) {
  mkdirSync(dirname(resolve(values.json)), { recursive: true });
  writeFileSync(
    values.json,
    JSON.stringify({ seed: SEED, via: VIA, context: context ?? null, parallel: speed ?? null, pipeline: pipeline ?? null }, null, 2),
  );
}
