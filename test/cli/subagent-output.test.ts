import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** What scripts and users see of a sub-agent in `sylk ask` and `sylk sessions`. */
let server: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({
    "src/auth.ts": "export function verifyToken(token: string): boolean {\n  return token.startsWith('sylk_');\n}\n",
  });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[]) => runCli(args, { cwd: project.root, env });
const delegation = () =>
  server.enqueue(
    reply().toolUse("delegate", { agent: "librarian", task: "Where are tokens verified?" }, "toolu_delegate"),
    reply().toolUse("grep", { pattern: "verifyToken" }, "toolu_child"),
    reply().text("In src/auth.ts:1-3."),
    reply().text("Tokens are verified in src/auth.ts:1-3."),
  );

describe("sub-agents at the command line", () => {
  it("stream-json names every line's agent; a sub-agent's lines name the call that started it, between subagent_start and subagent_end", async () => {
    delegation();
    const run = await sylk(["ask", "--yes", "--output-format", "stream-json", "where are tokens verified?"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of lines) expect(line).toHaveProperty("agent_id");
    const main = lines.filter(
      (line) => line.parent_tool_use_id === undefined && line.type !== "subagent_start" && line.type !== "subagent_end",
    );
    expect(new Set(main.map((line) => `${line.agent_id} ${line.agent_type}`))).toEqual(new Set(["engineer-1 engineer"]));
    const start = lines.findIndex((line) => line.type === "subagent_start");
    const end = lines.findIndex((line) => line.type === "subagent_end");
    expect(lines[start]).toMatchObject({
      agent_id: "librarian-1",
      agent_type: "librarian",
      parent_agent_id: "engineer-1",
      parent_tool_use_id: "toolu_delegate",
      kind: "delegate",
    });
    expect(lines[end]).toMatchObject({ agent_id: "librarian-1", stop_reason: "end_turn", turns: 2, tool_calls: 1, truncated: false });
    const childLines = lines.slice(start + 1, end);
    expect(childLines.find((line) => line.type === "tool_use")).toMatchObject({
      agent_id: "librarian-1",
      agent_type: "librarian",
      parent_tool_use_id: "toolu_delegate",
      name: "grep",
    });
    const result = lines.at(-1) as { type: string; stats: { subagents: { runs: number; input_tokens: number } } };
    expect(result.type).toBe("result");
    expect(result.stats.subagents.runs).toBe(1);
    expect(result.stats.subagents.input_tokens).toBeGreaterThan(0);
  });

  it("text output shows the sub-agent's calls indented on stderr and only the main answer on stdout; sylk sessions nests the run under its session", async () => {
    delegation();
    const run = await sylk(["ask", "--yes", "where are tokens verified?"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("Tokens are verified in src/auth.ts:1-3.\n");
    expect(run.stderr).toContain("⏺ delegate(");
    expect(run.stderr).toMatch(/\n {2}⏺ librarian-1 grep\("verifyToken"\)\n/);

    const listed = await sylk(["sessions"]);
    const lines = listed.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/↳ librarian-1 \(delegate\) {2}2 model calls/);
    const json = JSON.parse((await sylk(["sessions", "--json"])).stdout) as {
      sessions: Array<{ subagents: Array<Record<string, unknown>> }>;
    };
    expect(json.sessions).toHaveLength(1);
    expect(json.sessions[0]?.subagents).toEqual([
      expect.objectContaining({ agent_id: "librarian-1", agent_type: "librarian", kind: "delegate", turns: 2 }),
    ]);
  });
});
