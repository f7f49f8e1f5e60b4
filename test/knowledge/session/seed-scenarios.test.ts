import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentResult } from "../../../src/agent/agent-events.js";
import { SessionRecorder } from "../../../src/agent/session-recorder.js";
import { openAgentSession, type AgentSession } from "../../../src/app/session/open-agent-session.js";
import { ObservationBuffer, type ObservationSettings } from "../../../src/knowledge/session/observation-buffer.js";
import { SessionKnowledge } from "../../../src/knowledge/session/session-knowledge.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { loadConfig } from "../../../src/config/load-config.js";
import type { SylkConfig } from "../../../src/config/schema.js";
import { evictionConfigFor } from "../../../src/context/create-context-manager.js";
import { TokenUsagePolicy } from "../../../src/context/degradation-policy.js";
import { VirtualContextManager } from "../../../src/context/virtual-context-manager.js";
import { OBSERVATION_DEFAULTS } from "../../../src/knowledge/observer.js";
import type { ChatMessage, ModelProvider, ModelResponse } from "../../../src/llm/model-types.js";
import { CalibratedTokenCounter } from "../../../src/llm/token-counter.js";
import type { ContextReference } from "../../../src/store/content-types.js";
import type { SessionMessageRow } from "../../../src/store/session-repository.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { drain } from "../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * The knowledge and observational-memory scenarios that the other knowledge
 * tests do not name, each through Sylk's real paths (the store of a temp
 * project, the agent loop against the fake Messages API), as
 * docs/DESIGN-NOTES.md "Knowledge that lasts" maps them.
 */
let project: TempProject;
let services: ProjectServices;
let server: FakeAnthropicServer;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "package.json": '{ "name": "shop" }\n' });
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

const LONG = Array.from(
  { length: 60 },
  (_, index) => `We decided to keep the retry limit at ${index} for the billing worker in src/billing/retry.ts.`,
);

/** Reopens the project with these settings and opens a session on the fake server. */
async function sessionWith(settings: Record<string, string>): Promise<AgentSession> {
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    // Prefetch would put retrieved history in front of the prompt: these tests are about the system prompt and memory.
    SYLK_CONTEXT_PREFETCH: "false",
    ...settings,
  };
  await services.close();
  services = openProject({ root: project.root, env });
  return openAgentSession({ services, env });
}

async function ask(session: AgentSession, prompt: string): Promise<AgentResult> {
  return (await drain(session.run(prompt, new AbortController().signal))).result;
}

const isObserver = (body: any): boolean => JSON.stringify(body.messages).includes("Write a compressed observation");
const requestBodies = (): any[] => messageRequests(server).map((request) => request.body);

function note(
  sessionId: string,
  contentType: "observation" | "reflection",
  content: string,
  timestamp: number,
  metadata: Record<string, unknown> = {},
) {
  return services.contentStore.indexContents([
    { sessionId, agentId: "observer", agentType: "observer", contentType, content, turnNumber: 0, timestamp, metadata },
  ]);
}

function rows(messages: ChatMessage[]): SessionMessageRow[] {
  return messages.map((message, ordinal) => ({ ordinal, message, turn: ordinal, entryIds: [], evictedBy: null }));
}

const text = (role: "user" | "assistant", value: string): ChatMessage => ({ role, content: [{ type: "text", text: value }] });

function buffer(deps: {
  sessionId: string;
  rows: () => readonly SessionMessageRow[];
  observer?: ModelProvider;
  settings?: Partial<ObservationSettings>;
  reports?: string[];
  compact?: (through: number, summary: string) => Promise<unknown>;
}) {
  return new ObservationBuffer({
    store: services.contentStore,
    sessionId: deps.sessionId,
    rows: deps.rows,
    observer: deps.observer,
    settings: { messageTokenThreshold: 1_000, observationTokenThreshold: 2_000, ...deps.settings },
    report: (message) => deps.reports?.push(message),
    ...(deps.compact ? { compact: deps.compact } : {}),
  });
}

