import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
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

function startSession(title: string): SessionRecorder {
  return SessionRecorder.start(
    {
      sessions: kit.services.sessions,
      contentStore: kit.services.contentStore,
      identity: { agentId: "engineer-1", agentType: "engineer" },
    },
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

const decisionEntries = () => kit.services.entries.chronological({ contentTypes: ["agent_message"], metadataKinds: ["decision"] }, 1_000);
/** The meta flag the backfill sets, read from the database itself. */
const backfilledFlag = () => withProjectDatabase(kit.services.paths, (db) => getMeta(db, DECISIONS_BACKFILLED));

describe("decisions as entries", () => {
  it("records each decision todo_write adds once, as an agent_message of kind decision with its agent and turn", async () => {
    const recorder = startSession("Parser work");
    await recorder.recordPrompt("Fix the parser", recorder.nextTurn());
    const todo = todoTool(recorder);
    await kit.call(todo, {
      todos: [{ content: "Read the parser", status: "in_progress" }],
      decisions: ["Keep the v1 API: external callers"],
    });
    recorder.nextTurn();
    await kit.call(todo, {
      todos: [{ content: "Read the parser", status: "done" }],
      decisions: ["Keep the v1 API: external callers", "Parse lazily: files are large"],
    });

    const entries = decisionEntries();
    expect(entries.map((entry) => [entry.content, entry.agentId, entry.agentType, entry.turnNumber, entry.sessionId])).toEqual([
      ["Keep the v1 API: external callers", "engineer-1", "engineer", 1, recorder.session.id],
      ["Parse lazily: files are large", "engineer-1", "engineer", 2, recorder.session.id],
    ]);
    expect(entries[0]?.metadata).toMatchObject({ kind: "decision", source: "todo_write" });
    expect(kit.services.handoffs.taskList(recorder.session.id)?.decisions).toHaveLength(2);
  });

  it("backfills older sessions' task lists once, under the agent the session last recorded as", async () => {
    const older = startSession("Old");
    await older.recordPrompt("Start", older.nextTurn());
    older.switchAgent({ agentId: "engineer-2", agentType: "engineer" });
    await older.recordPrompt("Go on", older.nextTurn());
    kit.services.handoffs.saveTaskList(older.session.id, {
      items: [],
      decisions: ["Ship without a cache", "Ship without a cache", "Log to stderr"],
      blockers: [],
    });
    kit.services.handoffs.saveTaskList("no-entries-session", { items: [], decisions: ["Orphan decision"], blockers: [] });
    kit.services.handoffs.saveTaskList("empty", { items: [], decisions: [], blockers: [] });

    const backfill = kit.services.decisions;
    expect(await backfill.backfillOnce()).toBe(3);
    expect(backfilledFlag()).toMatch(/^\d{4}-/);
    expect(decisionEntries().map((entry) => [entry.content, entry.agentId, entry.turnNumber, entry.metadata.backfilled])).toEqual([
      ["Ship without a cache", "engineer-2", 2, true],
      ["Log to stderr", "engineer-2", 2, true],
      ["Orphan decision", "unknown", 0, true],
    ]);
    expect(await backfill.backfillOnce()).toBe(0);
    expect(await kit.services.decisions.backfillOnce()).toBe(0);
    expect(decisionEntries()).toHaveLength(3);
  });
});
