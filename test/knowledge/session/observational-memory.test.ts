import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { parseMemoryRequest, runMemoryRequest } from "../../../src/knowledge/session/memory-commands.js";
import { ObservationBuffer } from "../../../src/knowledge/session/observation-buffer.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import type { ModelProvider } from "../../../src/llm/model-types.js";
import type { SessionMessageRow } from "../../../src/store/session-repository.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { drain } from "../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** Observational memory's scenarios for the observer, the reflector and the memory store, through the real store. */
let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

function rows(texts: string[]): SessionMessageRow[] {
  return texts.map((text, ordinal) => ({
    ordinal,
    message: { role: ordinal % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text }] },
    turn: ordinal,
    entryIds: [],
    evictedBy: null,
  }));
}

const LONG = Array.from(
  { length: 60 },
  (_, index) => `We decided to keep the retry limit at ${index} for the billing worker in src/billing/retry.ts.`,
);

function buffer(sessionId: string, messages: SessionMessageRow[], observer?: ModelProvider, reports: string[] = []) {
  return new ObservationBuffer({
    store: services.contentStore,
    sessionId,
    rows: () => messages,
    observer,
    settings: { messageTokenThreshold: 1_000, observationTokenThreshold: 2_000 },
    report: (message) => reports.push(message),
  });
}

/** A model that answers every request with the same text, or fails. */
function fakeObserver(answer: string | Error): ModelProvider & { calls: number } {
  return {
    name: "fake",
    model: "observer-1",
    contextWindow: 100_000,
    calls: 0,
    async *stream() {
      this.calls++;
      if (answer instanceof Error) throw answer;
      yield {
        type: "complete",
        response: {
          content: [{ type: "text", text: answer }],
          stopReason: "end_turn",
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
          model: "observer-1",
        },
      } as const;
    },
  };
}

