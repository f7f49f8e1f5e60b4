import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { estimateInputTokens, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * The handoff controller's end-to-end scenario against the fake Messages API: a model that
 * starts failing its tool calls once its conversation fills 5 % of the
 * window, far below the token safety net (75 %), is handed off to a fresh
 * instance within a few turns; a model that never fails is not. The onset is
 * counted on the conversation alone: the fixed prefix (system prompt and
 * tool definitions) grows with every tool Sylk gains, and a scenario keyed to
 * the whole request would move with it.
 */
const WINDOW = 60_000;
const FAILING_FROM = 0.05 * WINDOW;
/** The conversation part of a request (system prompt and tools are the same in every request). */
const conversationTokens = (body: any) => estimateInputTokens({ messages: body.messages });
/** The token policy's trigger (context.evictAtRatio), counting the room kept for the answer. */
const SAFETY_NET = 0.75 * WINDOW;
const FILES = 60;
const PROMPT = "Rename every `legacyTotal` to `grandTotal` in the data files; keep a task list as you go.";

let project: TempProject;
let server: FakeAnthropicServer;
let services: ProjectServices;
let env: NodeJS.ProcessEnv;

/** ~700 tokens of text no other file has. */
function fileContent(index: number): string {
  return `${Array.from({ length: 40 }, (_, line) => `row ${index}.${line}: legacyTotal=${(index * 7919 + line * 104_729) % 1_000_003} checked`).join("\n")}\n`;
}

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject();
  for (let index = 0; index < FILES; index++) project.write(`data/file${index}.txt`, fileContent(index));
  env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_CONTEXT_WINDOW_TOKENS: String(WINDOW),
    SYLK_AGENT_MAX_TURNS: "400",
    SYLK_CONTEXT_PREFETCH: "false",
  };
  services = openProject({ root: project.root, env });
  const run = services.indexer.run();
  for (let step = await run.next(); !step.done; step = await run.next());
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

const TASKS = {
  todos: [
    { content: "Find every legacyTotal", status: "done" },
    { content: "Rename them in the data files", status: "in_progress" },
    { content: "Check nothing else uses the old name", status: "pending" },
  ],
};

function handedOff(body: any): boolean {
  const first = body.messages[0]?.content?.find((block: any) => block.type === "text");
  return typeof first?.text === "string" && first.text.startsWith("[Handoff 1:");
}

/**
 * The scripted model: it writes its task list, then reads one file after
 * another. A degrading model, once its conversation passes 5 % of the window,
 * misses its edits, reads files that do not exist and repeats itself; a
 * fresh instance (its window starts with a handoff state) reads two more
 * files and finishes.
 */
function scriptedModel(degrades: boolean, stopAt?: (body: any) => boolean) {
  let step = 0;
  let afterHandoff = 0;
  return (body: any) => {
    step++;
    if (step === 1) return reply().toolUse("todo_write", TASKS);
    if (stopAt?.(body)) return reply().text("Stopping here.");
    if (handedOff(body)) {
      afterHandoff++;
      if (afterHandoff <= 2) return reply().toolUse("read_file", { path: `data/file${FILES - afterHandoff}.txt` });
      return reply().text("All renamed: grandTotal everywhere.");
    }
    const file = `data/file${step % FILES}.txt`;
    if (degrades && conversationTokens(body) > FAILING_FROM) {
      return reply()
        .toolUse("edit_file", { path: file, old_string: "legacy_total=", new_string: "grandTotal=" })
        .toolUse("read_file", { path: `data/missing${step % 3}.txt` })
        .toolUse("grep", { pattern: "legacyTotal", path: "data" });
    }
    return reply().toolUse("read_file", { path: file });
  };
}

async function runSession(
  prompt: string,
  options: { resume?: { latest: true }; before?: (session: ReturnType<typeof openAgentSession>) => void } = {},
) {
  const session = openAgentSession({
    services,
    env,
    permissionMode: "accept-edits",
    ...(options.resume ? { resume: options.resume } : {}),
  });
  options.before?.(session);
  const events: AgentEvent[] = [];
  const run = session.run(prompt, new AbortController().signal);
  let step = await run.next();
  while (!step.done) {
    events.push(step.value);
    step = await run.next();
  }
  session.close();
  return { session, events, result: step.value as AgentResult };
}

