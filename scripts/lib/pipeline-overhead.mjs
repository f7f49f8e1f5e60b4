// bench-agents.mjs's pipeline overhead: what the pipeline runner itself costs per stage, the model's
// share taken out (scripts/bench-agents.mjs says how it is measured).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchFailure, benchEnv, systemOf, text, toolUse } from "./agents-runs.mjs";
import { median } from "./alternated-rounds.mjs";
import { startFakeMessagesServer } from "./fake-messages-server.mjs";

export const PIPELINE_STAGES = ["plan", "design", "implement", "review", "test", "summary"];
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
export async function pipelineOverhead(product, runs) {
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
  const services = product.openProject({ root, env });
  try {
    const index = services.indexer.run();
    for (let step = await index.next(); !step.done; step = await index.next());

    const runOnce = async () => {
      const from = server.timings.length;
      const session = product.openAgentSession({ services, env, permissionMode: "accept-edits" });
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
