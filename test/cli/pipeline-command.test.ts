import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** `sylk ask --pipeline`: pipeline_stage events for scripts, and the run under its session in `sylk sessions`. */
let server: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const systemOf = (body: any): string => (Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : body.system);

/** Every stage agent ends its turn without its structured tool, even after the reminder: the pipeline records that and goes on. */
function silentTeam(body: any) {
  const role = /## Your role: (\w+)/.exec(systemOf(body))?.[1];
  return reply().text(`${role} has nothing structured to say.`);
}

describe("sylk ask --pipeline", () => {
  it("streams a pipeline_stage start and end per stage, records stages without their report as such, and lists the pipeline under its session", async () => {
    for (let index = 0; index < 30; index++) server.enqueue((body) => silentTeam(body) as never);
    const run = await runCli(
      ["ask", "--yes", "--pipeline", "--permission-mode", "accept-edits", "--output-format", "stream-json", "Rename a to b."],
      { cwd: project.root, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const stages = lines.filter((line) => line.type === "pipeline_stage");
    // No structured review: nothing to fix, so no fix round.
    expect(stages.filter((line) => line.status === "end").map((line) => `${line.stage}:${line.outcome}`)).toEqual([
      "plan:no_structure",
      "design:no_structure",
      "implement:done",
      "review:no_structure",
      "test:no_structure",
      "summary:done",
    ]);
    expect(stages[0]).toMatchObject({ status: "start", stage: "plan", ordinal: 0, round: 0, agent_type: "orchestrator" });
    for (const line of stages.filter((each) => each.status === "end")) expect(typeof line.state_entry_id).toBe("string");
    const result = lines.at(-1) as { type: string; response: string; stats: { subagents: { runs: number } } };
    expect(result.type).toBe("result");
    expect(result.response).toBe("orchestrator has nothing structured to say.");
    expect(result.stats.subagents.runs).toBe(6);

    const listed = await runCli(["sessions"], { cwd: project.root, env });
    expect(listed.stdout).toMatch(/▸ pipeline done: plan ∅ → design ∅ → implement ✓ → review ∅ → test ∅ → summary ✓/);
    const json = JSON.parse((await runCli(["sessions", "--json"], { cwd: project.root, env })).stdout) as {
      sessions: Array<{ pipelines: Array<{ status: string; stages: unknown[] }> }>;
    };
    expect(json.sessions[0]?.pipelines[0]).toMatchObject({ status: "done" });
    expect(json.sessions[0]?.pipelines[0]?.stages).toHaveLength(6);
  });

  it("refuses --pipeline with --agent", async () => {
    const run = await runCli(["ask", "--pipeline", "--agent", "librarian", "x"], { cwd: project.root, env });
    expect(run.code).toBe(42);
    expect(run.stderr).toContain("--pipeline runs the team's own agents");
  });
});
