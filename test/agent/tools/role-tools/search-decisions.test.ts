import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
import { createSearchDecisionsTool } from "../../../../src/agent/tools/role-tools/search-decisions.js";
import { SessionHandoff } from "../../../../src/handoff/session/session-handoff.js";
import { UserProfiles } from "../../../../src/app/user-profiles.js";
import { configDefaults } from "../../../../src/config/defaults.js";
import { DECISIONS_BACKFILLED } from "../../../../src/content-store/decision-entries.js";
import { getMeta } from "../../../../src/store/database.js";
import { withProjectDatabase } from "../../../helpers/project-database.js";
import { openRoleToolKit, type RoleToolKit } from "./role-tool-kit.js";

let kit: RoleToolKit;
beforeEach(() => {
  kit = openRoleToolKit();
});
afterEach(async () => {
  await kit.close();
});

function startSession(title: string, identity = { agentId: "engineer-1", agentType: "engineer" }): SessionRecorder {
  return SessionRecorder.start(
    { sessions: kit.services.sessions, contentStore: kit.services.contentStore, identity },
    { title, provider: "anthropic", model: "claude-fake" },
  );
}

/** todo_write as the agent session builds it: the list kept with the session, decisions also entries. */
function todoTool(recorder: SessionRecorder) {
  const handoff = new SessionHandoff(kit.services, configDefaults(), () => recorder.session.id, new UserProfiles(kit.project.sylkHome), {
    type: "engineer",
    recording: () => ({ ...recorder.agent, turn: recorder.currentTurn }),
  });
  return handoff.todoTool();
}

function decisionsTool(sessionId: () => string, available = 10_000) {
  return createSearchDecisionsTool({
    contentStore: kit.services.contentStore,
    entries: kit.services.entries,
    sessions: kit.services.sessions,
    decisions: kit.services.decisions,
    sessionId,
    availableTokens: () => available,
  });
}

const decisionEntries = () => kit.services.entries.chronological({ contentTypes: ["agent_message"], metadataKinds: ["decision"] }, 1_000);
/** The meta flag the backfill sets, read from the database itself. */
const backfilledFlag = () => withProjectDatabase(kit.services.paths, (db) => getMeta(db, DECISIONS_BACKFILLED));

