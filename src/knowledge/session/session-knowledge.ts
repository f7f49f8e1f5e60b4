import { createKnowledgeTools } from "../../agent/tools/knowledge-tools.js";
import { createRecordInquiryTool } from "../../agent/tools/record-inquiry.js";
import { createSkillTools } from "../../agent/tools/skill-tools.js";
import type { ToolRunResult } from "../../agent/tools/tool-registry.js";
import type { ToolCall } from "../../agent/tools/tool-registry.js";
import type { ToolContext, ToolDefinition } from "../../agent/tools/tool.js";
import type { SylkConfig } from "../../config/schema.js";
import { assemblePrompt, type MemoryContext } from "../assemble-prompt.js";
import { type ContextItem, ContextLayer, inquiryItem } from "../context-layers.js";
import type { LayerSearch, ToolDescriptor } from "../context-providers.js";
import { LayerRetriever } from "../layer-retriever.js";
import { extractKeywords } from "../extract-keywords.js";
import { SHOWN_CONFIDENCE } from "../agent-learning-engine.js";
import { RuntimeContextAdapter } from "../runtime-context-adapter.js";
import { SessionLimits } from "../session-limits.js";
import { ToolRegistryAdapter } from "../tool-registry-adapter.js";
import { standingRulesSection, type StandingRule } from "../standing-rules.js";
import type { KnowledgeHit, KnowledgeStore } from "../../content-store/knowledge-store.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import type { ProjectPaths } from "../../project/project-paths.js";
import { KNOWLEDGE_LAYERS, type KnowledgeLayer } from "../../store/knowledge-repository.js";
import { UserKnowledge } from "./user-knowledge.js";
import { existsSync } from "node:fs";
import type { Inquiries } from "./inquiries.js";
import { learnFromTools } from "./agent-learning-tools.js";

/** The layers the context hook retrieves for each prompt (the six of knowledge and session state; the memory layers come with observational memory). */
const PROMPT_LAYERS: readonly ContextLayer[] = [
  ContextLayer.RuntimeContext,
  ContextLayer.ToolRegistry,
  ContextLayer.UserKnowledge,
  ContextLayer.SkillPatterns,
  ContextLayer.ExternalKnowledge,
  ContextLayer.AgentLearnings,
  ContextLayer.PendingInquiries,
];

/** How many of the user's notes a store is asked for; the section's token budget decides how many are shown. */
const STANDING_RULES_LISTED = 200;

/** What knowledge reads and writes of a project: its knowledge, its questions, the session's notes, and where the user's own store lives. */
export interface KnowledgeSources {
  paths: Pick<ProjectPaths, "sylkHome">;
  knowledge: KnowledgeStore;
  inquiries: Pick<Inquiries, "record" | "pending">;
  contentStore: Pick<UniversalContentStore, "recentOfType">;
}

/**
 * Knowledge's part of one conversation: the user's standing rules in every
 * prompt, and, with `knowledge.enabled`, the knowledge tools, the learning
 * engine around the session's tools, and the context hook that adds what the
 * prompt's keywords find, by layer, after the system prompt.
 */
export class SessionKnowledge {
  private readonly limits: SessionLimits;
  private readonly runtime: RuntimeContextAdapter;
  /** The user's knowledge for every project, under `$SYLK_HOME` (opened when first needed). */
  private readonly user: UserKnowledge;
  /** The standing rules as last read, with the stores' change stamps then. */
  private standingRulesRead: { stamp: string; rules: StandingRule[] } | undefined;

  constructor(
    private readonly project: KnowledgeSources,
    private readonly config: SylkConfig,
    private readonly sessionId: () => string,
  ) {
    const knowledge = config.knowledge;
    this.limits = new SessionLimits({
      knowledge: knowledge.maxKnowledgePerSession,
      learnings: knowledge.maxLearningsPerSession,
      skills: knowledge.maxSkillsPerSession,
    });
    this.user = new UserKnowledge(project.paths.sylkHome);
    this.runtime = new RuntimeContextAdapter({ knowledgeEnabled: knowledge.enabled, memoryEnabled: config.observationalMemory.enabled });
  }

  get enabled(): boolean {
    return this.config.knowledge.enabled;
  }

