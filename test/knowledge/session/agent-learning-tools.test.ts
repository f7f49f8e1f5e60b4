import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { editFileTool } from "../../../src/agent/tools/edit-file.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { learnFromTools } from "../../../src/knowledge/session/agent-learning-tools.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { defaultConfig } from "../../../src/config/schema.js";
import { SessionLimits } from "../../../src/knowledge/session-limits.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject({ "src/a.ts": "export const greeting = 'hello';\n" });
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

describe("learning from the real tools", () => {
  it("stores an edit miss and the edit that worked as a Known Solution, confirms it when it helps again, and passes every result on unchanged", async () => {
    const limits = new SessionLimits({ knowledge: 10, learnings: 10, skills: 0 });
    const tools = learnFromTools([editFileTool], { store: services.knowledge, limits, sessionId: () => "s1" });
    const registry = new ToolRegistry(tools, new PermissionPolicy("bypass", defaultConfig().permissions));
    const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
    let id = 0;
    const edit = (old_string: string, new_string: string) =>
      registry.run({ id: String(++id), name: "edit_file", input: { path: "src/a.ts", old_string, new_string } }, context);

    const miss = await edit('greeting = "hello"', "greeting = 'hi'");
    expect(miss.isError).toBe(true);
    expect(await edit("greeting = 'hello'", "greeting = 'hi'")).not.toMatchObject({ isError: true });
    const [learning] = services.knowledge.search(["edit_file"], { layers: ["agent_learnings"], limit: 5 });
    expect(learning?.item).toMatchObject({
      kind: "learning",
      confidence: 0.5,
      source: "agent",
      details: { tool: "edit_file", successes: 1, failures: 0 },
    });
    expect(learning?.item.content).toContain(`old_string: "greeting = \\"hello\\"" → "greeting = 'hello'"`);
    expect(limits.count("learnings")).toBe(1);

    // The same miss again (another file state, the same signature), then a working edit: the learning is confirmed.
    await edit('greeting = "hi"', "greeting = 'hey'");
    await edit("greeting = 'hi'", "greeting = 'hey'");
    const confirmed = services.knowledge.search(["edit_file"], { layers: ["agent_learnings"], limit: 5 });
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]?.item.confidence).toBeCloseTo(0.6, 12);
    expect(confirmed[0]?.item.details).toMatchObject({ successes: 2, failures: 0 });
  });

  it("stores a learning with the call's secrets masked before its inputs are clipped, so no part of a key is kept", async () => {
    const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
    const limits = new SessionLimits({ knowledge: 10, learnings: 10, skills: 0 });
    const tools = learnFromTools([editFileTool], { store: services.knowledge, limits, sessionId: () => "s1" });
    const registry = new ToolRegistry(tools, new PermissionPolicy("bypass", defaultConfig().permissions));
    const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
    const edit = (id: string, old_string: string) =>
      registry.run({ id, name: "edit_file", input: { path: "src/a.ts", old_string, new_string: "x" } }, context);

    // Clipped to 120 characters, the token would keep its first 20: too short for any rule to see it.
    expect((await edit("1", `${"greeting ".repeat(10)}${token}`)).isError).toBe(true);
    expect((await edit("2", "greeting = 'hello'")).isError).toBeFalsy();
    const [learning] = services.knowledge.search(["edit_file"], { layers: ["agent_learnings"], limit: 5 });
    expect(learning?.item.content).toContain("[REDACTED:github-token]");
    expect(JSON.stringify(learning?.item)).not.toContain(token.slice(0, 12));
  });
});
