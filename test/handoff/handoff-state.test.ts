import { describe, expect, it } from "vitest";
import { AGENT_TYPES, categoryOf, degradationActionOf, isAgentType } from "../../src/roles/agent-types.js";
import {
  buildHandoffState,
  isHandoffAgentType,
  renderHandoffState,
  type PreparedContextSnapshot,
} from "../../src/handoff/handoff-state.js";

const SNAPSHOT: PreparedContextSnapshot = {
  sessionId: "s-1",
  originalPrompt: "Add a --json flag to `sylk status`.\n\nKeep the text output as it is.",
  currentPrompt: "Now document it.",
  tasks: [
    { content: "Add the flag", status: "done" },
    { content: "Print JSON", status: "in_progress" },
    { content: "Write tests for the flag", status: "pending" },
  ],
  decisions: ["JSON goes to stdout, warnings to stderr"],
  blockers: ["tsc fails in unrelated file"],
  filesChanged: [
    { path: "src/cli/status.ts", action: "modify", description: "+12 −3 lines", lines_changed: 15 },
    { path: "test/status.test.ts", action: "create", description: "+40 −0 lines", lines_changed: 40 },
  ],
  toolErrors: ["edit_file: old_string was not found in src/cli/status.ts."],
  recentPrompts: [
    { turn: 1, text: "Add a --json flag to `sylk status`." },
    { turn: 9, text: "Now document it." },
  ],
};

describe("agent types", () => {
  it("classifies every agent type by its category", () => {
    const categories = Object.fromEntries(AGENT_TYPES.map((type) => [type, [categoryOf(type, "pipeline"), categoryOf(type, "main")]]));
    expect(categories).toEqual({
      librarian: ["knowledge", "knowledge"],
      archivalist: ["knowledge", "knowledge"],
      academic: ["knowledge", "knowledge"],
      architect: ["knowledge", "knowledge"],
      engineer: ["pipeline", "pipeline"],
      designer: ["pipeline", "pipeline"],
      inspector: ["pipeline", "standalone"],
      tester: ["pipeline", "standalone"],
      orchestrator: ["standalone", "standalone"],
      guide: ["standalone", "standalone"],
    });
    expect(degradationActionOf("knowledge")).toBe("evict");
    expect(degradationActionOf("pipeline")).toBe("handoff");
    expect(degradationActionOf("standalone")).toBe("handoff");
    expect(isAgentType("engineer")).toBe(true);
    expect(isAgentType("wizard")).toBe(false);
    expect(AGENT_TYPES.filter(isHandoffAgentType)).toEqual(["engineer", "designer", "inspector", "tester", "orchestrator", "guide"]);
  });
});

describe("handoff states", () => {
  const metadata = { handoffIndex: 2, reason: "below_peak", timestamp: Date.UTC(2026, 10, 25, 12) };

  it("round-trips through JSON for every type that hands off, with the type's fields and the original prompt verbatim", () => {
    for (const type of AGENT_TYPES.filter(isHandoffAgentType)) {
      const state = buildHandoffState(type, SNAPSHOT, metadata);
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
      expect(state).toMatchObject({
        agent_type: type,
        original_prompt: SNAPSHOT.originalPrompt,
        handoff_index: 2,
        handoff_reason: "below_peak",
        timestamp: "2026-11-25T12:00:00.000Z",
      });
    }
  });

  it("fills each type's structure from the prepared context", () => {
    expect(buildHandoffState("engineer", SNAPSHOT, metadata)).toMatchObject({
      task_id: "s-1",
      accomplished: ["Add the flag"],
      remaining: ["Print JSON", "Write tests for the flag"],
      files_changed: SNAPSHOT.filesChanged,
      key_decisions: SNAPSHOT.decisions,
      blockers_hit: SNAPSHOT.blockers,
    });
    expect(buildHandoffState("tester", SNAPSHOT, metadata)).toMatchObject({
      tests_created: [{ file: "test/status.test.ts", test_name: "", type: "unit" }],
      coverage_gaps: ["Print JSON", "Write tests for the flag"],
    });
    expect(buildHandoffState("orchestrator", SNAPSHOT, metadata)).toMatchObject({
      original_goal: SNAPSHOT.originalPrompt,
      pending_tasks: [
        { id: "task-2", description: "Print JSON", status: "in_progress" },
        { id: "task-3", description: "Write tests for the flag", status: "pending" },
      ],
      completed_tasks: [{ id: "task-1", description: "Add the flag", status: "completed" }],
    });
    expect(buildHandoffState("guide", SNAPSHOT, metadata)).toMatchObject({
      current_intent: "Now document it.",
      conversation_history: [
        { turn_number: 1, role: "user", summary: "Add a --json flag to `sylk status`." },
        { turn_number: 9, role: "user", summary: "Now document it." },
      ],
    });
    expect(buildHandoffState("designer", SNAPSHOT, metadata)).toMatchObject({
      components_created: ["test/status.test.ts"],
      design_decisions: SNAPSHOT.decisions,
    });
    expect(buildHandoffState("inspector", SNAPSHOT, metadata)).toMatchObject({
      checks_performed: ["Add the flag"],
      pending_issues: [{ description: "tsc fails in unrelated file" }],
    });
  });

  it("renders what the new instance's window starts with", () => {
    const state = buildHandoffState("engineer", SNAPSHOT, metadata);
    const text = renderHandoffState(state, SNAPSHOT, { from: "engineer-2", to: "engineer-3", referenceId: "abcd1234" });
    expect(text.split("\n")[0]).toBe(
      "[Handoff 2: you are engineer-3, a fresh instance of the engineer agent, continuing the work of engineer-2 (reason: below_peak). " +
        'Nothing was summarised away: everything said and done before the turns below is retrievable with retrieve_context(ref_id="abcd1234"), search_history or get_turn_range.]',
    );
    expect(text).toContain(`## Original prompt (verbatim)\n${SNAPSHOT.originalPrompt}\n\n## Current prompt (verbatim)\nNow document it.`);
    expect(text).toContain("[x] Add the flag\n[~] Print JSON\n[ ] Write tests for the flag");
    expect(text).toContain("## Key decisions\n- JSON goes to stdout, warnings to stderr");
    expect(text).toContain("## Blockers\n- tsc fails in unrelated file");
    expect(text).toContain("- src/cli/status.ts (modify, +12 −3 lines)\n- test/status.test.ts (create, +40 −0 lines)");
    expect(text).toContain("## Errors hit recently\n- edit_file: old_string was not found");
  });
});