  /**
   * `save_knowledge`, `search_knowledge`, `delete_knowledge`,
   * `record_inquiry` and the skill tools; none when knowledge is off. A
   * skill's steps run through `registry`: the same registry, so the same
   * policy, approver and read-only limit, as the call that runs the skill.
   */
  tools(registry: { run(call: ToolCall, context: ToolContext): Promise<ToolRunResult>; names(): string[] }): ToolDefinition[] {
    if (!this.enabled) return [];
    return [
      ...createSkillTools({
        store: this.project.knowledge,
        limits: this.limits,
        sessionId: this.sessionId,
        runTool: (call, context) => registry.run(call, context),
        toolNames: () => registry.names(),
      }),
      ...createKnowledgeTools({
        store: this.project.knowledge,
        userStore: () => this.user.open(),
        existingUserStore: () => (existsSync(this.user.path) ? this.user.open() : undefined),
        search: (query, options) => this.searchBoth(extractKeywords(query) ?? [], options),
        limits: this.limits,
        sessionId: this.sessionId,
      }),
      createRecordInquiryTool({ record: (input) => this.project.inquiries.record({ ...input, sessionId: this.sessionId() || null }) }),
    ];
  }

  /** The session's tools, each watched by the learning engine (unchanged when knowledge is off). */
  watch(tools: readonly ToolDefinition[]): ToolDefinition[] {
    return this.enabled
      ? learnFromTools(tools, { store: this.project.knowledge, limits: this.limits, sessionId: this.sessionId })
      : [...tools];
  }

  /**
   * What follows the system prompt for this prompt: the knowledge its
   * keywords find by layer,
   * and the session's Conversation Memory. Undefined when both are off or
   * nothing was found: the request is then what it always was.
   */
  async systemContextFor(prompt: string, tools: readonly ToolDescriptor[], lastError?: string): Promise<string | undefined> {
    const found = this.enabled ? await this.knowledgeItems(prompt, tools) : [];
    const shown = new Set(found.map((item) => item.metadata?.id));
    // The user's own notes stand in every prompt, knowledge on or off: those the prompt's keywords did not find follow the rest.
    const rules = this.standingRules().filter((rule) => !shown.has(rule.id));
    const items = this.enabled ? [...found, ...this.solutionsFor(lastError).filter((item) => !shown.has(item.metadata?.id))] : [];
    const memory = this.memory();
    const memoryOptions = this.config.observationalMemory;
    const assembled = assemblePrompt("", items, memory, {
      memoryTokenBudget: memoryOptions.memoryTokenBudget,
      maxReflectionsInContext: memoryOptions.maxReflectionsInContext,
      maxObservationsInContext: memoryOptions.maxObservationsInContext,
    });
    return [assembled, standingRulesSection(rules)].filter((part) => part !== "").join("\n\n") || undefined;
  }

  /**
   * The user's own notes in this project's store and the user's store for
   * every project, newest first. Read again only when either store changed:
   * they are in every request, and a user who keeps many would otherwise pay
   * for listing them on each one.
   */
  private standingRules(): StandingRule[] {
    const userStore = existsSync(this.user.path) ? this.user.open() : undefined;
    const stamp = `${this.project.knowledge.changeStamp()}|${userStore?.changeStamp() ?? "none"}`;
    if (this.standingRulesRead?.stamp === stamp) return this.standingRulesRead.rules;
    const ofStore = (store: Pick<KnowledgeStore, "userNotes">, everyProject: boolean) =>
      store.userNotes(STANDING_RULES_LISTED).map((item) => ({ id: item.id, kind: item.kind, content: item.content, everyProject }));
    const rules = [...ofStore(this.project.knowledge, false), ...(userStore ? ofStore(userStore, true) : [])];
    this.standingRulesRead = { stamp, rules };
    return rules;
  }

  /** The session's reflections and observations, when observational memory is on and the session has any. */
  private memory(): MemoryContext {
    const sessionId = this.sessionId();
    // 004: no session, no memory (the key is the running session's, resolved at call time).
    if (!this.config.observationalMemory.enabled || !sessionId) return {};
    const notes = (type: "observation" | "reflection") =>
      this.project.contentStore
        .recentOfType(sessionId, type, 200)
        .map((entry) => ({ content: entry.content, tokenCount: entry.tokenCount, createdAt: new Date(entry.timestamp) }));
    return { reflections: notes("reflection"), observations: notes("observation") };
  }

