import { describe, expect, it } from "vitest";
import { type ContextItem, ContextLayer, inquiryItem } from "../../src/knowledge/context-layers.js";
import type { InquiryProvider, KnowledgeLogger, LayerSearch, MemoryNote, MemoryProvider } from "../../src/knowledge/context-providers.js";
import { LayerRetriever, DEFAULT_MAX_PER_LAYER, formatRuntimeContext } from "../../src/knowledge/layer-retriever.js";
import { RuntimeContextAdapter } from "../../src/knowledge/runtime-context-adapter.js";
import { ToolRegistryAdapter } from "../../src/knowledge/tool-registry-adapter.js";

interface SearchCall {
  layer: ContextLayer;
  keywords: readonly string[];
  limit: number;
  sessionKey: string | undefined;
}

/** A store stand-in: `count` items per layer (more than asked for, to test the cap), failing for the layers in `failing`. */
function fakeSearch(count = 8, failing: readonly ContextLayer[] = []): LayerSearch & { calls: SearchCall[] } {
  const calls: SearchCall[] = [];
  return {
    calls,
    async search(layer, keywords, limit, sessionKey) {
      calls.push({ layer, keywords, limit, sessionKey });
      if (failing.includes(layer)) throw new Error(`${layer} is down`);
      return Array.from({ length: count }, (_, index) => ({ layer, key: `${layer}-${index}`, content: `about ${keywords.join(" ")}` }));
    },
  };
}

function recordingLogger(): KnowledgeLogger & { warnings: { message: string; fields: unknown }[] } {
  const warnings: { message: string; fields: unknown }[] = [];
  return { warnings, warn: (message, fields) => warnings.push({ message, fields }) };
}

const layersOf = (items: readonly ContextItem[]) => [...new Set(items.map((item) => item.layer))];

const tools = new ToolRegistryAdapter([
  { name: "deploy_service", description: "Deploy a service to staging or production" },
  { name: "read_file", description: "Read a file" },
  { name: "rollback", description: "Roll a deployment back" },
  { name: "git_log", description: "Show the commit history" },
]);