describe("observational memory", () => {
  it("Scenario: Observation trigger on token threshold — observes once un-observed messages pass 1,000 tokens, with its index range and tokens", async () => {
    const short = buffer("s1", rows(["A short question.", "A short answer."]));
    short.signal();
    await short.settled();
    expect(services.contentStore.recentOfType("s1", "observation", 10)).toEqual([]);

    const long = buffer("s1", rows(LONG));
    long.signal();
    await long.settled();
    const [observation] = services.contentStore.recentOfType("s1", "observation", 10);
    expect(observation?.metadata).toMatchObject({ first_ordinal: 0, last_ordinal: 59, observer: "extractive" });
    expect(observation?.content).toMatch(/^- User: We decided to keep the retry limit at 0/);
    // What was observed is not observed again.
    long.signal();
    await long.settled();
    expect(services.contentStore.recentOfType("s1", "observation", 10)).toHaveLength(1);
  });

  it("Scenario: Observation trigger on token threshold — tool results count as the window holds them; the note names the calls, not their output", async () => {
    const output = "export const PART_OUTPUT_ONLY = 1;\n".repeat(400);
    const reading: SessionMessageRow[] = [
      { role: "user", content: [{ type: "text", text: "Read the parser module." }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "src/parser/module.ts" } }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "t1", content: output, isError: false }] },
    ].map((message, ordinal) => ({ ordinal, message: message as SessionMessageRow["message"], turn: 1, entryIds: [], evictedBy: null }));
    const observing = buffer("s7", reading);
    observing.signal();
    await observing.settled();
    const [observation] = services.contentStore.recentOfType("s7", "observation", 10);
    expect(observation?.metadata).toMatchObject({ first_ordinal: 0, last_ordinal: 2 });
    expect(observation?.content).toContain('(called read_file {"path":"src/parser/module.ts"})');
    expect(observation?.content).not.toContain("PART_OUTPUT_ONLY");
  });

  it("Graceful shutdown — closing without waiting cancels the observer's call under way: nothing is written, nothing reported", async () => {
    const reports: string[] = [];
    let aborted = false;
    const hanging: ModelProvider = {
      name: "fake",
      model: "observer-1",
      contextWindow: 100_000,
      async *stream(_request, signal) {
        await new Promise((_, reject) =>
          signal?.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          }),
        );
      },
    };
    const observing = buffer("s8", rows(LONG), hanging, reports);
    observing.signal();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await observing.close(0);
    expect(aborted).toBe(true);
    expect(services.contentStore.recentOfType("s8", "observation", 10)).toEqual([]);
    expect(reports).toEqual([]);
  });

  it("Scenario: Observer uses configurable LLM, and Observer failure graceful degradation — a failed call is reported and tried again at the next trigger", async () => {
    const reports: string[] = [];
    const failing = fakeObserver(new Error("overloaded"));
    const first = buffer("s2", rows(LONG), failing, reports);
    first.signal();
    await first.settled();
    expect(reports).toEqual(["Observational memory: overloaded; it tries again after the next turn."]);
    expect(services.contentStore.recentOfType("s2", "observation", 10)).toEqual([]);
    const working = fakeObserver("- The billing retry limit was discussed.");
    const second = buffer("s2", rows(LONG), working, reports);
    second.signal();
    await second.settled();
    expect(working.calls).toBe(1);
    expect(services.contentStore.recentOfType("s2", "observation", 10)[0]).toMatchObject({
      content: "- The billing retry limit was discussed.",
      metadata: { observer: "fake:observer-1" },
    });
  });

  it("Scenario: Reflection trigger on observation token threshold, and Observation replacement after reflection", async () => {
    const long = "- A long observation line about the retry worker and its limits, kept for the test. ".repeat(120);
    await services.contentStore.indexContents([
      {
        sessionId: "s3",
        agentId: "observer",
        agentType: "observer",
        contentType: "observation",
        content: long,
        turnNumber: 0,
        metadata: { last_ordinal: 9 },
      },
    ]);
    const reflecting = buffer("s3", rows(["hi", "there"]), fakeObserver("- Reflection: the retry worker's limits."));
    reflecting.signal();
    await reflecting.settled();
    expect(services.contentStore.recentOfType("s3", "observation", 10)).toEqual([]);
    expect(services.contentStore.recentOfType("s3", "reflection", 10)[0]).toMatchObject({
      content: "- Reflection: the retry worker's limits.",
      metadata: { generation: 1, last_ordinal: 9 },
    });
  });

  it("Scenario: Multi-generation reflections — five reflections of a generation are condensed into one of the next", async () => {
    for (let index = 0; index < 5; index++) {
      await services.contentStore.indexContents([
        {
          sessionId: "s4",
          agentId: "observer",
          agentType: "observer",
          contentType: "reflection",
          content: `- reflection ${index}`,
          turnNumber: 0,
          metadata: { generation: 1, last_ordinal: index },
        },
      ]);
    }
    const meta = buffer("s4", rows(["hi"]), fakeObserver("- All five, condensed."));
    meta.signal();
    await meta.settled();
    const latest = services.contentStore.recentOfType("s4", "reflection", 10).at(-1);
    expect(latest).toMatchObject({ content: "- All five, condensed.", metadata: { generation: 2, last_ordinal: 4 } });
  });

  it("Scenario: Delete all reflections for a session, and Delete from empty session (and the same for observations)", async () => {
    for (const session of ["a", "b"]) {
      await services.contentStore.indexContents([
        {
          sessionId: session,
          agentId: "observer",
          agentType: "observer",
          contentType: "reflection",
          content: `- reflection of ${session}`,
          turnNumber: 0,
        },
        {
          sessionId: session,
          agentId: "observer",
          agentType: "observer",
          contentType: "observation",
          content: `- observation of ${session}`,
          turnNumber: 0,
        },
      ]);
    }
    expect(services.contentStore.deleteDerived("a", "reflection")).toBe(1);
    expect(services.contentStore.recentOfType("a", "reflection", 10)).toEqual([]);
    expect(services.contentStore.recentOfType("b", "reflection", 10)).toHaveLength(1);
    expect(services.contentStore.recentOfType("a", "observation", 10)).toHaveLength(1);
    expect(services.contentStore.deleteDerived("empty", "reflection")).toBe(0);
    expect(services.contentStore.deleteDerived("a", "observation")).toBe(1);
    expect((await services.contentStore.search("observation of a", {}, 10)).hits.map((hit) => hit.entry.content)).not.toContain(
      "- observation of a",
    );
  });

  it("Scenario: Retrieve limited recent observations — the N most recent, oldest first", async () => {
    for (let index = 0; index < 5; index++) {
      await services.contentStore.indexContents([
        {
          sessionId: "s5",
          agentId: "observer",
          agentType: "observer",
          contentType: "observation",
          content: `- note ${index}`,
          turnNumber: 0,
          timestamp: 1_000 + index,
        },
      ]);
    }
    expect(services.contentStore.recentOfType("s5", "observation", 3).map((entry) => entry.content)).toEqual([
      "- note 2",
      "- note 3",
      "- note 4",
    ]);
  });
});

