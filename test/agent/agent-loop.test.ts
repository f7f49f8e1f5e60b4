import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../../src/agent/agent-events.js";
import type { ApprovalAnswer } from "../../src/agent/tools/tool-registry.js";
import { defineTool } from "../../src/agent/tools/tool.js";
import { resolveRole } from "../../src/roles/resolve-role.js";
import * as z from "zod";
import { openAgentSession, type AgentSessionOptions } from "../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let server: FakeAnthropicServer;
let services: ProjectServices;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
  services = openProject({ root: project.root, env: env() });
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

const env = () => ({
  ...project.env,
  ANTHROPIC_API_KEY: "test",
  ANTHROPIC_BASE_URL: server.baseUrl,
  SYLK_MODEL_RETRY_BASE_DELAY_MS: "1",
  SYLK_MODEL_MAX_ATTEMPTS: "2",
});

async function run(prompt: string, options: Partial<AgentSessionOptions> = {}, signal = new AbortController().signal) {
  const session = openAgentSession({ services, env: env(), ...options });
  const events: AgentEvent[] = [];
  const generator = session.run(prompt, signal);
  let step = await generator.next();
  while (!step.done) {
    events.push(step.value);
    step = await generator.next();
  }
  return { events, result: step.value as AgentResult, session };
}

function lastToolResults(requestIndex: number) {
  const messages = server.requests[requestIndex]?.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
  return (messages.at(-1)?.content ?? []).filter((block) => block.type === "tool_result");
}

