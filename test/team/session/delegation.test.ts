import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { createContextTools } from "../../../src/agent/tools/context-tools.js";
import { ContextRetriever } from "../../../src/context/context-retriever.js";
import { drain } from "../../helpers/drain.js";
import { messageRequests, reply, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { openModelProject, type ModelProject } from "../../helpers/model-project.js";
import type { TempProject } from "../../helpers/temp-project.js";

/** `delegate` runs a sub-agent in a child session of its own, through the real loop and store. */
let server: FakeAnthropicServer;
let project: TempProject;
let services: ProjectServices;
let env: NodeJS.ProcessEnv;
let model: ModelProject;

beforeEach(async () => {
  model = await openModelProject({
    files: { "src/auth.ts": "export function verifyToken(token: string): boolean {\n  return token.startsWith('sylk_');\n}\n" },
  });
  ({ server, project, services, env } = model);
});
afterEach(() => model.close(services));

async function runPrompt(prompt: string, options: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void } = {}) {
  const session = openAgentSession({ services, env });
  const { events, result } = await drain(session.run(prompt, options.signal ?? new AbortController().signal), options.onEvent);
  session.close();
  return { events, result };
}

const systemOf = (body: any): string => (Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : body.system);
/** The tools a request offers: those sent, and the deferred ones find_tools names. */
const toolNamesOf = (body: any): string[] => {
  const sent: Array<{ name: string; description: string }> = body.tools;
  const deferred = /Available to load: (.*)\.$/.exec(sent.find((tool) => tool.name === "find_tools")?.description ?? "")?.[1];
  return [...sent.map((tool) => tool.name).filter((name) => name !== "find_tools"), ...(deferred ? deferred.split(", ") : [])];
};
const toolResultText = (body: any, id: string): string => {
  for (const message of body.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === "tool_result" && block.tool_use_id === id)
        return typeof block.content === "string" ? block.content : block.content.map((part: any) => part.text).join("");
    }
  }
  return "";
};

