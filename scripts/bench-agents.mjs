#!/usr/bin/env node
// Agent roles and sub-agents: what consulting a sub-agent costs and gets right, and what running two
// sub-agents at once saves in wall time. The real product (dist/) runs against a loopback Messages
// API (scripts/lib/fake-messages-server.mjs) whose answers are chosen from each request: the system
// prompt says which agent asks (`## Your role: librarian`), and the conversation so far says how far
// it got.
//
//   npm run build && node scripts/bench-agents.mjs [--via consult_librarian|delegate] [--reads 6,12,24] [--runs 10] [--seed 1]
//                                                  [--json <file>] [--latency-ms 300] [--pipeline-runs 20]
//                                                  [--only consultation|parallel|pipeline]
//
// 1. Consultation. A generated repository of 40 modules of about 143 lines (seeded), one nested file
//    holding the fact (a constant) and a decoy constant of the same shape answering another question
//    (scripts/lib/agents-repository.mjs). An exploration is search_codebase calls and --reads ranged
//    read_file calls of 30 lines, the fact's lines among them. For each number of reads: the engineer
//    explores itself; or it loads `--via` through find_tools, calls it once, and the librarian explores
//    the same way and answers right, partly (the file, not the constant) or wrong (the decoy), through
//    share_context; the engineer then trusts a cited constant, or verifies it by reading the cited
//    lines (exploring itself when they are not about the question), and searches a file named without
//    a constant (scripts/lib/consult-scenarios.mjs). Per run: the engineer's window growth (the
//    `context_window` event's `usedTokens` at its final request minus at its first), the input tokens
//    of every request of every agent (as count_tokens estimates them), the model calls, and whether
//    the final answer names the fact's file, constant and value. The table mixes the runs of each
//    answer at a librarian's error rates (right/partial/wrong: 100/0/0, 80/10/10, 60/20/20).
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
// --only consultation|parallel|pipeline runs one of the three (dev runs).
//
// Prefetch and self-tuning retrieval are off (SYLK_CONTEXT_PREFETCH=false,
// SYLK_LEARNING_ENABLED=false), so nothing but the scripted calls enters a window.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { moduleText, mulberry32 } from "./lib/agents-repository.mjs";
import { assistantBlocks, BenchFailure, benchEnv, callsOf, LIBRARIAN, runPrompt, systemOf, text, toolUse } from "./lib/agents-runs.mjs";
import { median } from "./lib/alternated-rounds.mjs";
import { consultationRuns } from "./lib/consult-runs.mjs";
import { consultationReport, READ_COUNTS, scenarioTable } from "./lib/consult-scenarios.mjs";
import { startFakeMessagesServer } from "./lib/fake-messages-server.mjs";
import { PIPELINE_STAGES, pipelineOverhead } from "./lib/pipeline-overhead.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    via: { type: "string" },
    reads: { type: "string", default: READ_COUNTS.join(",") },
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
const READS = values.reads.split(",").map(Number);
const METRICS = ["consultation", "parallel", "pipeline"];
const ONLY = values.only;
if (
  !Number.isInteger(RUNS) ||
  RUNS < 1 ||
  !Number.isInteger(PIPELINE_RUNS) ||
  PIPELINE_RUNS < 1 ||
  !Number.isFinite(SEED) ||
  !(LATENCY_MS >= 0) ||
  !READS.every((reads) => Number.isInteger(reads) && reads >= 1 && reads <= 39) ||
  (values.via !== undefined && !VIAS.includes(values.via)) ||
  (ONLY !== undefined && !METRICS.includes(ONLY))
) {
  console.error(
    "Usage: node scripts/bench-agents.mjs [--via consult_librarian|delegate] [--reads 6,12,24] [--runs 10] [--seed 1] [--json <file>] [--latency-ms 300] [--pipeline-runs 20] [--only consultation|parallel|pipeline]",
  );
  process.exit(2);
}

const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { openAgentSession } = await import(join(repo, "dist/src/app/session/open-agent-session.js"));
const VIA = values.via ?? "consult_librarian";

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
      const result = await runPrompt(openAgentSession, services, env, "Summarise the four parts, two librarians at once.", (event, now) => {
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

// ---------------------------------------------------------------- main

let consultation;
let speed;
let pipeline;
try {
  if (!ONLY || ONLY === "consultation") {
    const product = { openProject, openAgentSession };
    const onRun = (run) => process.stderr.write(`  ran ${run.mode} ${run.reads}${run.policy ? ` ${run.policy} ${run.outcome}` : ""}\n`);
    const runs = await consultationRuns(product, { seed: SEED, via: VIA, readCounts: READS, onRun });
    consultation = { seed: SEED, via: VIA, readCounts: READS, runs, table: scenarioTable(runs, READS) };
  }
  if (!ONLY || ONLY === "parallel") speed = await parallelSpeedup(RUNS, LATENCY_MS);
  if (!ONLY || ONLY === "pipeline") pipeline = await pipelineOverhead({ openProject, openAgentSession }, PIPELINE_RUNS);
} catch (error) {
  if (!(error instanceof BenchFailure)) throw error;
  console.error(`bench-agents: ${error.message}`);
  process.exit(1);
}

const ms = (value) => `${value.toFixed(0)} ms`;
const times = (value, target) => `${value.toFixed(2)}× (target ≥ ${target}×: ${value >= target ? "met" : "not met"})`;

if (consultation) console.log(`${consultationReport(consultation)}\n`);

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
    JSON.stringify(
      { seed: SEED, via: VIA, consultation: consultation ?? null, parallel: speed ?? null, pipeline: pipeline ?? null },
      null,
      2,
    ),
  );
}
