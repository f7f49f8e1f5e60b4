import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { drain, drainIndex } from "../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** `--pipeline` passes through its stages in order, storing a handoff state per stage. */
let server: FakeAnthropicServer;
let project: TempProject;
let services: ProjectServices;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/greet.ts": "export function greet(name: string) {\n  return `hello ${name}`;\n}\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await services?.close();
  await server.close();
  project.cleanup();
});

async function open(extra: NodeJS.ProcessEnv = {}) {
  env = { ...env, ...extra };
  services = openProject({ root: project.root, env });
  await drainIndex(services);
}

const systemOf = (body: any): string => (Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : body.system);
const roleOf = (body: any) => /## Your role: (\w+)/.exec(systemOf(body))?.[1] ?? "?";
const lastIsToolResult = (body: any) => {
  const last = body.messages.at(-1);
  return Array.isArray(last.content) && last.content.some((block: any) => block.type === "tool_result");
};
const stageOf = (body: any) => [...JSON.stringify(body.messages).matchAll(/# Pipeline stage: (\w+)(, fix round (\d))?/g)].at(-1);

const MAJOR = {
  id: "i1",
  severity: "major",
  category: "correctness",
  file: "src/greet.ts",
  line: 2,
  description: "The greeting is not capitalised.",
  suggestion: "Say Hello.",
};

/** A team that does its part: each stage's agent calls its tool once, then ends its turn. The inspector finds a major issue until `fixedAfter` fix rounds. */
function team(options: { fixedAfter: number }) {
  return (body: any) => {
    const role = roleOf(body);
    if (lastIsToolResult(body)) return reply().text(`${role} done.`);
    const stage = stageOf(body);
    const round = Number(stage?.[3] ?? 0);
    switch (role) {
      case "orchestrator":
        return stage?.[1] === "summary"
          ? reply().text("Summary: greet says Hello now; reviewed, fixed and tested.")
          : reply().toolUse("submit_plan", {
              summary: "Design, build, review, test.",
              tasks: [{ id: "t1", description: "Capitalise the greeting", assigned_to: "engineer" }],
            });
      case "architect":
        return reply().toolUse("submit_design", {
          summary: "Change the literal.",
          steps: [{ id: "s1", description: "Edit greet", files: ["src/greet.ts"], done_when: "It says Hello" }],
        });
      case "engineer":
        return stage?.[1] === "fix"
          ? reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hi ${name}", new_string: "Hello ${name}" })
          : reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello ${name}", new_string: "hi ${name}" });
      case "inspector":
        return round < options.fixedAfter
          ? reply().toolUse("report_issues", { issues: [MAJOR], validation_state: { correctness: false } })
          : reply().toolUse("report_issues", {
              issues: [],
              fixes_applied: [{ issue_id: "i1", description: "says Hello", applied: true }],
              validation_state: { correctness: true },
            });
      case "tester":
        return reply().toolUse("report_test_results", { test_results: [{ test_name: "greet says Hello", status: "pass" }] });
      default:
        return reply().text("?");
    }
  };
}

async function runPipeline(task: string): Promise<{ events: AgentEvent[]; result: AgentResult }> {
  const session = openAgentSession({ services, env, permissionMode: "accept-edits" });
  const { events, result } = await drain(session.runPipeline(task, new AbortController().signal));
  session.close();
  return { events, result };
}

describe("the pipeline", () => {
  it("runs plan, design, implement, review, fix, re-review, test and summary in order, each in its agent's child session, storing a state per stage", async () => {
    await open();
    for (let index = 0; index < 40; index++) server.enqueue((body) => team({ fixedAfter: 1 })(body) as never);
    const { events, result } = await runPipeline("Make greet say Hello.");
    expect(result.stopReason).toBe("end_turn");
    expect(result.response).toBe("Summary: greet says Hello now; reviewed, fixed and tested.");
    expect(readFileSync(join(project.root, "src/greet.ts"), "utf8")).toContain("Hello ${name}");

    const ends = events.filter(
      (event): event is Extract<AgentEvent, { type: "pipeline_stage" }> => event.type === "pipeline_stage" && event.status === "end",
    );
    expect(ends.map((event) => `${event.stage}:${event.round}:${event.agentType}:${event.outcome}`)).toEqual([
      "plan:0:orchestrator:done",
      "design:0:architect:done",
      "implement:0:engineer:done",
      "review:0:inspector:done",
      "fix:1:engineer:done",
      "review:1:inspector:done",
      "test:0:tester:done",
      "summary:0:orchestrator:done",
    ]);
    // The same engineer fixes what it implemented, the same inspector re-reviews, the same orchestrator sums up.
    const agentOf = (stage: string, round = 0) => ends.find((event) => event.stage === stage && event.round === round)?.agentId;
    expect(agentOf("fix", 1)).toBe(agentOf("implement"));
    expect(agentOf("review", 1)).toBe(agentOf("review"));
    expect(agentOf("summary")).toBe(agentOf("plan"));

    // One row and one state entry per stage; the review's state holds the inspector's issues.
    const [pipeline] = services.pipelines.listForSession(result.sessionId);
    expect(pipeline?.status).toBe("done");
    expect(pipeline?.stages.map((stage) => stage.stage)).toEqual([
      "plan",
      "design",
      "implement",
      "review",
      "fix",
      "review",
      "test",
      "summary",
    ]);
    const entries = services.contentStore.getByIds(ends.map((event) => event.stateEntryId as string));
    expect(entries.map((entry) => entry.contentType)).toEqual([
      "plan_workflow",
      "plan_workflow",
      "agent_handoff",
      "inspector_finding",
      "agent_handoff",
      "inspector_finding",
      "test_result",
      "plan_workflow",
    ]);
    const review = JSON.parse(entries[3]?.content as string);
    expect(review.issues_found[0]).toMatchObject({ id: "i1", severity: "major", file: "src/greet.ts", line: 2, suggestion: "Say Hello." });
    const implemented = JSON.parse(entries[2]?.content as string);
    expect(implemented.files_changed.map((file: { path: string }) => file.path)).toEqual(["src/greet.ts"]);

    // The inspector reviewed the engineer's own diff; the stages are children of the session, and it is the one --continue takes.
    // The orchestrator's hook: the pipeline's state as its summary prompt starts.
    const summaryRequest = messageRequests(server)
      .map((request) => request.body as any)
      .find((body) => stageOf(body)?.[1] === "summary");
    expect(JSON.stringify(summaryRequest.messages)).toContain("[WORKFLOW · pipeline · phase summary · fix rounds 1 of 2]");
    const inspectorFirst = messageRequests(server)
      .map((request) => request.body as any)
      .find((body) => roleOf(body) === "inspector");
    expect(JSON.stringify(inspectorFirst.messages)).toContain("hi ${name}");
    expect(services.sessions.latest()?.id).toBe(result.sessionId);
    expect(new Set(services.sessions.descendants(result.sessionId).map((child) => `${child.kind}:${child.agentType}`))).toEqual(
      new Set(["stage:orchestrator", "stage:architect", "stage:engineer", "stage:inspector", "stage:tester"]),
    );
  });

  it("bounds the fix rounds by pipeline.maxFixRounds, then reports what is still pending", async () => {
    await open({ SYLK_PIPELINE_MAX_FIX_ROUNDS: "1" });
    for (let index = 0; index < 40; index++) server.enqueue((body) => team({ fixedAfter: 99 })(body) as never);
    const { events } = await runPipeline("Make greet say Hello.");
    const stages = events.filter((event) => event.type === "pipeline_stage" && event.status === "end").map((event) => (event as any).stage);
    expect(stages).toEqual(["plan", "design", "implement", "review", "fix", "review", "test", "summary"]);
    const summaryRequest = messageRequests(server)
      .map((request) => request.body as any)
      .findLast((body) => stageOf(body)?.[1] === "summary");
    expect(JSON.stringify(summaryRequest.messages)).toContain("The greeting is not capitalised.");
  });

  it("stops after the design in plan mode and says so", async () => {
    await open();
    for (let index = 0; index < 20; index++) server.enqueue((body) => team({ fixedAfter: 1 })(body) as never);
    const session = openAgentSession({ services, env, permissionMode: "plan" });
    const { events, result } = await drain(session.runPipeline("Make greet say Hello.", new AbortController().signal));
    session.close();
    expect(
      events.filter((event) => event.type === "pipeline_stage" && event.status === "end").map((event) => (event as any).stage),
    ).toEqual(["plan", "design"]);
    expect(result.response).toMatch(/plan mode/);
    expect(readFileSync(join(project.root, "src/greet.ts"), "utf8")).toContain("hello ${name}");
  });
});
