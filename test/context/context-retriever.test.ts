import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createContextTools, renderRetrieval } from "../../src/agent/tools/context-tools.js";
import { PermissionPolicy } from "../../src/agent/permissions/permission-policy.js";
import { ToolRegistry } from "../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { ContextRetriever } from "../../src/context/context-retriever.js";
import { alternatingMessages } from "../../src/llm/conversation.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;
let retriever: ContextRetriever;

beforeEach(() => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
  retriever = new ContextRetriever(services.contentStore);
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

const base = { sessionId: "s1", agentId: "a", agentType: "engineer" };

describe("ContextRetriever and the retrieval tools", () => {
  it("expands a reference within its budget, reporting source and truncation", async () => {
    const small = await services.contentStore.indexContent({ ...base, contentType: "tool_result", content: "small result", turnNumber: 1 });
    const big = await services.contentStore.indexContent({
      ...base,
      contentType: "tool_result",
      content: "B".repeat(4_000),
      turnNumber: 2,
    });
    services.contentStore.storeReference({
      id: "ref1",
      type: "tool_results",
      sessionId: "s1",
      agentId: "a",
      contentIds: [small.id, big.id],
      summary: "x",
      tokensSaved: 1_010,
      turnRange: [1, 2],
      timestamp: 0,
      topics: [],
      entities: [],
      queryHints: [],
    });
    const all = await retriever.retrieve({ refId: "ref1", maxTokens: 5_000 });
    expect(all).toMatchObject({ source: "reference", truncated: false, refId: "ref1" });
    expect(all.entries.map((entry) => entry.content)).toEqual(["small result", "B".repeat(4_000)]);

    const cut = await retriever.retrieve({ refId: "ref1", maxTokens: 200 });
    expect(cut.truncated).toBe(true);
    expect(cut.entries.map((entry) => entry.id)).toEqual([small.id]);

    const partial = await retriever.retrieve({ contentIds: [big.id], maxTokens: 100 });
    expect(partial).toMatchObject({ source: "direct", truncated: true, partialEntryId: big.id });
    expect(partial.entries[0]?.content).toBe("B".repeat(400));
    expect(renderRetrieval(partial)).toContain("Only the beginning of entry");

    await expect(retriever.retrieve({ refId: "nope", maxTokens: 100 })).rejects.toThrow(/No context reference "nope"/);
  });

  it("finds history by search and turn range through the model's tools", async () => {
    const prompt = await services.contentStore.indexContent({
      ...base,
      contentType: "user_prompt",
      content: "Why does the flux capacitor overheat?",
      turnNumber: 1,
    });
    await services.contentStore.indexContent({
      ...base,
      contentType: "agent_response",
      content: "The flux capacitor overheats above 1.21 gigawatts.",
      turnNumber: 1,
      parentId: prompt.id,
    });
    await services.contentStore.indexContent({
      ...base,
      contentType: "agent_response",
      content: "Unrelated answer about invoices.",
      turnNumber: 2,
    });
    await services.contentStore.indexContent({
      ...base,
      sessionId: "s2",
      contentType: "user_prompt",
      content: "flux capacitor in another session",
      turnNumber: 1,
    });
    const retrieved: string[] = [];
    const tools = new ToolRegistry(
      createContextTools({
        retriever,
        contentStore: services.contentStore,
        sessionId: () => "s1",
        availableTokens: () => 10_000,
        onRetrieved: (entries) => retrieved.push(...entries.map((entry) => entry.id)),
      }),
      new PermissionPolicy("default"),
    );
    const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };

    const search = await tools.run({ id: "1", name: "search_history", input: { query: "flux capacitor", session_id: "s1" } }, context);
    expect(search.output).toMatch(/^source: search · \d results/);
    expect(search.output).not.toContain("another session");
    // Both full-text matches rank above anything the vector signal adds.
    expect(search.output.indexOf("gigawatts")).toBeLessThan(search.output.indexOf("invoices") >>> 0);
    expect(search.output.indexOf("Why does the flux")).toBeLessThan(search.output.indexOf("invoices") >>> 0);

    const byType = await tools.run(
      { id: "2", name: "search_history", input: { query: "flux capacitor", content_type: "user_prompt" } },
      context,
    );
    expect(byType.output).toContain("another session");
    expect(byType.output).not.toContain("gigawatts");

    const range = await tools.run({ id: "3", name: "get_turn_range", input: { from_turn: 1, to_turn: 1 } }, context);
    expect(range.output).toMatch(/^source: direct · entries: 2 · tokens: \d+ · truncated: false/);
    expect(range.output).toContain("The flux capacitor overheats above 1.21 gigawatts.");

    const related = await tools.run({ id: "4", name: "retrieve_context", input: { query: "gigawatts", include_related: true } }, context);
    expect(related.output).toContain("Why does the flux capacitor overheat?");

    const invalid = await tools.run({ id: "5", name: "retrieve_context", input: {} }, context);
    expect(invalid.isError).toBe(true);
    expect(invalid.output).toContain("give ref_id, entry_id or query");
    expect(retrieved.length).toBeGreaterThan(0);
  });

  it("answers a search with what left the window first, never with the calling message, a large entry cut around its match", async () => {
    const lines = Array.from({ length: 200 }, (_, index) => `filler line ${index}`);
    lines[150] = "the NEEDLE-00 line";
    const evicted = await services.contentStore.indexContent({
      ...base,
      contentType: "tool_result",
      content: lines.join("\n"),
      turnNumber: 1,
    });
    const prompt = await services.contentStore.indexContent({
      ...base,
      contentType: "user_prompt",
      content: "Where was NEEDLE-00?",
      turnNumber: 5,
    });
    const call = await services.contentStore.indexContent({
      ...base,
      contentType: "tool_call",
      content: JSON.stringify({ name: "retrieve_context", input: { query: "NEEDLE-00" } }),
      turnNumber: 5,
    });
    // Another call of the calling message, already answered: the model gets its result with this call's.
    const sibling = await services.contentStore.indexContent({
      ...base,
      contentType: "tool_result",
      content: "grep: big.txt:151: the NEEDLE-00 line",
      turnNumber: 5,
      parentId: call.id,
    });
    const tools = new ToolRegistry(
      createContextTools({
        retriever,
        contentStore: services.contentStore,
        sessionId: () => "s1",
        availableTokens: () => 10_000,
        window: (toolUseId) => ({
          calling: toolUseId === "call-1" ? new Set([call.id]) : new Set(),
          inWindow: new Set([prompt.id, call.id]),
        }),
      }),
      new PermissionPolicy("default"),
    );
    const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [], toolUseId: "call-1" };

    const byQuery = await tools.run({ id: "call-1", name: "retrieve_context", input: { query: "NEEDLE-00", max_tokens: 300 } }, context);
    const firstEntry = byQuery.output.split("\n").find((line) => line.startsWith("----- "));
    expect(firstEntry).toMatch(new RegExp(`entry ${evicted.id} · lines \\d+-\\d+ of 200 -----$`));
    expect(byQuery.output).toContain("the NEEDLE-00 line");
    expect(byQuery.output).not.toContain(call.id);
    expect(byQuery.output).toContain(`retrieve_context(entry_id="${evicted.id}")`);
    // The matches after it, which the window still holds, are named for the asking.
    const notShown = byQuery.output.split("\n").find((line) => line.startsWith("(2 more matches did not fit: "));
    expect(notShown).toContain(`entry ${prompt.id} (turn 5 · user_prompt · 5 tokens)`);
    expect(notShown).toContain(`entry ${sibling.id} (turn 5 · tool_result`);

    const whole = await tools.run({ id: "call-1", name: "retrieve_context", input: { entry_id: evicted.id, max_tokens: 2_000 } }, context);
    expect(whole.output).toMatch(/^source: direct · entries: 1 · tokens: \d+ · truncated: false/);
    expect(whole.output.endsWith(`entry ${evicted.id} -----\n${evicted.content}`)).toBe(true);

    // Bringing each entry's call along never brings the calling message.
    const related = await tools.run(
      { id: "call-1", name: "retrieve_context", input: { query: "NEEDLE-00", include_related: true } },
      context,
    );
    expect(related.output).toContain(`entry ${sibling.id}`);
    expect(related.output.indexOf(`entry ${evicted.id}`)).toBeLessThan(related.output.indexOf(`entry ${sibling.id}`));
    expect(related.output).not.toContain(call.id);

    const search = await tools.run({ id: "call-1", name: "search_history", input: { query: "NEEDLE-00" } }, context);
    expect(search.output).toMatch(/^source: search · 3 results/);
    expect(search.output.indexOf(`entry ${evicted.id}`)).toBeLessThan(search.output.indexOf(`entry ${prompt.id}`));
    expect(search.output.indexOf(`entry ${evicted.id}`)).toBeLessThan(search.output.indexOf(`entry ${sibling.id}`));
    expect(search.output).not.toContain(call.id);
  });

  it("sends user messages with tool results first and merges consecutive roles", () => {
    const merged = alternatingMessages([
      { role: "user", content: [{ type: "text", text: "[CTX-REF:…]" }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "t", content: "r", isError: false }] },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
    ]);
    expect(merged.map((message) => message.content.map((block) => block.type))).toEqual([["tool_result", "text"], ["text"]]);
    expect(alternatingMessages([{ role: "assistant", content: [{ type: "text", text: "x" }] }])[0]?.role).toBe("user");
  });
});