describe("observational memory, end to end", () => {
  let server: FakeAnthropicServer;
  beforeEach(async () => {
    server = await startFakeAnthropicServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("a long session produces an observation through the observer's model call, and later requests carry it under ## Conversation Memory", async () => {
    const env = {
      ...project.env,
      ANTHROPIC_API_KEY: "test",
      ANTHROPIC_BASE_URL: server.baseUrl,
      SYLK_MODEL_MAX_ATTEMPTS: "1",
      SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true",
      SYLK_OBSERVATIONAL_MEMORY_MAX_MESSAGE_TOKEN_BUDGET: "500",
      // Prefetch would bring the evicted prompt back as relevant history: this test is about the window's compaction.
      SYLK_CONTEXT_PREFETCH: "false",
    };
    await services.close();
    services = openProject({ root: project.root, env });
    const session = openAgentSession({ services, env });
    const isObserver = (body: any) => JSON.stringify(body.messages).includes("Write a compressed observation");
    for (let index = 0; index < 12; index++) {
      server.enqueue(
        (body: any) =>
          (isObserver(body)
            ? reply().text("- The user is tuning the billing retry limit; it is 12 now.")
            : reply().text(`Noted ${LONG.slice(0, 3).join(" ")}`)) as never,
      );
    }
    const ask = async (prompt: string) => {
      return (await drain(session.run(prompt, new AbortController().signal))).result;
    };
    await ask(LONG.join(" "));
    await session.settleMemory();
    const observerRequests = messageRequests(server).filter((request) => isObserver(request.body));
    expect(observerRequests).toHaveLength(1);
    await ask("What is the retry limit now?");
    const last = messageRequests(server).at(-1)?.body as any;
    expect(last.system).toHaveLength(2);
    expect(last.system[1].text).toContain("## Conversation Memory");
    expect(last.system[1].text).toContain("The user is tuning the billing retry limit; it is 12 now.");
    // The observed messages left the window behind a marker summarised by the observation; they stay stored.
    expect(JSON.stringify(last.messages)).toContain("[CTX-REF:");
    expect(JSON.stringify(last.messages)).not.toContain("retry limit at 41 for the billing worker");
    const marker = /retrieve_context\(ref_id=\\"([0-9a-f]{8})\\"\)/.exec(JSON.stringify(last.messages))?.[1] as string;
    expect(services.contentStore.getReference(marker)?.summary).toBe("Observed: The user is tuning the billing retry limit; it is 12 now.");
    const originals = services.contentStore
      .getByIds(services.contentStore.getReference(marker)?.contentIds ?? [])
      .map((entry) => entry.content)
      .join("\n");
    expect(originals).toContain("retry limit at 41 for the billing worker");
    // sylk memory / /memory show it.
    const listed = runMemoryRequest(services, parseMemoryRequest(["list", "observations"]));
    expect(listed.lines.join("\n")).toContain("The user is tuning the billing retry limit; it is 12 now.");
    // search_history finds the observation: it is an entry of the session.
    expect((await services.contentStore.search("billing retry limit tuning", { contentTypes: ["observation"] }, 5)).hits).toHaveLength(1);
    session.close();
  });
});