describe("the handoff controller, end to end", () => {
  it("hands a model that starts failing at 5 % of the window to a fresh instance, which finishes the task", async () => {
    const model = scriptedModel(true);
    for (let index = 0; index < 400; index++) server.enqueue(model);
    const { events, result } = await runSession(PROMPT);

    expect(result.stopReason).toBe("end_turn");
    expect(result.response).toBe("All renamed: grandTotal everywhere.");
    const handoffs = events.filter((event): event is Extract<AgentEvent, { type: "handoff" }> => event.type === "handoff");
    expect(handoffs).toHaveLength(1);
    const handoff = handoffs[0] as Extract<AgentEvent, { type: "handoff" }>;
    expect(handoff).toMatchObject({ fromAgent: "engineer-1", toAgent: "engineer-2", handoffIndex: 1 });
    expect(["below_peak", "declining_trend", "high_uncertainty", "onset_reached"]).toContain(handoff.reason);
    // Far below the safety net, and within a few turns of the first failure.
    expect(handoff.contextTokensBefore).toBeLessThan(SAFETY_NET / 2);
    const requests = server.requests.filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"));
    const firstFailing = requests.findIndex((request) => conversationTokens(request.body) > FAILING_FROM);
    const firstHandedOff = requests.findIndex((request) => handedOff(request.body));
    expect(firstFailing).toBeGreaterThan(0);
    expect(firstHandedOff - firstFailing).toBeLessThanOrEqual(6);
    expect(events.some((event) => event.type === "context_eviction" && event.turn < handoff.turn)).toBe(false);

    // The next request is much smaller and holds the original prompt verbatim and the task list.
    const before = requests[firstHandedOff - 1]?.body;
    const after = requests[firstHandedOff]?.body;
    expect(conversationTokens(after)).toBeLessThan(conversationTokens(before) / 2);
    const state = after.messages[0].content[0].text as string;
    expect(state).toContain(`## Original prompt (verbatim)\n${PROMPT}\n`);
    expect(state).toContain("[x] Find every legacyTotal");
    expect(state).toContain("[~] Rename them in the data files");
    expect(state).toContain("[ ] Check nothing else uses the old name");
    expect(state).toMatch(/retrieve_context\(ref_id="[0-9a-f]{8}"\)/);
    expect(JSON.stringify(after.messages)).toContain("[CTX-REF:");

    // The turns before the handoff stay searchable, and the chain is recorded.
    const sessionId = result.sessionId;
    const early = services.contentStore.getByTurnRange(sessionId, 2, 2);
    expect(early.some((entry) => entry.agentId === "engineer-1" && entry.contentType === "tool_result")).toBe(true);
    const found = await services.contentStore.search("row 2.0 legacyTotal", { sessionId, turnRange: [0, handoff.turn - 1] });
    expect(found.hits.length).toBeGreaterThan(0);
    const chain = services.handoffs.instances(sessionId);
    expect(chain.map((instance) => [instance.agentId, instance.handoffIndex, instance.endReason])).toEqual([
      ["engineer-1", 0, "handoff"],
      ["engineer-2", 1, "session_end"],
    ]);
    const stored = services.contentStore.getByTurnRange(sessionId, 0, 10_000).filter((entry) => entry.contentType === "agent_handoff");
    expect(stored).toHaveLength(1);
    expect(JSON.parse(stored[0]?.content as string)).toMatchObject({
      agent_type: "engineer",
      original_prompt: PROMPT,
      handoff_index: 1,
      remaining: expect.any(Array),
    });
    const firing = services.handoffs.firings(sessionId);
    expect(firing).toHaveLength(1);
    expect(firing[0]).toMatchObject({ action: "handoff", condition: handoff.reason });
    // Observations were recorded for every turn, with their signals.
    const observations = services.handoffs.observations(sessionId, "engineer-1");
    expect(observations.some((observation) => (observation.signals.edit_miss ?? 0) > 0)).toBe(true);
    expect(observations.every((observation) => observation.quality >= 0 && observation.quality <= 1)).toBe(true);
  });

  it("does not hand off a model that never fails before the token safety net evicts", async () => {
    // It stops once the safety net has moved turns out of its window (a marker stands in it).
    const model = scriptedModel(false, (body) => JSON.stringify(body.messages).includes("[CTX-REF:"));
    for (let index = 0; index < 400; index++) server.enqueue(model);
    const { events, result } = await runSession(PROMPT);
    expect(result.response).toBe("Stopping here.");
    expect(events.some((event) => event.type === "context_eviction")).toBe(true);
    expect(events.filter((event) => event.type === "handoff")).toEqual([]);
    expect(services.handoffs.firings(result.sessionId)).toEqual([]);
  });

  it("reports the handoff in stream-json with the fields scripts read", async () => {
    const model = scriptedModel(true);
    for (let index = 0; index < 400; index++) server.enqueue(model);
    await services.close();
    const cli = await runCli(["ask", "--yes", "--output-format", "stream-json", "--permission-mode", "accept-edits", PROMPT], {
      cwd: project.root,
      env,
    });
    services = openProject({ root: project.root, env });
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const handoff = jsonLines(cli.stdout).find((line) => line.type === "handoff");
    expect(handoff).toMatchObject({ type: "handoff", from_agent: "engineer-1", to_agent: "engineer-2", handoff_index: 1 });
    expect(Object.keys(handoff ?? {})).toEqual(
      expect.arrayContaining([
        "from_agent",
        "to_agent",
        "handoff_index",
        "reason",
        "context_tokens_before",
        "context_tokens_after",
        "predicted_quality",
      ]),
    );
    expect(handoff?.context_tokens_after as number).toBeLessThan(handoff?.context_tokens_before as number);
    const sessions = await runCli(["sessions"], { cwd: project.root, env });
    expect(sessions.stdout).toContain("1 handoff: engineer-1 → engineer-2");
  });

  it("lets a knowledge agent evict instead: the same instance goes on with a smaller window", async () => {
    await services.close();
    env = { ...env, SYLK_AGENT_TYPE: "librarian" };
    services = openProject({ root: project.root, env });
    const model = scriptedModel(true, (body) => JSON.stringify(body.messages).includes("[CTX-REF:"));
    for (let index = 0; index < 400; index++) server.enqueue(model);
    const { events, result } = await runSession(PROMPT);
    expect(result.response).toBe("Stopping here.");
    expect(events.filter((event) => event.type === "handoff")).toEqual([]);
    const firings = services.handoffs.firings(result.sessionId);
    expect(firings).toHaveLength(1);
    expect(firings[0]).toMatchObject({ action: "evict", agentId: "librarian-1" });
    // The eviction came with the firing, far below the token safety net.
    const eviction = events.find((event): event is Extract<AgentEvent, { type: "context_eviction" }> => event.type === "context_eviction");
    expect(eviction?.turn).toBe(firings[0]?.turn);
    expect(firings[0]?.contextTokens).toBeLessThan(SAFETY_NET / 2);
    expect(services.handoffs.instances(result.sessionId).map((instance) => instance.agentId)).toEqual(["librarian-1"]);
  });

  it("/handoff forces one at the next model call, and --continue goes on with the latest instance", async () => {
    server.enqueue(reply().toolUse("todo_write", TASKS), reply().text("Started."));
    const first = await runSession(PROMPT, { before: (session) => expect(session.requestHandoff()).toContain("fresh instance") });
    const handoff = first.events.find((event) => event.type === "handoff");
    expect(handoff).toMatchObject({ reason: "forced", fromAgent: "engineer-1", toAgent: "engineer-2" });
    expect(services.handoffs.firings(first.result.sessionId)[0]).toMatchObject({ condition: "forced", turn: 1 });

    server.enqueue(reply().text("Carrying on."));
    const second = await runSession("Carry on.", { resume: { latest: true } });
    expect(second.result.sessionId).toBe(first.result.sessionId);
    expect(second.events.some((event) => event.type === "handoff")).toBe(false);
    const request = server.requests.at(-1)?.body;
    expect(request.messages[0].content[0].text).toMatch(/^\[Handoff 1: you are engineer-2/);
    const chain = services.handoffs.instances(first.result.sessionId);
    expect(chain.map((instance) => [instance.agentId, instance.endReason])).toEqual([
      ["engineer-1", "handoff"],
      ["engineer-2", "session_end"],
    ]);
    // The continued instance recorded its turn under its own id.
    expect(services.handoffs.observations(first.result.sessionId, "engineer-2").length).toBeGreaterThanOrEqual(2);
  });
});
