import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
import { createContextTools } from "../../../../src/agent/tools/context-tools.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../../../src/app/project-services.js";
import { ContextRetriever } from "../../../../src/context/context-retriever.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";

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

const context = () => ({ root: project.root, signal: new AbortController().signal, extraDirectories: [] });

describe("search_history's agent_type filter", () => {
  it("returns only the entries the named agent type recorded", async () => {
    const deps = {
      sessions: services.sessions,
      contentStore: services.contentStore,
      identity: { agentId: "engineer-1", agentType: "engineer" },
    };
    const recorder = SessionRecorder.start(deps, { title: "Caching", provider: "anthropic", model: "claude-fake" });
    await recorder.recordPrompt("How should the parser cache its tokens?", recorder.nextTurn());
    recorder.switchAgent({ agentId: "architect-1", agentType: "architect" });
    await recorder.recordPrompt("The parser cache should key tokens by file hash.", recorder.nextTurn());
    recorder.switchAgent({ agentId: "custom-1", agentType: "custom:reviewer" });
    await recorder.recordPrompt("Review: the parser cache leaks tokens.", recorder.nextTurn());

    const tools = new ToolRegistry(
      createContextTools({
        retriever: new ContextRetriever(services.contentStore),
        contentStore: services.contentStore,
        sessionId: () => recorder.session.id,
        availableTokens: () => 10_000,
      }),
      new PermissionPolicy("default"),
    );
    const search = (input: Record<string, unknown>) =>
      tools.run({ id: "1", name: "search_history", input: { query: "parser cache tokens", ...input } }, context());

    const all = await search({});
    expect(all.output).toMatch(/^source: search · 3 results/);

    const architect = await search({ agent_type: "architect" });
    expect(architect.output).toMatch(/^source: search · 1 results/);
    expect(architect.output).toContain("architect-1");
    expect(architect.output).toContain("key tokens by file hash");
    expect(architect.output).not.toContain("How should the parser");

    const custom = await search({ agent_type: "custom:reviewer" });
    expect(custom.output).toContain("leaks tokens");
    expect(custom.output).not.toContain("file hash");

    const none = await search({ agent_type: "librarian" });
    expect(none.output).toContain("Nothing matched.");

    const invalid = await search({ agent_type: "wizard" });
    expect(invalid.isError).toBe(true);
  });
});
