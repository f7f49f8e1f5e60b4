import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

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

describe("the knowledge store", () => {
  it("finds saved knowledge by ranked keywords, of the layers asked for, after a restart too", async () => {
    const pnpm = services.knowledge.save({
      layer: "user_knowledge",
      kind: "rule",
      key: "package manager",
      content: "Always use pnpm, never npm, in this repository.",
      source: "user",
    });
    services.knowledge.save({
      layer: "user_knowledge",
      kind: "fact",
      key: "deploy",
      content: "Deploys go through the staging cluster first.",
      source: "agent",
    });
    services.knowledge.save({
      layer: "agent_learnings",
      kind: "learning",
      key: "pnpm lockfile",
      content: "pnpm install --frozen-lockfile fails when the lockfile is stale: run pnpm install first.",
      source: "agent",
    });
    const hits = services.knowledge.search(["pnpm", "install"], { layers: ["user_knowledge"], limit: 5 });
    expect(hits.map((hit) => hit.item.id)).toEqual([pnpm.id]);
    expect(
      services.knowledge
        .search(["pnpm"], { limit: 5 })
        .map((hit) => hit.item.layer)
        .sort(),
    ).toEqual(["agent_learnings", "user_knowledge"]);
    expect(services.knowledge.search(["kubernetes"], { limit: 5 })).toEqual([]);

    await services.close();
    services = openProject({ root: project.root, env: project.env });
    expect(services.knowledge.search(["staging"], { limit: 5 }).map((hit) => hit.item.key)).toEqual(["deploy"]);
  });

  it("masks secrets before saving and refuses what is nothing but a secret", () => {
    const saved = services.knowledge.save({
      layer: "user_knowledge",
      kind: "fact",
      key: "ci token",
      content: "The CI token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the mirror.",
      source: "user",
    });
    expect(saved.content).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(services.knowledge.get(saved.id)?.content).toContain("[REDACTED:");
    expect(() =>
      services.knowledge.save({
        layer: "user_knowledge",
        kind: "fact",
        key: "k",
        content: "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        source: "user",
      }),
    ).toThrow(/secrets are never stored/);
  });

  it("masks the secrets of an item's category and details too, and of details judged again", () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const saved = services.knowledge.save({
      layer: "agent_learnings",
      kind: "learning",
      key: "push",
      content: "Push with the token in the header.",
      category: `deploy ${token}`,
      details: { signature: `auth failed for ${token}` },
      source: "agent",
    });
    services.knowledge.rejudge(saved, 0.6, { ...saved.details, note: `retried with ${token}` });
    const stored = JSON.stringify(services.knowledge.get(saved.id));
    expect(stored).not.toContain(token);
    expect(stored).toContain("auth failed for [REDACTED:github-token]");
    expect(stored).toContain("retried with [REDACTED:github-token]");
  });

  it("deletes an item from the table and from the index", () => {
    const item = services.knowledge.save({
      layer: "user_knowledge",
      kind: "preference",
      key: "tabs",
      content: "Indent with tabs.",
      source: "user",
    });
    expect(services.knowledge.delete(item.id)).toBe(true);
    expect(services.knowledge.search(["tabs", "indent"], { limit: 5 })).toEqual([]);
    expect(services.knowledge.delete(item.id)).toBe(false);
  });
});
