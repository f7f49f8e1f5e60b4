import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { ContentType } from "../../src/store/content-types.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject({ "README.md": "# demo\n" });
  services = openProject({ root: project.root, env: project.env });
});

afterEach(async () => {
  await services.close();
  project.cleanup();
});

const base = { sessionId: "s1", agentId: "engineer-1", agentType: "engineer" };

describe("UniversalContentStore", () => {
  it("round-trips any content without a secret byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 2000 }), async (content) => {
        const stored = await services.contentStore.indexContent({ ...base, contentType: "tool_result", content, turnNumber: 1 });
        const [back] = services.contentStore.getByIds([stored.id]);
        expect(back?.content).toBe(content);
        expect(back?.contentHash).toBe(stored.contentHash);
      }),
      { numRuns: 60 },
    );
  });

  it("masks an entry's secrets before anything is stored or derived from it: content, hash, metadata, keywords, what search finds", async () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const stored = await services.contentStore.indexContent({
      ...base,
      contentType: "tool_result",
      content: `pushed with ${token}`,
      turnNumber: 1,
      keywords: [token],
      metadata: { command: `git push https://x:${token}@github.com/a/b` },
    });
    expect(stored.content).toBe("pushed with [REDACTED:github-token]");
    const [back] = services.contentStore.getByIds([stored.id]);
    expect(JSON.stringify(back)).not.toContain(token);
    expect(back?.contentHash).toBe(createHash("sha256").update("pushed with [REDACTED:github-token]").digest("hex"));
    const found = await services.contentStore.search("pushed with");
    expect(found.hits.map((hit) => hit.snippet).join()).toContain("[REDACTED:github-token]");
  });

  it("keeps identical text said in two turns as two entries", async () => {
    const first = await services.contentStore.indexContent({ ...base, contentType: "user_prompt", content: "yes", turnNumber: 1 });
    const second = await services.contentStore.indexContent({ ...base, contentType: "user_prompt", content: "yes", turnNumber: 2 });
    expect(first.id).not.toBe(second.id);
    expect(first.contentHash).toBe(second.contentHash);
    expect(services.contentStore.getByTurnRange("s1", 1, 2).map((entry) => entry.turnNumber)).toEqual([1, 2]);
  });

  it("stores every field, links children to parents and returns turn ranges in order", async () => {
    const prompt = await services.contentStore.indexContent({
      ...base,
      contentType: "user_prompt",
      content: "Why does `parseConfig` fail on src/config.ts?",
      turnNumber: 3,
      relatedFiles: ["src/config.ts"],
      metadata: { source: "test" },
    });
    const call = await services.contentStore.indexContent({
      ...base,
      contentType: "tool_call",
      content: '{"name":"read_file","input":{"path":"src/config.ts"}}',
      turnNumber: 3,
      parentId: prompt.id,
    });
    await services.contentStore.indexContent({ ...base, contentType: "tool_result", content: "x", turnNumber: 9 });

    const [storedPrompt] = services.contentStore.getByIds([prompt.id]);
    expect(storedPrompt).toMatchObject({
      sessionId: "s1",
      agentId: "engineer-1",
      agentType: "engineer",
      contentType: "user_prompt",
      turnNumber: 3,
      relatedFiles: ["src/config.ts"],
      metadata: { source: "test" },
      childIds: [call.id],
    });
    expect(storedPrompt?.tokenCount).toBeGreaterThan(0);
    expect(storedPrompt?.keywords).toContain("parseconfig");
    expect(storedPrompt?.entities).toEqual(expect.arrayContaining(["parseConfig", "src/config.ts"]));
    expect(services.contentStore.getByIds([call.id])[0]?.parentId).toBe(prompt.id);
    expect(services.contentStore.getByTurnRange("s1", 3, 3).map((entry) => entry.contentType)).toEqual(["user_prompt", "tool_call"]);
    expect(services.contentStore.getByIds(["missing", prompt.id]).map((entry) => entry.id)).toEqual([prompt.id]);
  });

  it("searches history with the retrieval filters", async () => {
    const add = (
      content: string,
      contentType: ContentType,
      turnNumber: number,
      sessionId = "s1",
      agentType = "engineer",
      timestamp?: number,
    ) =>
      services.contentStore.indexContent({
        ...base,
        sessionId,
        agentType,
        contentType,
        content,
        turnNumber,
        ...(timestamp ? { timestamp } : {}),
      });
    await add("We chose JWT tokens with a 15 minute expiry for the auth middleware", "agent_response", 1, "s1", "engineer", 1_000);
    await add("JWT refresh flow discussion: rotate refresh tokens", "user_prompt", 2, "s1", "engineer", 2_000);
    await add("JWT validation in another session", "agent_response", 1, "s2", "architect", 3_000);
    await add("Unrelated build output: compiled 12 files", "tool_result", 3, "s1", "engineer", 4_000);

    const all = await services.contentStore.search("JWT expiry auth", {}, 10);
    expect(all.degraded).toEqual([]);
    expect(all.hits[0]?.entry.content).toContain("15 minute expiry");
    expect(all.hits[0]?.signals.fulltext?.rank).toBe(1);

    const bySession = await services.contentStore.search("JWT", { sessionId: "s2" }, 10);
    expect(bySession.hits.map((hit) => hit.entry.sessionId)).toEqual(["s2"]);

    const byType = await services.contentStore.search("JWT", { contentTypes: ["user_prompt"] }, 10);
    expect(byType.hits.map((hit) => hit.entry.contentType)).toEqual(["user_prompt"]);

    const byTurns = await services.contentStore.search("JWT", { sessionId: "s1", turnRange: [2, 3] }, 10);
    expect(byTurns.hits[0]?.entry.turnNumber).toBe(2);
    expect(byTurns.hits.every((hit) => hit.entry.turnNumber >= 2 && hit.entry.turnNumber <= 3)).toBe(true);

    const byTime = await services.contentStore.search("JWT", { timeRange: [1_500, 3_500] }, 10);
    expect(byTime.hits.map((hit) => hit.entry.timestamp).sort()).toEqual([2_000, 3_000]);
    expect(byTime.hits.every((hit) => hit.signals.fulltext !== undefined)).toBe(true);

    const byAgent = await services.contentStore.search("JWT", { agentTypes: ["architect"] }, 10);
    expect(byAgent.hits.map((hit) => hit.entry.agentType)).toEqual(["architect"]);
  });

  it("fuses history as code search does: the built-in vectors re-order what the words found, and answer alone only when they found nothing", async () => {
    const add = (content: string, turnNumber: number) =>
      services.contentStore.indexContent({ ...base, contentType: "agent_response", content, turnNumber });
    await add("The rate limiter drops requests over the burst size", 1);
    await add("Rate limits are read from the gateway configuration", 2);
    // Look-alike words (same trigrams, other stems) the vectors find near the query, full text not at all.
    await add("rater limitless limiting rated", 3);
    await add("Unrelated: the release notes were published", 4);

    const found = await services.contentStore.search("rate limiter burst", {}, 10);
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.hits.every((hit) => hit.signals.fulltext !== undefined)).toBe(true);
    expect(found.hits[0]?.entry.turnNumber).toBe(1);
    expect(found.hits.some((hit) => hit.signals.vector !== undefined)).toBe(true);

    // No word of a misspelt query matches; its trigrams still have neighbours.
    const misspelt = await services.contentStore.search("rte limitr brust", {}, 10);
    expect(misspelt.hits.length).toBeGreaterThan(0);
    expect(misspelt.hits.every((hit) => hit.signals.fulltext === undefined && hit.signals.vector !== undefined)).toBe(true);
  });

  it("stores and returns context references", () => {
    const reference = {
      id: "ref-1",
      type: "conversation" as const,
      sessionId: "s1",
      agentId: "engineer-1",
      contentIds: ["a", "b"],
      summary: "Discussion about auth flow",
      tokensSaved: 4200,
      turnRange: [1, 15] as [number, number],
      timestamp: 1_700_000_000_000,
      topics: ["auth flow", "JWT"],
      entities: ["middleware.ts"],
      queryHints: ["discussion about auth flow"],
    };
    services.contentStore.storeReference(reference);
    expect(services.contentStore.getReference("ref-1")).toEqual(reference);
    expect(services.contentStore.listReferences("s1")).toEqual([reference]);
    expect(services.contentStore.getReference("nope")).toBeUndefined();
  });

  it("finds history after a restart (the full-text index is persisted or rebuilt from the store)", async () => {
    await services.contentStore.indexContent({
      ...base,
      contentType: "agent_response",
      content: "the flux capacitor needs 1.21 gigawatts",
      turnNumber: 1,
    });
    await services.close();
    services = openProject({ root: project.root, env: project.env });
    const found = await services.contentStore.search("flux capacitor", {}, 5);
    expect(found.hits.map((hit) => hit.entry.content)).toEqual(["the flux capacitor needs 1.21 gigawatts"]);
  });
});