describe("agent loop", () => {
  it("sends tool errors back to the model as results and goes on", async () => {
    server.enqueue(
      reply().toolUse("read_file", { path: "src/missing.ts" }, "t1").toolUse("read_file", { paht: "typo" }, "t2"),
      reply().text("That file does not exist."),
    );
    const { result, events } = await run("Read src/missing.ts");
    expect(result).toMatchObject({ stopReason: "end_turn", turns: 2, toolCalls: 2, response: "That file does not exist." });
    const results = lastToolResults(1);
    expect(results.map((block) => block.is_error)).toEqual([true, true]);
    expect(String(results[1]?.content)).toMatch(/Invalid input for read_file: .*path/);
    expect(events.filter((event) => event.type === "tool_result")).toHaveLength(2);
    expect(events.at(-1)?.type).toBe("done");
  });

  it("asks the approver and remembers an always-allow for the session", async () => {
    const asked: string[] = [];
    const approver = async (request: { tool: string; reason: string }): Promise<ApprovalAnswer> => {
      asked.push(`${request.tool}: ${request.reason}`);
      return "allow-session";
    };
    server.enqueue(
      reply().toolUse("write_file", { path: "notes/a.md", content: "one\n" }, "w1"),
      reply().toolUse("write_file", { path: "notes/b.md", content: "two\n" }, "w2"),
      reply().text("Wrote both."),
    );
    const { result, events } = await run("Write two notes", { approver });
    expect(result.stopReason).toBe("end_turn");
    expect(asked).toEqual(["write_file: Change notes/a.md"]);
    const permissions = events.flatMap((event) => (event.type === "tool_result" ? [event.permission] : []));
    expect(permissions).toEqual(["approved", "allowed"]);
  });

  it("on interruption answers every pending tool call so the session can be resumed", async () => {
    server.enqueue(reply().toolUse("run_command", { command: "sleep 5" }, "c1").toolUse("list_files", {}, "c2"));
    const controller = new AbortController();
    const session = openAgentSession({ services, env: env(), permissionMode: "bypass" });
    const generator = session.run("Wait a while", controller.signal);
    const events: AgentEvent[] = [];
    let step = await generator.next();
    while (!step.done) {
      events.push(step.value);
      if (step.value.type === "tool_use") setTimeout(() => controller.abort(), 100);
      step = await generator.next();
    }
    expect(step.value.stopReason).toBe("interrupted");
    const messages = services.sessions.messages(step.value.sessionId);
    const [results, note] = messages.slice(-2);
    expect(results?.role).toBe("user");
    expect(results?.content.map((block) => (block.type === "tool_result" ? block.toolUseId : block.type))).toEqual(["c1", "c2"]);
    // The run says in the conversation that it was interrupted, so the next prompt is not merged into the results.
    expect(note).toEqual({ role: "assistant", content: [{ type: "text", text: "[interrupted by the user]" }] });

    server.enqueue(reply().text("Resumed fine."));
    const resumed = await run("Go on", { resume: { id: step.value.sessionId } });
    expect(resumed.result.response).toBe("Resumed fine.");
    const sent = server.requests.at(-1)?.body.messages as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(sent[2]?.content.map((block) => block.type)).toEqual(["tool_result", "tool_result"]);
    expect(sent[4]?.content).toEqual([expect.objectContaining({ type: "text", text: "Go on" })]);
  });

  it("cancels a tool that waits for something that never comes, and the session goes on", async () => {
    const waitsForever = defineTool({
      name: "wait_forever",
      description: "Waits for an answer that never comes.",
      schema: z.strictObject({}),
      kind: "read",
      targets: () => ({}),
      execute: () => new Promise<never>(() => undefined),
    });
    const engineer = resolveRole("engineer", []);
    const session = openAgentSession({
      services,
      env: env(),
      role: { ...engineer, tools: [...engineer.tools, "wait_forever"] },
      extraTools: [waitsForever],
    });
    server.enqueue(reply().toolUse("wait_forever", {}, "f1"));
    const controller = new AbortController();
    let abortedAt = 0;
    const events: AgentEvent[] = [];
    const generator = session.run("Wait for it", controller.signal);
    let step = await generator.next();
    while (!step.done) {
      events.push(step.value);
      if (step.value.type === "tool_use") {
        setTimeout(() => {
          abortedAt = performance.now();
          controller.abort();
        }, 100);
      }
      step = await generator.next();
    }
    expect(performance.now() - abortedAt).toBeLessThan(2_000);
    expect(step.value.stopReason).toBe("interrupted");
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({
      id: "f1",
      isError: true,
      output: "The user interrupted this call before it finished; it has no result.",
    });

    server.enqueue(reply().text("Carried on."));
    const next = session.run("Go on", new AbortController().signal);
    let last = await next.next();
    while (!last.done) last = await next.next();
    expect(last.value).toMatchObject({ stopReason: "end_turn", response: "Carried on." });
    const sent = server.requests.at(-1)?.body.messages as Array<{ role: string; content: Array<{ type: string; content?: string }> }>;
    expect(sent[2]?.content[0]).toMatchObject({
      type: "tool_result",
      content: "The user interrupted this call before it finished; it has no result.",
    });
  });

  it("resumes a session cut between tool calls and their results (a killed process), answering each call", async () => {
    server.enqueue(reply().toolUse("list_files", {}, "k1").toolUse("run_command", { command: "sleep 5" }, "k2"));
    const session = openAgentSession({ services, env: env(), permissionMode: "bypass" });
    const generator = session.run("List, then wait", new AbortController().signal);
    // Stop where `kill -9` stops the process: the first call ran and its result is stored, the
    // second has not run, and no results message was appended (scripts/bench-faults.mjs, tool trials).
    for (let step = await generator.next(); !step.done; step = await generator.next()) {
      if (step.value.type === "tool_use" && step.value.id === "k2") break;
    }
    const sessionId = session.sessionId;

    server.enqueue(reply().text("Resumed after the crash."));
    const resumed = await run("Go on", { resume: { id: sessionId } });
    expect(resumed.result.response).toBe("Resumed after the crash.");
    const sent = server.requests.at(-1)?.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    const [first, second] = sent[2]?.content ?? [];
    const [note] = sent[3]?.content ?? [];
    const [prompt] = sent[4]?.content ?? [];
    expect(first).toMatchObject({ type: "tool_result", tool_use_id: "k1", is_error: false });
    expect(String(first?.content)).toContain("src/app.ts");
    expect(second).toMatchObject({ type: "tool_result", tool_use_id: "k2", is_error: true });
    expect(String(second?.content)).toMatch(/stopped before this tool call finished/);
    expect(note).toMatchObject({ type: "text", text: "[not answered: the run stopped before an answer (the process ended)]" });
    expect(prompt).toMatchObject({ type: "text", text: "Go on" });

    // Recorded like any result, in the turn of the calls; the stored result of k1 is reused, not repeated.
    const rows = services.sessions.messageRows(sessionId);
    expect(rows.map((row) => [row.message.role, row.turn])).toEqual([
      ["user", 1],
      ["assistant", 1],
      ["user", 1],
      ["assistant", 1],
      ["user", 2],
      ["assistant", 2],
    ]);
    const results = services.contentStore.getByTurnRange(sessionId, 1, 1).filter((entry) => entry.contentType === "tool_result");
    expect(results.map((entry) => entry.metadata.toolUseId)).toEqual(["k1", "k2"]);
    expect(rows[2]?.entryIds).toEqual(results.map((entry) => entry.id));
  });

  it("ends with a typed error when the model keeps failing, and says so in the conversation", async () => {
    server.enqueue(reply().status(500), reply().status(500));
    const { result, events } = await run("hello");
    expect(result).toMatchObject({ stopReason: "error", error: { kind: "server" } });
    expect(events.filter((event) => event.type === "retry")).toHaveLength(1);
    expect(events.find((event) => event.type === "error")).toMatchObject({ fatal: true });
    const messages = services.sessions.messages(result.sessionId);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(messages[1]?.content).toEqual([{ type: "text", text: expect.stringMatching(/^\[not answered: .+\]$/) }]);
  });
});