describe("delegate", () => {
  it("runs the librarian in a child session with its own prompt and tools; only its answer comes back, and its turns are recorded as the librarian's", async () => {
    server.enqueue(
      reply().toolUse("delegate", { agent: "librarian", task: "Where are tokens verified?" }, "toolu_delegate"),
      reply().toolUse("grep", { pattern: "verifyToken" }, "toolu_child_grep"),
      reply().text("Tokens are verified in src/auth.ts:1-3 (verifyToken)."),
      reply().text("The librarian says: src/auth.ts:1-3."),
    );
    const { events, result } = await runPrompt("Find where tokens are verified, using the librarian.");
    expect(result.stopReason).toBe("end_turn");
    expect(result.response).toBe("The librarian says: src/auth.ts:1-3.");

    const [parentFirst, childFirst, childSecond, parentSecond] = messageRequests(server).map((request) => request.body as any);
    expect(systemOf(parentFirst)).toContain("## Your role: engineer");
    expect(toolNamesOf(parentFirst)).toContain("delegate");
    // The librarian's own request: its prompt, its tools, no write, command or delegation, and none of the parent's conversation.
    expect(systemOf(childFirst)).toContain("## Your role: librarian");
    for (const tool of ["edit_file", "write_file", "run_command", "delegate"]) expect(toolNamesOf(childFirst)).not.toContain(tool);
    expect(JSON.stringify(childFirst.messages)).toContain("Where are tokens verified?");
    expect(JSON.stringify(childFirst.messages)).not.toContain("using the librarian");
    expect(childSecond.messages.length).toBe(3);
    // The parent gets the answer and a footer, not the librarian's grep.
    const returned = toolResultText(parentSecond, "toolu_delegate");
    expect(returned).toContain("Tokens are verified in src/auth.ts:1-3 (verifyToken).");
    expect(returned).toMatch(/— librarian-1 \(librarian\) · done · 2 model calls · 1 tool calls/);
    expect(JSON.stringify(parentSecond.messages)).not.toContain("toolu_child_grep");

    // Events: the start, the librarian's own events nested under the call, the end with its usage.
    const start = events.find((event) => event.type === "subagent_start");
    expect(start).toMatchObject({
      agentId: "librarian-1",
      agentType: "librarian",
      parentAgentId: "engineer-1",
      parentToolUseId: "toolu_delegate",
      kind: "delegate",
    });
    const nested = events.filter((event) => event.type === "subagent_event");
    expect(nested.map((event) => (event as any).event.type)).toEqual(expect.arrayContaining(["tool_use", "tool_result", "done"]));
    const end = events.find((event) => event.type === "subagent_end") as Extract<AgentEvent, { type: "subagent_end" }>;
    expect(end).toMatchObject({ agentId: "librarian-1", stopReason: "end_turn", turns: 2, toolCalls: 1, truncated: false });
    expect(result.subagents).toMatchObject({ runs: 1, usage: end.usage });

    // The store: a child session under the root, the root still the one --continue takes, the child's entries the librarian's.
    const child = services.sessions.get((start as any).sessionId)!;
    expect(child).toMatchObject({
      parentSessionId: result.sessionId,
      parentToolUseId: "toolu_delegate",
      agentId: "librarian-1",
      agentType: "librarian",
      kind: "delegate",
      turns: 2,
    });
    expect(services.sessions.latest()?.id).toBe(result.sessionId);
    expect(services.sessions.list(10).map((session) => session.id)).toEqual([result.sessionId]);
    expect(services.sessions.descendants(result.sessionId).map((session) => session.id)).toEqual([child.id]);
    const librarianEntries = (await services.contentStore.search("verifyToken", { agentTypes: ["librarian"] }, 20)).hits.map(
      (hit) => hit.entry,
    );
    expect(librarianEntries.length).toBeGreaterThan(0);
    expect(new Set(librarianEntries.map((entry) => entry.sessionId))).toEqual(new Set([child.id]));
    expect(new Set(librarianEntries.map((entry) => entry.agentId))).toEqual(new Set(["librarian-1"]));
    // search_history of the root session includes the work it delegated, and filters by agent type.
    const [, searchHistory] = createContextTools({
      retriever: new ContextRetriever(services.contentStore),
      contentStore: services.contentStore,
      sessionId: () => result.sessionId,
      availableTokens: () => 10_000,
      sessionTree: (id) => [id, ...services.sessions.descendants(id).map((session) => session.id)],
    });
    const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
    const found = await searchHistory!.execute(
      { query: "verifyToken", session_id: result.sessionId, agent_type: "librarian", max_results: 10 },
      context,
    );
    expect(found.output).toContain("librarian-1");
    const resultLines = found.output.split("\n").filter((line) => line.startsWith("- turn"));
    expect(resultLines.length).toBeGreaterThan(0);
    for (const line of resultLines) expect(line).toContain(`· librarian-1 · session ${child.id.slice(0, 8)}`);
  });

  it("gives two delegations of one type distinct agent ids across the session tree", async () => {
    server.enqueue(
      reply().toolUse("delegate", { agent: "tester", task: "First." }, "toolu_a"),
      reply().text("first done"),
      reply().toolUse("delegate", { agent: "tester", task: "Second." }, "toolu_b"),
      reply().text("second done"),
      reply().text("Both done."),
    );
    const { events } = await runPrompt("Twice.");
    expect(events.filter((event) => event.type === "subagent_start").map((event) => (event as any).agentId)).toEqual([
      "tester-1",
      "tester-2",
    ]);
  });

  it("clips a long answer to max_tokens and keeps the whole of it behind a reference", async () => {
    const long = Array.from({ length: 400 }, (_, index) => `Line ${index} of a long survey of the authentication code.`).join("\n");
    server.enqueue(
      reply().toolUse("delegate", { agent: "librarian", task: "Survey everything.", max_tokens: 500 }, "toolu_long"),
      reply().text(long),
      reply().text("Noted."),
    );
    const { events } = await runPrompt("Survey.");
    const result = events.find((event) => event.type === "tool_result" && event.id === "toolu_long") as Extract<
      AgentEvent,
      { type: "tool_result" }
    >;
    expect(result.output.length).toBeLessThan(long.length);
    const refId = /retrieve_context\(ref_id="([0-9a-f]+)"\)/.exec(result.output)?.[1];
    expect(refId).toBeDefined();
    const retrieved = await new ContextRetriever(services.contentStore).retrieve({ refId: refId as string, maxTokens: 10_000 });
    expect(retrieved.entries.map((entry) => entry.content)).toEqual([long]);
    expect(events.find((event) => event.type === "subagent_end")).toMatchObject({ truncated: true });
  });

  it("stops the sub-agent when the parent is cancelled: no model request is sent after the abort has settled", async () => {
    server.enqueue(reply().toolUse("delegate", { agent: "librarian", task: "Take forever." }, "toolu_slow"), reply().hang());
    const controller = new AbortController();
    const untilChildAsked = async () => {
      while (messageRequests(server).length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const { result, events } = await runPrompt("Slow.", {
      signal: controller.signal,
      onEvent: (event) => {
        // Once the child's model call is under way (its request reached the server), whatever the machine's load.
        if (event.type === "subagent_start") void untilChildAsked().then(() => controller.abort());
      },
    });
    expect(result.stopReason).toBe("interrupted");
    expect(events.find((event) => event.type === "subagent_end")).toMatchObject({ stopReason: "interrupted" });
    const sent = messageRequests(server).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(messageRequests(server).length).toBe(sent);
    expect(sent).toBe(2);
  });

  it("an agent at agents.maxDepth is built without delegate", async () => {
    env = { ...env, SYLK_AGENTS_MAX_DEPTH: "1" };
    await services.close();
    services = openProject({ root: project.root, env });
    server.enqueue(
      reply().toolUse("delegate", { agent: "engineer", task: "Go deeper." }, "toolu_deep"),
      reply().text("child done"),
      reply().text("ok"),
    );
    await runPrompt("Deep.");
    const [parentFirst, childFirst] = messageRequests(server).map((request) => request.body as any);
    expect(toolNamesOf(parentFirst)).toContain("delegate");
    expect(toolNamesOf(childFirst)).not.toContain("delegate");
    expect(toolNamesOf(childFirst)).toContain("edit_file");
  });

  it("two delegations of one response run at once under agents.maxParallel, one after the other with 1; results come back in call order", async () => {
    const order = async (maxParallel: string) => {
      env = { ...env, SYLK_AGENTS_MAX_PARALLEL: maxParallel };
      await services.close();
      services = openProject({ root: project.root, env });
      server.requests.length = 0;
      const seen: string[] = [];
      // Each model call is answered by what it is: the parent's first and last, or a child's first (a grep, slowly) and second.
      const respond = (body: any) => {
        const text = JSON.stringify(body.messages);
        const task = systemOf(body).includes("## Your role: librarian") ? /Task (alpha|beta)/.exec(text)?.[1] : undefined;
        if (!task)
          return body.messages.length === 1
            ? reply()
                .toolUse("delegate", { agent: "librarian", task: "Task alpha" }, "toolu_alpha")
                .toolUse("delegate", { agent: "librarian", task: "Task beta" }, "toolu_beta")
            : reply().text("Both answered.");
        const first = body.messages.length === 1;
        seen.push(`${task}${first ? 1 : 2}`);
        return first ? reply().toolUse("grep", { pattern: "verifyToken" }).delayMs(150) : reply().text(`${task} found it.`);
      };
      for (let index = 0; index < 6; index++) server.enqueue((body) => respond(body) as never);
      const { events } = await runPrompt("Ask twice.");
      const results = events.filter((event) => event.type === "tool_result").map((event) => (event as any).id);
      return { seen, results };
    };
    const parallel = await order("2");
    expect(parallel.seen.slice(0, 2).sort()).toEqual(["alpha1", "beta1"]);
    expect(parallel.results).toEqual(["toolu_alpha", "toolu_beta"]);
    const serial = await order("1");
    expect(serial.seen).toEqual(["alpha1", "alpha2", "beta1", "beta2"]);
    expect(serial.results).toEqual(["toolu_alpha", "toolu_beta"]);
  });

  it("delegates to a custom agent with exactly the tools its file names, recorded under custom:<name>", async () => {
    project.write(
      ".sylk/agents/reviewer.md",
      "---\nname: reviewer\ndescription: Reviews one file for naming.\ntools: [read_file, grep]\n---\nReview names only. Be brief.\n",
    );
    await services.close();
    services = openProject({ root: project.root, env });
    server.enqueue(
      reply().toolUse("delegate", { agent: "reviewer", task: "Review src/auth.ts." }, "toolu_custom"),
      reply().text("Names are fine."),
      reply().text("The reviewer is happy."),
    );
    const { events, result } = await runPrompt("Have the reviewer look.");
    const [, childFirst, parentSecond] = messageRequests(server).map((request) => request.body as any);
    // delegate is deferred: the call loaded it, and the parent's next request has its description.
    expect(JSON.stringify(parentSecond.tools.find((tool: { name: string }) => tool.name === "delegate"))).toContain(
      "reviewer: Reviews one file for naming.",
    );
    expect(toolNamesOf(childFirst)).toEqual(["read_file", "grep"]);
    expect(systemOf(childFirst)).toContain("Review names only. Be brief.");
    expect(events.find((event) => event.type === "subagent_start")).toMatchObject({
      agentType: "custom:reviewer",
      agentId: "custom:reviewer-1",
    });
    expect(services.sessions.descendants(result.sessionId)[0]).toMatchObject({ agentType: "custom:reviewer", kind: "delegate" });
  });
});
