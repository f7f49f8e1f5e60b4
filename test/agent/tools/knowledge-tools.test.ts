import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy, type PermissionMode } from "../../../src/agent/permissions/permission-policy.js";
import { createKnowledgeTools } from "../../../src/agent/tools/knowledge-tools.js";
import { ToolRegistry, type Approver } from "../../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { defaultConfig } from "../../../src/config/schema.js";
import { SessionLimits } from "../../../src/knowledge/session-limits.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

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

/** A session's knowledge tools; saves and deletions allowed by rule unless other rules, a mode or an approver are given. */
function kit(
  caps = { knowledge: 20, learnings: 10, skills: 5 },
  options: { mode?: PermissionMode; allow?: string[]; deny?: string[]; approver?: Approver } = {},
) {
  const limits = new SessionLimits(caps);
  const tools = createKnowledgeTools({
    store: services.knowledge,
    userStore: () => services.knowledge,
    existingUserStore: () => services.knowledge,
    search: (query, options) => services.knowledge.search(query.split(/\s+/), options),
    limits,
    sessionId: () => "session-1",
  });
  const rules = {
    ...defaultConfig().permissions,
    allow: options.allow ?? ["save_knowledge", "delete_knowledge"],
    deny: options.deny ?? [],
  };
  const registry = new ToolRegistry(tools, new PermissionPolicy(options.mode ?? "default", rules), options.approver);
  const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
  let id = 0;
  return { limits, call: (name: string, input: unknown) => registry.run({ id: String(++id), name, input }, context) };
}

describe("the knowledge tools", () => {
  it("save, find and delete an item (allowed by rule)", async () => {
    const { call } = kit();
    const saved = await call("save_knowledge", { kind: "rule", key: "package manager", content: "Use pnpm, never npm." });
    expect(saved).toMatchObject({ permission: "allowed" });
    const id = /id ([0-9a-f-]{36})/.exec(saved.output)?.[1] as string;
    expect((await call("search_knowledge", { query: "pnpm" })).output).toContain(
      `[user_knowledge · rule] package manager: Use pnpm, never npm. (id ${id})`,
    );
    expect((await call("delete_knowledge", { id })).output).toBe('Deleted rule "package manager".');
    expect((await call("search_knowledge", { query: "pnpm" })).output).toContain("Nothing saved matches.");
    expect(await call("delete_knowledge", { id })).toMatchObject({ isError: true });
  });

  it("Scenario: reserve-slot rate limiting — concurrent saves never pass the session's cap", async () => {
    const { call, limits } = kit({ knowledge: 7, learnings: 0, skills: 0 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        call("save_knowledge", { kind: "fact", key: `fact ${index}`, content: `Fact number ${index} about the build.` }),
      ),
    );
    expect(results.filter((result) => !result.isError)).toHaveLength(7);
    expect(
      results.filter((result) => result.isError).every((result) => /its limit \(knowledge.maxKnowledgePerSession\)/.test(result.output)),
    ).toBe(true);
    expect(services.knowledge.list({ limit: 100 })).toHaveLength(7);
    expect(limits.count("knowledge")).toBe(7);
  });

  it("a save refused for holding nothing but a secret gives its slot back", async () => {
    const { call, limits } = kit({ knowledge: 1, learnings: 0, skills: 0 });
    expect(await call("save_knowledge", { kind: "fact", key: "token", content: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" })).toMatchObject(
      { isError: true },
    );
    expect(limits.count("knowledge")).toBe(0);
    expect(await call("save_knowledge", { kind: "fact", key: "ok", content: "A plain fact." })).not.toMatchObject({ isError: true });
  });
});