  private async knowledgeItems(prompt: string, tools: readonly ToolDescriptor[]): Promise<ContextItem[]> {
    const sessionKey = this.sessionId();
    if (sessionKey) this.runtime.setSession(sessionKey);
    const retriever = new LayerRetriever({
      search: this.layerSearch(),
      toolRegistry: new ToolRegistryAdapter(tools),
      runtimeContext: { getRuntimeContext: () => ({ ...this.runtime.getRuntimeContext(), activeToolCount: tools.length }) },
      inquiries: {
        pendingInquiryItems: async (_sessionKey, limit) =>
          this.project.inquiries
            .pending(limit)
            .map((inquiry) => inquiryItem({ topic: inquiry.topic, question: inquiry.question, context: inquiry.context })),
      },
      maxPerLayer: this.config.knowledge.maxPerLayer,
    });
    const { items } = await retriever.retrieve(prompt, { layers: PROMPT_LAYERS, ...(sessionKey ? { sessionKey } : {}) });
    // Runtime context alone is not knowledge: with nothing else found, the request stays as it was.
    return items.some((item) => item.layer !== ContextLayer.RuntimeContext && item.layer !== ContextLayer.ToolRegistry) ? items : [];
  }

  /**
   * Known Solutions for the error the last tool call ended with: the
   * learnings whose text matches its keywords (the same error seen before),
   * beside what the prompt's keywords found.
   */
  private solutionsFor(lastError: string | undefined): ContextItem[] {
    if (!lastError) return [];
    const keywords = extractKeywords(lastError) ?? [];
    return this.searchBoth(keywords, { layers: ["agent_learnings"], limit: this.config.knowledge.maxPerLayer })
      .filter(({ item }) => item.confidence >= SHOWN_CONFIDENCE)
      .map(({ item, score }) => ({
        layer: ContextLayer.AgentLearnings,
        key: item.key,
        content: item.content,
        source: item.source,
        score,
        metadata: { id: item.id, matched: "last error" },
      }));
  }

  /** The project's knowledge and the user's (for every project), ranked together; the user's marked `details.scope = "user"`. */
  private searchBoth(keywords: readonly string[], options: { layers?: readonly KnowledgeLayer[]; limit: number }): KnowledgeHit[] {
    const project = this.project.knowledge.search(keywords, options);
    // A user who never saved anything for every project has no file to open: none is made just to search.
    const user = existsSync(this.user.path)
      ? this.user
          .open()
          .search(keywords, options)
          .map((hit) => ({ ...hit, item: { ...hit.item, details: { ...hit.item.details, scope: "user" } } }))
      : [];
    return [...project, ...user].sort((a, b) => b.score - a.score).slice(0, options.limit);
  }

  close(): void {
    this.user.close();
  }

  /**
   * The knowledge-backed layers, by ranked keyword search in the store;
   * learnings below the shown confidence left out. The retriever asks layer
   * by layer with the same keywords: the store is searched once for all of
   * them (the search was most of the hook's time) and the hits split by layer.
   */
  private layerSearch(): LayerSearch {
    const store = this.project.knowledge;
    let searched: { key: string; hits: KnowledgeHit[] } | undefined;
    const hitsFor = (keywords: readonly string[], perLayer: number) => {
      const key = `${perLayer}\u0000${keywords.join("\u0000")}`;
      if (searched?.key !== key) searched = { key, hits: this.searchBoth(keywords, { limit: perLayer * 2 * KNOWLEDGE_LAYERS.length }) };
      return searched.hits;
    };
    return {
      search: async (layer, keywords, limit) => {
        if (!(KNOWLEDGE_LAYERS as readonly string[]).includes(layer)) return [];
        const shown = hitsFor(keywords, limit)
          .filter(({ item }) => item.layer === layer && (item.layer !== "agent_learnings" || item.confidence >= SHOWN_CONFIDENCE))
          .slice(0, limit);
        store.used(shown.filter(({ item }) => item.details.scope !== "user").map(({ item }) => item));
        return shown.map(
          ({ item, score }): ContextItem => ({
            layer,
            key: item.key,
            content: item.content,
            source: item.source,
            score,
            metadata: {
              id: item.id,
              ...(item.category ? { category: item.category } : {}),
              ...(item.details.scope === "user" ? { scope: "user" } : {}),
            },
          }),
        );
      },
    };
  }
}
