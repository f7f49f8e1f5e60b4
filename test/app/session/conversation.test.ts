import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../../../src/agent/agent-events.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { Conversation } from "../../../src/app/session/conversation.js";
import { openAgentSession } from "../../../src/app/session/open-agent-session.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** A conversation's id is a plain value from the start; its session is stored with its first prompt, under that id. */
let project: TempProject;
let services: ProjectServices;

beforeEach(async () => {
  project = createTempProject({ "src/retry.ts": "export const RETRY_LIMIT = 12;\n" });
  services = openProject({ root: project.root, env: project.env });
  const run = services.indexer.run();
  for (let step = await run.next(); !step.done; step = await run.next());
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

const deps = () => ({
  sessions: services.sessions,
  contentStore: services.contentStore,
  identity: { agentId: "engineer-1", agentType: "engineer" },
});
const origin = { provider: "none", model: "index-only" };

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>): Promise<AgentResult> {
  let step = await run.next();
  while (!step.done) step = await run.next();
  return step.value;
}

describe("Conversation", () => {
  it("has its id before anything is stored, and its first prompt stores the session under that id, titled by it", () => {
    const conversation = Conversation.begin(deps(), origin);
    expect(conversation.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(conversation.started).toBe(false);
    expect(conversation.recorder).toBeUndefined();
    expect(conversation.agentId).toBe("engineer-1");
    expect(conversation.currentTurn).toBe(0);
    expect(services.sessions.get(conversation.id)).toBeUndefined();

    const recorder = conversation.record("Where is the retry limit?");
    expect(conversation.started).toBe(true);
    expect(recorder.session.id).toBe(conversation.id);
    expect(services.sessions.get(conversation.id)).toMatchObject({
      title: "Where is the retry limit?",
      provider: "none",
      model: "index-only",
    });
    // Later prompts go on in the same session, whose title stays the first prompt's.
    expect(conversation.record("And the backoff?")).toBe(recorder);
    expect(services.sessions.list(10).map((session) => session.id)).toEqual([conversation.id]);
  });

  it("resumed, it is the stored session, started, with its turns", () => {
    const first = Conversation.begin(deps(), origin);
    first.record("Where is the retry limit?").nextTurn();
    const record = services.sessions.get(first.id);
    expect(record).toBeDefined();
    const resumed = Conversation.resume(deps(), origin, record!);
    expect(resumed.id).toBe(first.id);
    expect(resumed.started).toBe(true);
    expect(resumed.recorder?.session.id).toBe(first.id);
  });
});

describe("an agent session's id", () => {
  it("is known before its first prompt, is the one that prompt is stored under, and a session left without one leaves nothing", async () => {
    const unused = openAgentSession({ services, env: project.env });
    expect(unused.started).toBe(false);
    unused.close();
    expect(services.sessions.list(10)).toEqual([]);

    const session = openAgentSession({ services, env: project.env });
    const id = session.sessionId;
    const result = await drain(session.run("Where is the retry limit?", new AbortController().signal));
    expect(result.sessionId).toBe(id);
    expect(session.sessionId).toBe(id);
    expect(session.started).toBe(true);
    expect(services.sessions.list(10).map((stored) => stored.id)).toEqual([id]);
    session.close();

    const resumed = openAgentSession({ services, env: project.env, resume: { latest: true } });
    expect(resumed.sessionId).toBe(id);
    expect(resumed.started).toBe(true);
    resumed.close();
  });
});