describe("search_decisions", () => {
  it("backfills the task lists of older sessions once, and search_decisions finds them", async () => {
    // A session recorded before decisions were entries: its decisions live only in task_lists.
    const older = startSession("Storage layer", { agentId: "architect-2", agentType: "architect" });
    await older.recordPrompt("Pick a storage engine", older.nextTurn());
    kit.services.handoffs.saveTaskList(older.session.id, {
      items: [],
      decisions: ["Use SQLite in WAL mode: one writer, many readers"],
      blockers: [],
    });
    // One whose decision is already an entry is not copied twice.
    const mixed = startSession("Mixed");
    kit.services.handoffs.saveTaskList(mixed.session.id, {
      items: [],
      decisions: ["Vendor the tokenizer", "Drop Windows 7"],
      blockers: [],
    });
    await kit.services.decisions.record({ sessionId: mixed.session.id, agentId: "engineer-1", agentType: "engineer", turnNumber: 1 }, [
      "Vendor the tokenizer",
    ]);
    expect(backfilledFlag()).toBeUndefined();

    const current = startSession("Today");
    const result = await kit.call(
      decisionsTool(() => current.session.id),
      { query: "storage engine SQLite" },
    );
    expect(backfilledFlag()).toBeDefined();
    expect(result.output).toMatch(/^source: decisions · \d+ results · tokens: \d+ · truncated: false · scope: every session/);
    const first = result.output.split("\n").slice(1, 3).join("\n");
    expect(first).toMatch(
      /^- \d{4}-\d\d-\d\d \d\d:\d\d · "Storage layer" · session [0-9a-f-]{36} · architect-2 \(architect\) · todo_write decision · entry /,
    );
    expect(first).toContain("\n  Use SQLite in WAL mode: one writer, many readers");

    expect(
      decisionEntries()
        .map((entry) => entry.content)
        .sort(),
    ).toEqual(["Drop Windows 7", "Use SQLite in WAL mode: one writer, many readers", "Vendor the tokenizer"]);
    // Runs once: a task list written later (by an old process) is not copied, and nothing doubles.
    kit.services.handoffs.saveTaskList(current.session.id, { items: [], decisions: ["Written without an entry"], blockers: [] });
    expect(await kit.services.decisions.backfillOnce()).toBe(0);
    await kit.call(
      decisionsTool(() => current.session.id),
      { query: "storage" },
    );
    expect(decisionEntries()).toHaveLength(3);
  });

  it("searches this session only when cross_session is false", async () => {
    const older = startSession("Old");
    await kit.services.decisions.record({ sessionId: older.session.id, agentId: "engineer-1", agentType: "engineer", turnNumber: 1 }, [
      "Cache parsed files by content hash",
    ]);
    const current = startSession("New");
    await current.recordPrompt("Speed it up", current.nextTurn());
    await kit.call(todoTool(current), { todos: [], decisions: ["Cache nothing across runs"] });
    const tool = decisionsTool(() => current.session.id);

    const everywhere = await kit.call(tool, { query: "cache" });
    expect(everywhere.output).toContain("content hash");
    expect(everywhere.output).toContain("across runs");

    const here = await kit.call(tool, { query: "cache", cross_session: false });
    expect(here.output).toMatch(/scope: this session/);
    expect(here.output).toContain('"New"');
    expect(here.output).toContain("Cache nothing across runs");
    expect(here.output).not.toContain("content hash");

    const noSession = await kit.call(
      decisionsTool(() => ""),
      { query: "cache", cross_session: false },
    );
    expect(noSession.output).toContain("This session has recorded nothing yet, so it has no decisions.");
  });

  it("finds key_decisions and design_decisions in handoff and plan states, once per session", async () => {
    const session = startSession("Auth rework");
    const store = kit.services.contentStore;
    const base = { sessionId: session.session.id, agentId: "engineer-1", agentType: "engineer", turnNumber: 5 };
    await kit.services.decisions.record(base, ["Rotate session tokens on login"]);
    await store.indexContent({
      ...base,
      contentType: "agent_handoff",
      content: JSON.stringify({
        agent_type: "engineer",
        key_decisions: ["Rotate session tokens on login", "Store token hashes, never tokens"],
        remaining: [],
      }),
    });
    await store.indexContent({
      ...base,
      agentId: "architect-1",
      agentType: "architect",
      contentType: "plan_workflow",
      content: JSON.stringify({ summary: "plan", design_decisions: ["Token lifetime is 15 minutes"], steps: [] }),
    });
    const result = await kit.call(
      decisionsTool(() => session.session.id),
      { query: "session token" },
    );
    expect(result.output.match(/Rotate session tokens on login/g)).toHaveLength(1);
    expect(result.output).toContain("handoff key_decisions · entry");
    expect(result.output).toContain("Store token hashes, never tokens");
    expect(result.output).toContain("architect-1 (architect) · plan design_decisions");
    expect(result.output).toContain("Token lifetime is 15 minutes");
  });

  it("cuts results at the token budget, and says plainly when no decision exists", async () => {
    const empty = await kit.call(
      decisionsTool(() => "s"),
      { query: "anything" },
    );
    expect(empty.output).toBe(
      "source: decisions · 0 results · tokens: 0 · truncated: false\nNo decisions are recorded in any session of this project. They come from todo_write's decisions and from handoff and plan states; none exist yet.",
    );

    const session = startSession("Many");
    const many = Array.from({ length: 30 }, (_, index) => `Decision ${index} about the renderer: ${"because ".repeat(20)}`);
    await kit.services.decisions.record(
      { sessionId: session.session.id, agentId: "engineer-1", agentType: "engineer", turnNumber: 1 },
      many,
    );
    const cut = await kit.call(
      decisionsTool(() => session.session.id, 250),
      { query: "renderer", max_results: 30, max_tokens: 6_000 },
    );
    expect(cut.output).toMatch(/^source: decisions · (\d+) results · tokens: (\d+) · truncated: true/);
    const [, shown, tokens] = /(\d+) results · tokens: (\d+)/.exec(cut.output) ?? [];
    expect(Number(shown)).toBeGreaterThan(0);
    expect(Number(shown)).toBeLessThan(30);
    expect(Number(tokens)).toBeLessThanOrEqual(250);
    expect(cut.output).toContain("More decisions did not fit");

    const none = await kit.call(
      decisionsTool(() => session.session.id),
      { query: "renderer", max_results: 30, max_tokens: 6_000 },
    );
    expect(none.output).toMatch(/^source: decisions · 30 results/);
  });
});