/** A model whose answers the test writes: `answer` gets each prompt's text and may wait. */
function fakeObserver(answer: (prompt: string) => Promise<string> | string): ModelProvider & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    name: "fake",
    model: "observer-1",
    contextWindow: 100_000,
    prompts,
    async *stream(request) {
      const prompt = request.messages
        .flatMap((message) => message.content)
        .map((block) => (block.type === "text" ? block.text : ""))
        .join("\n");
      prompts.push(prompt);
      const out = await answer(prompt);
      yield {
        type: "complete",
        response: {
          content: [{ type: "text", text: out }],
          stopReason: "end_turn",
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
          model: "observer-1",
        },
      } as const;
    },
  };
}

/** A promise the test opens when it wants. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const observations = (sessionId: string) => services.contentStore.recentOfType(sessionId, "observation", 50);
const reflections = (sessionId: string) => services.contentStore.recentOfType(sessionId, "reflection", 50);

describe("observational memory: the observer", () => {
  it("Scenario: Observation content quality — the extractive observer keeps the goal, decision, fact and outcome sentences, and none of the tool's output or the filler", async () => {
    const conversation = rows([
      text("user", "I want the billing retries to stop after five attempts. Hmm, okay then, well."),
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me run the tests first." },
          { type: "tool_use", id: "t1", name: "run_command", input: { command: "npm test" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "t1",
            isError: true,
            content:
              "FAIL src/billing/retry.test.ts\n  expected 5 attempts, received 7\nTOOL-OUTPUT-ONLY stack at Object.<anonymous> (retry.test.ts:42:17)",
          },
        ],
      },
      text(
        "assistant",
        "We decided to use a constant instead of the magic number. The limit lives in src/billing/retry.ts. The retry test passes now.",
      ),
    ]);
    const observing = buffer({ sessionId: "q1", rows: () => conversation, settings: { messageTokenThreshold: 20 } });
    observing.signal();
    await observing.settled();
    const [observation] = observations("q1");
    expect(observation?.content.split("\n")).toEqual([
      "- User: I want the billing retries to stop after five attempts.",
      "- Assistant: We decided to use a constant instead of the magic number.",
      "- Assistant: The limit lives in src/billing/retry.ts.",
      "- Assistant: The retry test passes now.",
    ]);
    // No verbatim tool output, and no filler.
    expect(observation?.content).not.toMatch(/TOOL-OUTPUT-ONLY|received 7|FAIL src|Hmm, okay/);
  });
});

describe("observational memory: the observer's model, as the session wires it", () => {
  it("Scenario: Observer uses configurable LLM — observationalMemory.model is the observer's model; without it, the session's model observes", async () => {
    const configured = await sessionWith({
      SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true",
      SYLK_MODEL_NAME: "main-model-1",
      SYLK_OBSERVATIONAL_MEMORY_MODEL: "observer-model-1",
    });
    server.enqueue(reply().text("Noted."), reply().text("- The retry limit is being tuned."));
    await ask(configured, LONG.join(" "));
    await configured.settleMemory();
    configured.close();
    expect(requestBodies().map((body) => [isObserver(body), body.model])).toEqual([
      [false, "main-model-1"],
      [true, "observer-model-1"],
    ]);

    const fallback = await sessionWith({ SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true", SYLK_MODEL_NAME: "main-model-1" });
    server.enqueue(reply().text("Noted."), reply().text("- The retry limit is being tuned."));
    await ask(fallback, LONG.join(" "));
    await fallback.settleMemory();
    fallback.close();
    expect(
      requestBodies()
        .slice(2)
        .map((body) => [isObserver(body), body.model]),
    ).toEqual([
      [false, "main-model-1"],
      [true, "main-model-1"],
    ]);
    expect(observations(fallback.sessionId)[0]?.metadata).toMatchObject({ observer: "anthropic:main-model-1" });
  });
});

describe("observational memory: the async observation buffer", () => {
  it("Scenario: Non-blocking observation — a run returns while the slow observer's call is still unanswered; the observation comes after", async () => {
    const session = await sessionWith({ SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" });
    server.enqueue(reply().text("Noted."), reply().text("- The retry limit is being tuned.").delayMs(1_500));
    // The observer's answer takes 1.5 s: the run has returned before it, with nothing stored yet.
    await ask(session, LONG.join(" "));
    expect(observations(session.sessionId)).toEqual([]);
    await session.settleMemory();
    expect(requestBodies().filter(isObserver)).toHaveLength(1);
    expect(observations(session.sessionId).map((entry) => entry.content)).toEqual(["- The retry limit is being tuned."]);
    session.close();
  });

  it("Scenario: Graceful shutdown — close waits for the observation under way, and a signal after it starts nothing", async () => {
    const slow = gate();
    const observer = fakeObserver(async () => {
      await slow.promise;
      return "- The billing retry limit is being tuned.";
    });
    let messages = rows(LONG.map((line, index) => text(index % 2 === 0 ? "user" : "assistant", line)));
    const observing = buffer({ sessionId: "g1", rows: () => messages, observer });
    observing.signal();
    // Another turn ends while the pass runs: it is queued behind it.
    observing.signal();
    let closed = false;
    const closing = observing.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    slow.open();
    await closing;
    expect(observations("g1")).toHaveLength(1);
    // No new signal is taken, and the one queued before close does not run.
    messages = [...messages, ...rows(LONG.map((line) => text("user", line))).map((row) => ({ ...row, ordinal: row.ordinal + 60 }))];
    observing.signal();
    await observing.settled();
    expect(observer.prompts).toHaveLength(1);
    expect(observations("g1")).toHaveLength(1);
  });

  it("Scenario: Goroutine lifecycle management — the buffer runs only with observationalMemory.enabled: then a long turn is observed, otherwise no observer call is made", async () => {
    const off = await sessionWith({});
    server.enqueue(reply().text("Noted."));
    await ask(off, LONG.join(" "));
    await off.settleMemory();
    expect(requestBodies()).toHaveLength(1);
    expect(observations(off.sessionId)).toEqual([]);
    off.close();

    const on = await sessionWith({ SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" });
    server.enqueue(reply().text("Noted."), reply().text("- The retry limit is being tuned."));
    await ask(on, LONG.join(" "));
    await on.settleMemory();
    expect(requestBodies().slice(1).filter(isObserver)).toHaveLength(1);
    expect(observations(on.sessionId)).toHaveLength(1);
    on.close();
  });
});

describe("observational memory: context assembly", () => {
  it("Scenario: Context ordering — base prompt (cached), then knowledge, reflections, observations in the second system block, then the recent messages", async () => {
    const session = await sessionWith({ SYLK_KNOWLEDGE_ENABLED: "true", SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" });
    services.knowledge.save({
      layer: "user_knowledge",
      kind: "rule",
      key: "package manager",
      content: "Always use pnpm in this repository, never npm.",
      source: "user",
      category: "build",
    });
    server.enqueue(reply().text("Hello."));
    await ask(session, "Hello there.");
    await note(session.sessionId, "observation", "- OBSERVATION-NOTE: the retry limit is 12.", 2_000);
    await note(session.sessionId, "reflection", "- REFLECTION-NOTE: the user works on billing.", 1_000);
    server.enqueue(reply().text("pnpm install"));
    await ask(session, "How do I install the dependencies with the package manager?");
    const body = requestBodies().at(-1);
    expect(body.system).toHaveLength(2);
    expect(body.system[0].cache_control).toEqual({ type: "ephemeral" });
    expect(body.system[0].text).not.toMatch(/## User Knowledge|## Conversation Memory/);
    const augmentation: string = body.system[1].text;
    const order = ["## User Knowledge", "## Conversation Memory", "REFLECTION-NOTE", "OBSERVATION-NOTE"].map((marker) =>
      augmentation.indexOf(marker),
    );
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The recent messages follow in `messages`, the newest prompt last; the memory is not among them.
    expect(JSON.stringify(body.messages.at(-1))).toContain("How do I install the dependencies with the package manager?");
    expect(JSON.stringify(body.messages)).toContain("Hello there.");
    expect(JSON.stringify(body.messages)).not.toMatch(/REFLECTION-NOTE|OBSERVATION-NOTE/);
    await session.settleMemory();
    session.close();
  });

  it("Scenario: No observations available — with observational memory on and no notes yet, the request is as with it off: one system block", async () => {
    const session = await sessionWith({ SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" });
    server.enqueue(reply().text("Hello."));
    await ask(session, "Hello there.");
    await session.settleMemory();
    expect(requestBodies()[0].system).toHaveLength(1);
    expect(JSON.stringify(requestBodies()[0])).not.toContain("Conversation Memory");
    session.close();
  });

  it("Scenario: Default limits applied, and Custom limits applied — the session's memory holds the 5 newest reflections and 20 newest observations, or as many as configured", async () => {
    for (let index = 0; index < 7; index++) await note("lim", "reflection", `- R${index}.`, 1_000 + index);
    for (let index = 0; index < 25; index++) await note("lim", "observation", `- O${index}.`, 2_000 + index);
    const memoryOf = async (settings: Partial<SylkConfig["observationalMemory"]>) => {
      const base = services.loadedConfig.config;
      const knowledge = new SessionKnowledge(
        services,
        { ...base, observationalMemory: { ...base.observationalMemory, enabled: true, ...settings } },
        () => "lim",
      );
      const text = (await knowledge.systemContextFor("anything", [])) ?? "";
      return {
        reflections: [...text.matchAll(/R(\d+)\./g)].map((match) => Number(match[1])),
        observations: [...text.matchAll(/O(\d+)\./g)].map((match) => Number(match[1])),
      };
    };
    expect(await memoryOf({})).toEqual({ reflections: [2, 3, 4, 5, 6], observations: Array.from({ length: 20 }, (_, index) => index + 5) });
    expect(await memoryOf({ maxReflectionsInContext: 3, maxObservationsInContext: 10 })).toEqual({
      reflections: [4, 5, 6],
      observations: Array.from({ length: 10 }, (_, index) => index + 15),
    });
  });

  it("Scenario: Session key resolved from request context — the memory is the session's running at call time, not one fixed when the hook was made", async () => {
    await note("session-a", "observation", "- NOTE-OF-A", 1_000);
    await note("session-b", "observation", "- NOTE-OF-B", 1_000);
    const config: SylkConfig = {
      ...services.loadedConfig.config,
      observationalMemory: { ...services.loadedConfig.config.observationalMemory, enabled: true },
    };
    let running = "session-a";
    const knowledge = new SessionKnowledge(services, config, () => running);
    const forA = await knowledge.systemContextFor("anything", []);
    expect(forA).toMatch(/^## Conversation Memory\n\n### Observations\n.*NOTE-OF-A/);
    expect(forA).not.toContain("NOTE-OF-B");
    running = "session-b";
    const forB = await knowledge.systemContextFor("anything", []);
    expect(forB).toContain("NOTE-OF-B");
    expect(forB).not.toContain("NOTE-OF-A");
  });

  it("Scenario: No session key in context skips memory — with no session yet (no prompt recorded) there is no Conversation Memory", async () => {
    await note("session-a", "observation", "- NOTE-OF-A", 1_000);
    const config: SylkConfig = {
      ...services.loadedConfig.config,
      observationalMemory: { ...services.loadedConfig.config.observationalMemory, enabled: true },
    };
    const knowledge = new SessionKnowledge(services, config, () => "");
    expect(await knowledge.systemContextFor("anything", [])).toBeUndefined();
    // A fresh agent session is not stored until its first prompt is recorded: nothing is kept under its key yet.
    const session = await sessionWith({ SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" });
    expect(session.started).toBe(false);
    expect(services.sessions.get(session.sessionId)).toBeUndefined();
    session.close();
  });

  it("Scenario: Session key propagated to RuntimeContextAdapter — the request's Runtime Context names the running session and says nothing of channels or encryption", async () => {
    const session = await sessionWith({ SYLK_KNOWLEDGE_ENABLED: "true" });
    services.knowledge.save({
      layer: "user_knowledge",
      kind: "rule",
      key: "package manager",
      content: "Always use pnpm in this repository, never npm.",
      source: "user",
    });
    server.enqueue(reply().text("pnpm install"));
    await ask(session, "How do I install the dependencies with the package manager?");
    expect(session.started).toBe(true);
    const augmentation: string = requestBodies().at(-1).system[1].text;
    expect(augmentation).toMatch(
      new RegExp(`^## Runtime Context\n- Session: ${session.sessionId} \\| Active tools: \\d+ \\| Knowledge: on \\| Memory: off\n`),
    );
    expect(augmentation).not.toMatch(/Channel|Encryption/);
    session.close();
  });
});

describe("observational memory: configuration", () => {
  const memoryConfig = (env: NodeJS.ProcessEnv) => loadConfig({ projectRoot: project.root, env }).config.observationalMemory;

  it("Scenario: Configuration structure — observationalMemory has enabled, provider, model, messageTokenThreshold, observationTokenThreshold, maxMessageTokenBudget (and the context limits)", () => {
    expect(Object.keys(memoryConfig(project.env)).sort()).toEqual(
      [
        "enabled",
        "provider",
        "model",
        "messageTokenThreshold",
        "observationTokenThreshold",
        "maxMessageTokenBudget",
        "memoryTokenBudget",
        "maxReflectionsInContext",
        "maxObservationsInContext",
      ].sort(),
    );
    const set = memoryConfig({
      ...project.env,
      SYLK_OBSERVATIONAL_MEMORY_PROVIDER: "anthropic",
      SYLK_OBSERVATIONAL_MEMORY_MODEL: "claude-haiku-4-5",
      SYLK_OBSERVATIONAL_MEMORY_MESSAGE_TOKEN_THRESHOLD: "1500",
    });
    expect(set).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5", messageTokenThreshold: 1_500 });
  });

  it("Scenario: Default disabled — off without configuration, and a long conversation's requests are what they were: one system block, no observer call", async () => {
    expect(memoryConfig(project.env).enabled).toBe(false);
    const session = await sessionWith({});
    server.enqueue(reply().text("Noted."), reply().text("Again."));
    await ask(session, LONG.join(" "));
    await ask(session, "And now?");
    await session.settleMemory();
    expect(requestBodies()).toHaveLength(2);
    expect(requestBodies().map((body) => body.system.length)).toEqual([1, 1]);
    expect(requestBodies().some(isObserver)).toBe(false);
    expect(observations(session.sessionId)).toEqual([]);
    session.close();
  });

  it("Scenario: Threshold defaults — enabled without thresholds: 1,000 message tokens, 2,000 observation tokens, 8,000 kept", () => {
    expect(memoryConfig({ ...project.env, SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" })).toMatchObject({
      enabled: true,
      provider: "",
      model: "",
      messageTokenThreshold: 1_000,
      observationTokenThreshold: 2_000,
      maxMessageTokenBudget: 8_000,
    });
  });
});

describe("observational memory: compaction (Sylk's compactObserved: out of the window, nothing deleted)", () => {
  function startSession(): SessionRecorder {
    return SessionRecorder.start(
      { sessions: services.sessions, contentStore: services.contentStore, identity: { agentId: "a", agentType: "engineer" } },
      { title: "compaction", provider: "test", model: "test" },
    );
  }
  function manager(): VirtualContextManager {
    const { strategy, preserveTypes } = evictionConfigFor("recency");
    return new VirtualContextManager({
      contentStore: services.contentStore,
      tokenCounter: new CalibratedTokenCounter(),
      policy: new TokenUsagePolicy(0.75, 0.5),
      strategy,
      windowTokens: 200_000,
      preserveRecentTurns: 1,
      preserveTypes,
    });
  }
  const answer = (value: string): ModelResponse => ({
    content: [{ type: "text", text: value }],
    stopReason: "end_turn",
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model: "test",
  });
  /** `exchanges` prompts and answers, each a few hundred tokens, numbered. */
  async function converse(recorder: SessionRecorder, exchanges: number, from = 0): Promise<void> {
    for (let index = from; index < from + exchanges; index++) {
      const parent = await recorder.recordPrompt(`PROMPT-${index}: ${LONG.slice(0, 8).join(" ")}`, recorder.nextTurn());
      await recorder.recordResponse(recorder.nextTurn(), answer(`ANSWER-${index}: ${LONG.slice(8, 16).join(" ")}`), parent);
    }
  }
  const windowText = async (recorder: SessionRecorder, contextManager: VirtualContextManager) =>
    JSON.stringify((await contextManager.prepare(recorder, 1_000)).messages);

  it("Scenario: Compaction after observation — an observation moves the observed messages, but the newest, behind one marker summarised by it", async () => {
    const recorder = startSession();
    await converse(recorder, 6);
    const contextManager = manager();
    const made: ContextReference[] = [];
    const observing = buffer({
      sessionId: recorder.session.id,
      rows: () => recorder.rows(),
      compact: async (through, summary) => {
        const reference = await contextManager.compactObserved(recorder, through, 1_000, summary);
        if (reference) made.push(reference);
      },
    });
    observing.signal();
    await observing.settled();
    expect(made).toHaveLength(1);
    expect(made[0]?.summary).toBe(
      "Observed: User: PROMPT-0: We decided to keep the retry limit at 0 for the billing worker in src/billing/retry.ts.",
    );
    const window = await windowText(recorder, contextManager);
    expect(window).toContain(`[CTX-REF:`);
    expect(window).toContain(`retrieve_context(ref_id=\\"${made[0]?.id}\\")`);
    expect(window).not.toContain("PROMPT-0");
    expect(window).toContain("ANSWER-5");
    // Nothing deleted: every message is still stored, and the marker's entries hold the first ones.
    expect(recorder.rows()).toHaveLength(12);
    expect(
      services.contentStore
        .getByIds(made[0]?.contentIds ?? [])
        .map((entry) => entry.content)
        .join("\n"),
    ).toContain("PROMPT-0");
  });

  it("Scenario: Compactor not set — the buffer observes and leaves every message in the window", async () => {
    const recorder = startSession();
    await converse(recorder, 6);
    const observing = buffer({ sessionId: recorder.session.id, rows: () => recorder.rows() });
    observing.signal();
    await observing.settled();
    expect(observations(recorder.session.id)).toHaveLength(1);
    const window = await windowText(recorder, manager());
    expect(window).not.toContain("[CTX-REF:");
    for (let index = 0; index < 6; index++) expect(window).toContain(`PROMPT-${index}`);
    expect(recorder.rows().every((row) => row.evictedBy === null)).toBe(true);
  });

  it("Scenario: Index reset after compaction — Sylk's ordinals do not shift when messages leave the window, so the next observation starts after the last observed one and nothing is observed twice", async () => {
    const recorder = startSession();
    await converse(recorder, 6);
    const contextManager = manager();
    const observing = buffer({
      sessionId: recorder.session.id,
      rows: () => recorder.rows(),
      compact: (through, summary) => contextManager.compactObserved(recorder, through, 1_000, summary),
    });
    observing.signal();
    await observing.settled();
    await converse(recorder, 6, 6);
    observing.signal();
    await observing.settled();
    const [first, second] = observations(recorder.session.id);
    expect(first?.metadata).toMatchObject({ first_ordinal: 0, last_ordinal: 11 });
    expect(second?.metadata).toMatchObject({ first_ordinal: 12, last_ordinal: 23 });
    expect(second?.content).toContain("PROMPT-6");
    expect(second?.content).not.toMatch(/PROMPT-[0-5]:/);
  });

  it("Scenario: Compact messages — the messages through the index leave the window behind one marker with the summary, first in the window; none is deleted", async () => {
    const recorder = startSession();
    await converse(recorder, 5);
    const contextManager = manager();
    const reference = await contextManager.compactObserved(recorder, 5, 1, "User discussed weather");
    expect(reference?.summary).toBe("User discussed weather");
    const messages = (await contextManager.prepare(recorder, 1_000)).messages;
    expect(JSON.stringify(messages[0])).toContain(`retrieve_context(ref_id=\\"${reference?.id}\\")`);
    const window = JSON.stringify(messages);
    for (const gone of ["PROMPT-0", "ANSWER-0", "PROMPT-1", "ANSWER-1", "PROMPT-2", "ANSWER-2"]) expect(window).not.toContain(gone);
    for (const kept of ["PROMPT-3", "ANSWER-3", "PROMPT-4", "ANSWER-4"]) expect(window).toContain(kept);
    expect(
      recorder
        .rows()
        .filter((row) => row.evictedBy === reference?.id)
        .map((row) => row.ordinal),
    ).toEqual([0, 1, 2, 3, 4, 5]);
    expect(recorder.rows()).toHaveLength(10);
  });

  it("Scenario: Compact with no messages to delete — with nothing observed (or all of it within the kept budget) no marker is made and the window is unchanged (Sylk inserts no summary that stands for nothing)", async () => {
    const recorder = startSession();
    await converse(recorder, 3);
    const contextManager = manager();
    const before = await windowText(recorder, contextManager);
    expect(await contextManager.compactObserved(recorder, -1, 1, "User discussed weather")).toBeUndefined();
    expect(await contextManager.compactObserved(recorder, 5, 1_000_000, "User discussed weather")).toBeUndefined();
    expect(await windowText(recorder, contextManager)).toBe(before);
  });
});

