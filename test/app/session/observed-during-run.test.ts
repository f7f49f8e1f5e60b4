import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentResult } from "../../../src/agent/agent-events.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import type { AgentSession } from "../../../src/app/session/agent-session-types.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { resolveProjectPaths } from "../../../src/project/project-paths.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer, type ReplyBuilder } from "../../helpers/fake-anthropic-server.js";
import { drain } from "../../helpers/drain.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * Observational memory observes a run as it goes: the run's model calls and
 * the observer's go to the fake Messages API, the notes to the real store.
 */
let project: TempProject;
let services: ProjectServices;
let server: FakeAnthropicServer;

/** Twelve source files of about 1,600 tokens each, as a run that reads its way through a module sees them. */
const FILES = Object.fromEntries(
  Array.from({ length: 12 }, (_, index) => [
    `src/part-${index}.ts`,
    Array.from({ length: 80 }, (_, line) => `export const value${index}_${line} = computeTheValueFor(${index}, ${line}); // part\n`).join(
      "",
    ),
  ]),
);

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject(FILES);
});
afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

async function observingSession(): Promise<AgentSession> {
  const env = {
    ...project.env,
    ANTHROPIC_API_KEY: "test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_CONTEXT_PREFETCH: "false",
    SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true",
  };
  services = openProject({ root: project.root, env });
  return openAgentSession({ services, env });
}

const isObserver = (body: { messages: unknown }): boolean => JSON.stringify(body.messages).includes("Write a compressed observation");
const observations = (sessionId: string) => services.contentStore.recentOfType(sessionId, "observation", 50);

/** The run's model calls read the files three at a time, then answer; each call is told when it arrived. */
function runReplies(): ReplyBuilder[] {
  const reads = Array.from({ length: 4 }, (_, call) =>
    [0, 1, 2].reduce((built, file) => built.toolUse("read_file", { path: `src/part-${call * 3 + file}.ts` }), reply()),
  );
  return [...reads, reply().text("The twelve parts each export eighty computed values.")];
}

interface Arrival {
  observer: boolean;
  at: number;
  /** Observations stored when the request arrived. */
  stored: number;
}

/** Answers the run's calls in order and each observer call with `observerReply`, whichever comes first, recording when each arrived. */
function route(sessionId: () => string, observerReply: (index: number) => ReplyBuilder): Arrival[] {
  const run = runReplies();
  const arrivals: Arrival[] = [];
  let observerCalls = 0;
  for (let slot = 0; slot < 20; slot++) {
    server.enqueue((body) => {
      const observer = isObserver(body);
      arrivals.push({ observer, at: Date.now(), stored: observations(sessionId()).length });
      return observer ? observerReply(observerCalls++) : (run.shift() ?? reply().text("Done."));
    });
  }
  return arrivals;
}

async function ask(session: AgentSession, prompt: string): Promise<AgentResult> {
  return (await drain(session.run(prompt, new AbortController().signal))).result;
}

describe("observational memory during a run", () => {
  it("a run that reads twelve large files is observed before it ends: the observations exist by the time its last model call is made", async () => {
    const session = await observingSession();
    const arrivals = route(
      () => session.sessionId,
      (index) => reply().text(`- Observation ${index}: the agent read the parts of src/ one after another.`),
    );
    const result = await ask(session, "Read the parts under src/ and tell me what they export.");
    expect(result.stopReason).toBe("end_turn");
    const runCalls = arrivals.filter((arrival) => !arrival.observer);
    expect(runCalls).toHaveLength(5);
    expect(arrivals.some((arrival) => arrival.observer && arrival.at < (runCalls.at(-1)?.at ?? 0))).toBe(true);
    expect(runCalls.at(-1)?.stored).toBeGreaterThan(0);
    const [first] = observations(session.sessionId);
    // What the note says it covers: messages of this run, from its prompt on.
    expect(first?.metadata).toMatchObject({ first_ordinal: 0, observer: expect.stringMatching(/^anthropic:/) });
    // The window was the run's while it lasted: its last call still carried every file it read.
    const bodies = server.requests.filter((request) => request.body?.messages && !isObserver(request.body)).map((request) => request.body);
    expect(JSON.stringify(bodies.at(-1)?.messages)).not.toContain("[CTX-REF:");
    expect(JSON.stringify(bodies.at(-1)?.messages)).toContain("value0_79");
    // Once the run has released it, the observed reads leave it behind one marker summarised by the observation.
    await session.settleMemory();
    await ask(session, "Which part came first?");
    const next = server.requests.filter((request) => request.body?.messages && !isObserver(request.body)).at(-1)?.body;
    expect(JSON.stringify(next.messages)).toContain("[CTX-REF:");
    expect(JSON.stringify(next.messages)).not.toContain("value0_79");
    session.close();
  });

  it("the observer's slow call does not delay the run's next model call: the run ends while it is still unanswered", async () => {
    const session = await observingSession();
    const arrivals = route(
      () => session.sessionId,
      () => reply().text("- The agent read the parts of src/.").delayMs(3_000),
    );
    await ask(session, "Read the parts under src/ and tell me what they export.");
    const ended = Date.now();
    const firstObserverCall = arrivals.find((arrival) => arrival.observer);
    expect(firstObserverCall).toBeDefined();
    const after = arrivals.filter((arrival) => !arrival.observer && arrival.at >= (firstObserverCall?.at ?? 0));
    expect(after.length).toBeGreaterThan(0);
    // Three seconds of the observer's answer would show here if the run waited for it.
    expect(ended - (firstObserverCall?.at ?? 0)).toBeLessThan(2_000);
    expect(observations(session.sessionId)).toEqual([]);
    await session.settleMemory();
    expect(observations(session.sessionId).length).toBeGreaterThan(0);
    session.close();
  });

  it("closing mid-observation cancels the observer's call, writes nothing half done and keeps what was recorded before", async () => {
    const session = await observingSession();
    route(
      () => session.sessionId,
      (index) => (index === 0 ? reply().text("- The agent began reading the parts of src/.") : reply().hang()),
    );
    await ask(session, "Read the parts under src/ and tell me what they export.");
    const sessionId = session.sessionId;
    const kept = observations(sessionId).map((entry) => entry.content);
    expect(kept).toEqual(["- The agent began reading the parts of src/."]);
    session.close();
    // The hanging call was cancelled: nothing is left running to wait for.
    const closing = Date.now();
    await session.settleMemory();
    expect(Date.now() - closing).toBeLessThan(2_000);
    await services.close();

    const database = new Database(resolveProjectPaths(project.root, project.env).database, { readonly: true });
    expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
    database.close();
    services = openProject({ root: project.root, env: project.env });
    expect(observations(sessionId).map((entry) => entry.content)).toEqual(kept);
  });
});
