import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { createScreenReadModel, type ScreenReadModel } from "../../src/app/screen-read-model.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** The screen reads the project through plain values: here each answer is checked against what was stored. */

let project: TempProject;
let services: ProjectServices;
let screen: ScreenReadModel;

beforeEach(() => {
  project = createTempProject({ "a.ts": "export const a = 1;\n" });
  services = openProject({ root: project.root, env: { ...project.env, SYLK_CONTEXT_WINDOW_TOKENS: "9000" } });
  screen = createScreenReadModel(services, project.env);
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

/** A root session of two turns with one handoff, and a sub-agent's session under it. */
function storeConversation(): void {
  services.sessions.create({ id: "root-1", title: "Fix the parser", provider: "anthropic", model: "claude-sonnet-4-5" });
  services.sessions.appendMessage("root-1", { role: "user", content: [{ type: "text", text: "Fix the parser" }] });
  services.sessions.appendMessage("root-1", { role: "assistant", content: [{ type: "text", text: "Fixed." }] });
  services.sessions.recordTurn("root-1", { inputTokens: 1_000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 });
  services.sessions.create({
    id: "child-1",
    title: "Look for callers",
    provider: "anthropic",
    model: "claude-haiku-4-5",
    parent: { parentSessionId: "root-1", parentToolUseId: "toolu_1", agentId: "explorer-1", agentType: "explorer", kind: "delegate" },
  });
  const instance = {
    sessionId: "root-1",
    agentType: "engineer",
    model: "claude-sonnet-4-5",
    handoffEntryId: null,
    state: null,
    stateText: null,
    preparedFraction: null,
  };
  services.handoffs.startInstance({ ...instance, agentId: "engineer-1", handoffIndex: 0, startedAt: 1 });
  services.handoffs.startInstance({ ...instance, agentId: "engineer-2", handoffIndex: 1, startedAt: 2 });
}

describe("the screen's read model", () => {
  it("lists sessions with their handoff chains, recaps one and says what it cost with its sub-agents", () => {
    storeConversation();
    expect(screen.sessions(10).map(({ session, chain }) => [session.id, chain])).toEqual([["root-1", ["engineer-1", "engineer-2"]]]);
    expect(screen.recap("root-1", 8)).toEqual({
      title: "Fix the parser",
      // Prompts are counted from the recorded prompt entries; these messages were appended without them.
      prompts: 0,
      items: [
        { kind: "prompt", text: "Fix the parser" },
        { kind: "answer", text: "Fixed." },
      ],
    });
    expect(screen.recap("nobody", 8)).toBeUndefined();
    const cost = screen.cost("root-1");
    expect(cost?.session.usage.inputTokens).toBe(1_000);
    expect(cost?.subAgents.map((child) => child.id)).toEqual(["child-1"]);
  });

  it("gives the references of a session and the content behind one, and names a reference that does not exist", async () => {
    const entry = await services.contentStore.indexContent({
      sessionId: "root-1",
      agentId: "engineer-1",
      agentType: "engineer",
      turnNumber: 1,
      contentType: "tool_result",
      content: "line one\nline two\n",
    });
    const reference = {
      id: "ref00001",
      type: "tool_results" as const,
      sessionId: "root-1",
      agentId: "engineer-1",
      contentIds: [entry.id],
      summary: "one read",
      tokensSaved: entry.tokenCount,
      turnRange: [1, 1] as [number, number],
      timestamp: 1,
      topics: [],
      entities: [],
      queryHints: [],
    };
    services.contentStore.storeReference(reference);
    expect(screen.references("root-1").map((stored) => stored.id)).toEqual(["ref00001"]);
    const retrieved = await screen.retrieve("ref00001", 1_000);
    expect(retrieved.reference.summary).toBe("one read");
    expect(retrieved.result.entries.map((stored) => stored.content)).toEqual(["line one\nline two\n"]);
    await expect(screen.retrieve("deadbeef", 1_000)).rejects.toThrow('No context reference "deadbeef"');
  });

  it("counts the questions waiting, and runs /memory on the project's own handle of the user's store", async () => {
    services.inquiries.record({ sessionId: null, topic: "deploy", question: "Which cluster?", context: "Two are named." });
    expect(screen.pendingQuestions()).toBe(1);
    expect(screen.memory("list").join("\n")).toContain("Which cluster?");
    // A listing never creates the user's store; adding to it does, through the one handle the project closes.
    expect(existsSync(services.userKnowledge.path)).toBe(false);
    expect(screen.memory("add --user always answer in English").join("\n")).toContain("always answer in English");
    expect(existsSync(services.userKnowledge.path)).toBe(true);
    expect(
      services.userKnowledge
        .open()
        .list({ limit: 10 })
        .map((item) => item.content),
    ).toEqual(["always answer in English"]);
  });

  it("starts from the project's settings", () => {
    expect(screen.root).toBe(services.paths.root);
    expect(screen.database).toBe(services.paths.database);
    expect(screen.settings).toEqual({
      permissionMode: "default",
      maxFileSize: services.loadedConfig.config.index.maxFileSize,
      windowTokens: 9000,
    });
  });

  it("searches code as sylk search does", async () => {
    const run = services.indexer.run();
    for (let step = await run.next(); !step.done; step = await run.next());
    const response = await screen.searchCode("export const a", 5);
    expect(response.results.map((result) => result.path)).toEqual(["a.ts"]);
  });
});