describe("observational memory: reflections", () => {
  it("Scenario: Default consolidation threshold, and Meta-reflection triggered — four reflections of a generation are left alone, the fifth makes a pass consolidate them", async () => {
    expect(OBSERVATION_DEFAULTS.reflectionConsolidationThreshold).toBe(5);
    const observer = fakeObserver(() => "- All of them, condensed.");
    for (let index = 0; index < 4; index++)
      await note("m1", "reflection", `- reflection ${index}`, 1_000 + index, { generation: 1, last_ordinal: index });
    const reflecting = buffer({ sessionId: "m1", rows: () => [], observer });
    reflecting.signal();
    await reflecting.settled();
    expect(observer.prompts).toEqual([]);
    await note("m1", "reflection", "- reflection 4", 1_004, { generation: 1, last_ordinal: 4 });
    reflecting.signal();
    await reflecting.settled();
    expect(observer.prompts).toHaveLength(1);
    expect(observer.prompts[0]).toMatch(/^Condense these reflections/);
    expect(reflections("m1").at(-1)).toMatchObject({ content: "- All of them, condensed.", metadata: { generation: 2 } });
  });

  it("Scenario: Meta-reflection failure is non-fatal — it is reported, the pass's observation stands, no reflection is lost, and the next pass tries again", async () => {
    const reports: string[] = [];
    const observer = fakeObserver((prompt) => {
      if (prompt.startsWith("Condense these reflections")) throw new Error("overloaded");
      return "- The billing retry limit was tuned.";
    });
    for (let index = 0; index < 5; index++)
      await note("m2", "reflection", `- reflection ${index}`, 1_000 + index, { generation: 1, last_ordinal: index });
    const conversation = rows(LONG.map((line, index) => text(index % 2 === 0 ? "user" : "assistant", line))).map((row) => ({
      ...row,
      ordinal: row.ordinal + 10,
    }));
    const reflecting = buffer({ sessionId: "m2", rows: () => conversation, observer, reports });
    reflecting.signal();
    await reflecting.settled();
    expect(reports).toEqual(["Observational memory could not consolidate its reflections: overloaded"]);
    expect(observations("m2").map((entry) => entry.content)).toEqual(["- The billing retry limit was tuned."]);
    expect(reflections("m2")).toHaveLength(5);
    reflecting.signal();
    await reflecting.settled();
    expect(observer.prompts.filter((prompt) => prompt.startsWith("Condense these reflections"))).toHaveLength(2);
  });

  it("Scenario: Retrieve limited recent reflections — the N most recent of the session, oldest first", async () => {
    for (let index = 0; index < 5; index++) await note("r1", "reflection", `- reflection ${index}`, 1_000 + index);
    await note("r2", "reflection", "- another session's", 2_000);
    expect(services.contentStore.recentOfType("r1", "reflection", 3).map((entry) => entry.content)).toEqual([
      "- reflection 2",
      "- reflection 3",
      "- reflection 4",
    ]);
  });
});

