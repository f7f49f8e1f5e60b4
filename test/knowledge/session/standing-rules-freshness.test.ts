import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../../src/app/project-services.js";
import { SessionKnowledge } from "../../../src/knowledge/session/session-knowledge.js";
import { STANDING_RULES_TITLE } from "../../../src/knowledge/standing-rules.js";
import { runCli } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * The standing rules are in every request, so a session keeps them between
 * requests; what must hold is that a kept copy is never stale: a note added
 * or removed here, or by another process, shows in the very next request.
 */
let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject({ "package.json": '{ "name": "shop" }\n' });
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

const rulesOf = (context: string | undefined) =>
  (context ?? "")
    .split(STANDING_RULES_TITLE)[1]
    ?.split("\n")
    .filter((line) => line.startsWith("- "))
    .sort() ?? [];

describe("the standing rules a session keeps", () => {
  it("follow every change: a note added or removed in this session, one another process adds, and one kept for every project", async () => {
    const knowledge = new SessionKnowledge(services, services.loadedConfig.config, () => "");
    expect(await knowledge.systemContextFor("anything", [])).toBeUndefined();

    const pnpm = services.knowledge.save({
      layer: "user_knowledge",
      kind: "rule",
      key: "pnpm",
      content: "always use pnpm",
      source: "user",
    });
    expect(rulesOf(await knowledge.systemContextFor("anything", []))).toEqual(["- always use pnpm"]);
    // What an agent saved is not a standing rule, even in the user's layer.
    services.knowledge.save({ layer: "user_knowledge", kind: "fact", key: "ci", content: "CI runs on Fridays", source: "agent" });
    expect(rulesOf(await knowledge.systemContextFor("anything", []))).toEqual(["- always use pnpm"]);

    const added = await runCli(["memory", "add", "never push to main"], { cwd: project.root, env: project.env });
    expect(added.code).toBe(0);
    expect(rulesOf(await knowledge.systemContextFor("anything", []))).toEqual(["- always use pnpm", "- never push to main"]);
    const everywhere = await runCli(["memory", "add", "--user", "answer in British English"], { cwd: project.root, env: project.env });
    expect(everywhere.code).toBe(0);
    expect(rulesOf(await knowledge.systemContextFor("anything", []))).toEqual([
      "- always use pnpm",
      "- answer in British English",
      "- never push to main",
    ]);

    services.knowledge.delete(pnpm.id);
    expect(rulesOf(await knowledge.systemContextFor("anything", []))).toEqual(["- answer in British English", "- never push to main"]);
  });

  it("are read again only when the store changed: reading and marking items used leave its change stamp alone, writes move it", () => {
    const store = services.knowledge;
    const before = store.changeStamp();
    store.list({ limit: 10 });
    store.userNotes(10);
    expect(store.changeStamp()).toBe(before);
    const item = store.save({ layer: "user_knowledge", kind: "rule", key: "tabs", content: "indent with tabs", source: "user" });
    const saved = store.changeStamp();
    expect(saved).not.toBe(before);
    store.used([item]);
    expect(store.changeStamp()).toBe(saved);
    store.rejudge(item, 0.5, {});
    const rejudged = store.changeStamp();
    expect(rejudged).not.toBe(saved);
    store.delete(item.id);
    expect(store.changeStamp()).not.toBe(rejudged);
  });
});