describe("LayerRetriever", () => {
  it("Scenario: Retrieve from all default layers — User Knowledge, Skill Patterns, External Knowledge and Agent Learnings; tools and runtime handled elsewhere", async () => {
    const search = fakeSearch(1);
    const retriever = new LayerRetriever({ search, toolRegistry: tools, runtimeContext: new RuntimeContextAdapter() });
    const result = await retriever.retrieve("deploy the service");
    expect(search.calls.map((call) => call.layer)).toEqual([
      ContextLayer.UserKnowledge,
      ContextLayer.SkillPatterns,
      ContextLayer.ExternalKnowledge,
      ContextLayer.AgentLearnings,
    ]);
    expect(layersOf(result.items)).toEqual(search.calls.map((call) => call.layer));
    expect(result.keywords).toEqual(["deploy", "service"]);
    expect(search.calls[0]?.keywords).toEqual(["deploy", "service"]);
  });

  it("Scenario: Retrieve from specific layers — only the layers named, in that order", async () => {
    const search = fakeSearch(1);
    const retriever = new LayerRetriever({ search, toolRegistry: tools });
    const result = await retriever.retrieve("deploy rollback", { layers: [ContextLayer.AgentLearnings, ContextLayer.ToolRegistry] });
    expect(search.calls.map((call) => call.layer)).toEqual([ContextLayer.AgentLearnings]);
    expect(layersOf(result.items)).toEqual([ContextLayer.AgentLearnings, ContextLayer.ToolRegistry]);
  });

  it("an empty layer list means the default layers; a layer named twice is searched once", async () => {
    const search = fakeSearch(1);
    await new LayerRetriever({ search }).retrieve("deploy", { layers: [] });
    expect(search.calls).toHaveLength(4);
    const again = fakeSearch(1);
    await new LayerRetriever({ search: again }).retrieve("deploy", { layers: [ContextLayer.UserKnowledge, ContextLayer.UserKnowledge] });
    expect(again.calls).toHaveLength(1);
  });

  it("Scenario: Per-layer result limit — at most maxPerLayer items a layer (default 5, configurable per retriever and per call)", async () => {
    const search = fakeSearch(8);
    const byDefault = await new LayerRetriever({ search }).retrieve("deploy");
    expect(DEFAULT_MAX_PER_LAYER).toBe(5);
    for (const layer of layersOf(byDefault.items)) expect(byDefault.items.filter((item) => item.layer === layer)).toHaveLength(5);
    expect(search.calls.every((call) => call.limit === 5)).toBe(true);

    const configured = await new LayerRetriever({ search: fakeSearch(8), maxPerLayer: 3 }).retrieve("deploy");
    expect(configured.items).toHaveLength(4 * 3);
    const perCall = await new LayerRetriever({ search: fakeSearch(8), maxPerLayer: 3 }).retrieve("deploy", { maxPerLayer: 2 });
    expect(perCall.items).toHaveLength(4 * 2);
    const invalid = await new LayerRetriever({ search: fakeSearch(8), maxPerLayer: 0 }).retrieve("deploy", { maxPerLayer: -1 });
    expect(invalid.items).toHaveLength(4 * 5);

    const manyInquiries: InquiryProvider = {
      pendingInquiryItems: async () => Array.from({ length: 9 }, (_, index) => inquiryItem({ topic: `t${index}`, question: "?" })),
    };
    const capped = await new LayerRetriever({ inquiries: manyInquiries, toolRegistry: tools }).retrieve("deploy file", {
      layers: [ContextLayer.PendingInquiries, ContextLayer.ToolRegistry],
      maxPerLayer: 2,
    });
    expect(capped.items.filter((item) => item.layer === ContextLayer.PendingInquiries)).toHaveLength(2);
    expect(capped.items.filter((item) => item.layer === ContextLayer.ToolRegistry)).toHaveLength(2);
  });

  it("Scenario: Empty query handling — no keywords, an empty result and no layer queried", async () => {
    const search = fakeSearch();
    let providerCalls = 0;
    const count = <T>(value: T) => {
      providerCalls++;
      return value;
    };
    const retriever = new LayerRetriever({
      search,
      toolRegistry: { listTools: () => count([]), searchTools: () => count([]) },
      runtimeContext: { getRuntimeContext: () => count(new RuntimeContextAdapter().getRuntimeContext()) },
      inquiries: { pendingInquiryItems: async () => count([]) },
    });
    for (const query of ["", "   ", "the a is are was", "?!"]) {
      expect(
        await retriever.retrieve(query, {
          layers: [ContextLayer.UserKnowledge, ContextLayer.ToolRegistry, ContextLayer.RuntimeContext, ContextLayer.PendingInquiries],
          sessionKey: "s",
        }),
      ).toEqual({
        keywords: [],
        items: [],
        failures: [],
      });
    }
    expect(search.calls).toEqual([]);
    expect(providerCalls).toBe(0);
  });

  it("Scenario: Layer retrieval error — a warning is logged and the remaining layers still answer", async () => {
    const logger = recordingLogger();
    const search = fakeSearch(2, [ContextLayer.SkillPatterns]);
    const result = await new LayerRetriever({ search, logger }).retrieve("deploy");
    expect(layersOf(result.items)).toEqual([ContextLayer.UserKnowledge, ContextLayer.ExternalKnowledge, ContextLayer.AgentLearnings]);
    expect(result.failures).toEqual([{ layer: ContextLayer.SkillPatterns, error: new Error("skill_patterns is down") }]);
    expect(logger.warnings).toEqual([
      { message: "context layer retrieval failed", fields: { layer: ContextLayer.SkillPatterns, error: "skill_patterns is down" } },
    ]);
  });

  it("a provider that throws synchronously or rejects with a non-Error is a failed layer too", async () => {
    const logger = recordingLogger();
    const retriever = new LayerRetriever({
      logger,
      toolRegistry: {
        listTools: () => [],
        searchTools: () => {
          throw new Error("registry gone");
        },
      },
      runtimeContext: new RuntimeContextAdapter(),
      inquiries: { pendingInquiryItems: () => Promise.reject("not an error") },
    });
    const result = await retriever.retrieve("deploy", {
      layers: [ContextLayer.ToolRegistry, ContextLayer.PendingInquiries, ContextLayer.RuntimeContext],
    });
    expect(result.failures.map((failure) => [failure.layer, failure.error.message])).toEqual([
      [ContextLayer.ToolRegistry, "registry gone"],
      [ContextLayer.PendingInquiries, "not an error"],
    ]);
    expect(layersOf(result.items)).toEqual([ContextLayer.RuntimeContext]);
    expect(logger.warnings).toHaveLength(2);
  });

  it("Scenario: Retrieve tools by keyword — each extracted keyword searched, matches merged by name as Tool Registry items", async () => {
    const result = await new LayerRetriever().withToolRegistryProvider(tools).retrieve("how do I deploy or roll back the service?", {
      layers: [ContextLayer.ToolRegistry],
    });
    expect(result.items).toEqual([
      { layer: ContextLayer.ToolRegistry, key: "deploy_service", content: "Deploy a service to staging or production" },
      { layer: ContextLayer.ToolRegistry, key: "rollback", content: "Roll a deployment back" },
    ]);
  });

  it("Scenario: Nil tool provider — the Tool Registry layer gives zero items and no error", async () => {
    const result = await new LayerRetriever().retrieve("deploy", { layers: [ContextLayer.ToolRegistry] });
    expect(result).toEqual({ keywords: ["deploy"], items: [], failures: [] });
  });

  it("Scenario: Retrieve runtime context — one item with key session-state holding the formatted session state", async () => {
    const runtime = new RuntimeContextAdapter({ activeToolCount: 7, knowledgeEnabled: true });
    runtime.setSession("0b6f3c1e-5d2a-4f7e-9c1b-2a3d4e5f6a7b");
    const result = await new LayerRetriever()
      .withRuntimeContextProvider(runtime)
      .retrieve("status", { layers: [ContextLayer.RuntimeContext] });
    expect(result.items).toEqual([
      {
        layer: ContextLayer.RuntimeContext,
        key: "session-state",
        content: "Session: 0b6f3c1e-5d2a-4f7e-9c1b-2a3d4e5f6a7b | Active tools: 7 | Knowledge: on | Memory: off",
      },
    ]);
    expect(formatRuntimeContext(new RuntimeContextAdapter().getRuntimeContext())).toBe(
      "Session: none | Active tools: 0 | Knowledge: off | Memory: off",
    );
  });

  it("Scenario: Nil runtime provider — the Runtime Context layer gives zero items and no error", async () => {
    const result = await new LayerRetriever().retrieve("status", { layers: [ContextLayer.RuntimeContext] });
    expect(result).toEqual({ keywords: ["status"], items: [], failures: [] });
  });

  it("Scenario: Pending inquiries layer retrieval — delegated to the InquiryProvider with the session key and limit", async () => {
    const calls: [string | undefined, number][] = [];
    const inquiries: InquiryProvider = {
      async pendingInquiryItems(sessionKey, limit) {
        calls.push([sessionKey, limit]);
        return [inquiryItem({ topic: "deploy", question: "Which region do you deploy to?", context: "two regions seen" })];
      },
    };
    const result = await new LayerRetriever({ inquiries }).retrieve("deploy", {
      layers: [ContextLayer.PendingInquiries],
      sessionKey: "s-1",
    });
    expect(calls).toEqual([["s-1", 5]]);
    expect(result.items).toEqual([
      inquiryItem({ topic: "deploy", question: "Which region do you deploy to?", context: "two regions seen" }),
    ]);
  });

  it("Scenario: No inquiry provider configured — the Pending Inquiries layer gives no items and no error", async () => {
    const result = await new LayerRetriever().retrieve("deploy", { layers: [ContextLayer.PendingInquiries], sessionKey: "s-1" });
    expect(result).toEqual({ keywords: ["deploy"], items: [], failures: [] });
  });

  it("Scenario: Wire inquiry provider — withInquiryProvider makes the retriever use it for Pending Inquiries", async () => {
    const retriever = new LayerRetriever();
    const inquiries: InquiryProvider = { pendingInquiryItems: async () => [inquiryItem({ topic: "db", question: "Postgres or SQLite?" })] };
    expect(retriever.withInquiryProvider(inquiries)).toBe(retriever);
    const result = await retriever.retrieve("database", { layers: [ContextLayer.PendingInquiries] });
    expect(result.items.map((item) => item.key)).toEqual(["db"]);
  });

  it("Scenario: Session key propagated to RAG retrieval — the session key reaches the knowledge search", async () => {
    const search = fakeSearch(1);
    await new LayerRetriever().withLayerSearch(search).retrieve("deploy", { sessionKey: "session-1" });
    expect(search.calls.map((call) => call.sessionKey)).toEqual(["session-1", "session-1", "session-1", "session-1"]);
  });

  describe("memory layers", () => {
    const note = (content: string, minute: number): MemoryNote => ({
      content,
      tokenCount: 3,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
    });
    const memory = (): MemoryProvider & { calls: string[] } => {
      const calls: string[] = [];
      return {
        calls,
        async recentReflections(sessionKey, limit) {
          calls.push(`reflections ${sessionKey} ${limit}`);
          return [note("user prefers pnpm", 1)];
        },
        async recentObservations(sessionKey, limit) {
          calls.push(`observations ${sessionKey} ${limit}`);
          return [note("asked about deploys", 2), note("tests pass", 3)];
        },
      };
    };

    it("Reflections and Observations come from the MemoryProvider for the session, as items with their token count and time", async () => {
      const provider = memory();
      const result = await new LayerRetriever()
        .withMemoryProvider(provider)
        .retrieve("deploy", { layers: [ContextLayer.Reflections, ContextLayer.Observations], sessionKey: "s-9" });
      expect(provider.calls).toEqual(["reflections s-9 5", "observations s-9 5"]);
      expect(result.items).toEqual([
        {
          layer: ContextLayer.Reflections,
          key: "reflection-1",
          content: "user prefers pnpm",
          metadata: { tokenCount: 3, createdAt: "2026-01-01T00:01:00.000Z" },
        },
        {
          layer: ContextLayer.Observations,
          key: "observation-1",
          content: "asked about deploys",
          metadata: { tokenCount: 3, createdAt: "2026-01-01T00:02:00.000Z" },
        },
        {
          layer: ContextLayer.Observations,
          key: "observation-2",
          content: "tests pass",
          metadata: { tokenCount: 3, createdAt: "2026-01-01T00:03:00.000Z" },
        },
      ]);
    });

    it("Scenario: No session key in context skips memory — without a session key the memory layers are not asked", async () => {
      const provider = memory();
      const result = await new LayerRetriever({ memory: provider }).retrieve("deploy", {
        layers: [ContextLayer.Reflections, ContextLayer.Observations],
      });
      expect(provider.calls).toEqual([]);
      expect(result).toEqual({ keywords: ["deploy"], items: [], failures: [] });
    });

    it("without a MemoryProvider the memory layers are empty, without error", async () => {
      const result = await new LayerRetriever().retrieve("deploy", {
        layers: [ContextLayer.Reflections, ContextLayer.Observations],
        sessionKey: "s",
      });
      expect(result).toEqual({ keywords: ["deploy"], items: [], failures: [] });
    });
  });

  it("without a LayerSearch the knowledge layers are empty, without error", async () => {
    expect(await new LayerRetriever().retrieve("deploy")).toEqual({ keywords: ["deploy"], items: [], failures: [] });
  });
});