describe("knowledge: the context-aware request", () => {
  it("Scenario: System prompt augmentation — each model call of a run is sent the cached prompt, then what the latest prompt's keywords find, the runtime state and the session's memory", async () => {
    const session = await sessionWith({ SYLK_KNOWLEDGE_ENABLED: "true", SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true" });
    // Saved by an agent: what the prompt's keywords find. (The user's own notes stand in every prompt instead.)
    services.knowledge.save({
      layer: "user_knowledge",
      kind: "rule",
      key: "package manager",
      content: "Always use pnpm in this repository, never npm.",
      source: "agent",
    });
    services.knowledge.save({
      layer: "user_knowledge",
      kind: "fact",
      key: "deployment",
      content: "Deployments go through the kubernetes staging cluster first.",
      source: "agent",
    });
    server.enqueue(reply().toolUse("search_knowledge", { query: "unrelated words" }, "toolu_1"), reply().text("pnpm install"));
    await ask(session, "How do I install the dependencies with the package manager?");
    await note(session.sessionId, "observation", "- OBSERVATION-NOTE: the user installs with pnpm.", 1_000);
    server.enqueue(reply().text("Staging first."));
    await ask(session, "Where do deployments go first on kubernetes?");
    const bodies = requestBodies();
    expect(bodies).toHaveLength(3);
    const [first, afterTool, next] = bodies.map((body) => body.system);
    const base = first[0].text;
    for (const system of [first, afterTool, next]) {
      expect(system).toHaveLength(2);
      expect(system[0]).toEqual({ type: "text", text: base, cache_control: { type: "ephemeral" } });
      expect(system[1].cache_control).toBeUndefined();
      expect(system[1].text.startsWith(`## Runtime Context\n- Session: ${session.sessionId} | Active tools: `)).toBe(true);
    }
    // The query is the user's prompt, also on the call after a tool result.
    for (const system of [first, afterTool]) {
      expect(system[1].text).toContain("package manager: Always use pnpm");
      expect(system[1].text).not.toContain("kubernetes");
    }
    expect(next[1].text).toContain("deployment: Deployments go through the kubernetes staging cluster first.");
    expect(next[1].text).not.toContain("pnpm in this repository");
    expect(next[1].text).toMatch(/## Conversation Memory\n\n### Observations\n.*OBSERVATION-NOTE: the user installs with pnpm\./);
    await session.settleMemory();
    session.close();
  });
});
