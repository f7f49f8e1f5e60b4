import * as z from "zod";
import type { KnowledgeHit, KnowledgeStore } from "../../content-store/knowledge-store.js";
import type { SessionLimits } from "../../knowledge/session-limits.js";
import { KNOWLEDGE_KINDS, KNOWLEDGE_LAYERS } from "../../store/knowledge-repository.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "./tool.js";
import { errorMessage } from "../../errors.js";

export interface KnowledgeToolsDeps {
  store: Pick<KnowledgeStore, "save" | "delete" | "get">;
  /** The user's own store under `$SYLK_HOME`, for every project (opened on first use). */
  userStore: () => Pick<KnowledgeStore, "save" | "delete" | "get">;
  /** The user's store if it exists, to look an id up without making the file. */
  existingUserStore: () => Pick<KnowledgeStore, "delete" | "get"> | undefined;
  /** Ranked search by the query's keywords (the retriever's keyword extraction). */
  search(query: string, options: { layers?: ReadonlyArray<(typeof KNOWLEDGE_LAYERS)[number]>; limit: number }): KnowledgeHit[];
  limits: SessionLimits;
  sessionId(): string;
}

/**
 * `save_knowledge`, `search_knowledge`, `delete_knowledge`. A save or a
 * deletion changes what later sessions are told (in every project, for the
 * user's store), so the two are kind `remember`: approved like a write,
 * with what is kept and where shown to the user. A search only reads.
 */
export function createKnowledgeTools(deps: KnowledgeToolsDeps): ToolDefinition[] {
  const saveKnowledge = defineTool({
    name: "save_knowledge",
    description: toolDescription(import.meta.url, "save-knowledge.txt"),
    schema: z.strictObject({
      kind: z.enum(KNOWLEDGE_KINDS).describe("rule, preference, definition or fact."),
      key: z.string().min(1).max(120).describe("A short name for it (what a search shows first)."),
      content: z.string().min(1).max(4_000).describe("What to remember, complete on its own."),
      category: z.string().min(1).max(60).optional().describe("A topic to group it under (build, style, deploy, …)."),
      scope: z
        .enum(["project", "user"])
        .default("project")
        .describe("project: this repository only (default); user: every project of this user (their own habits and preferences)."),
    }),
    kind: "remember",
    targets: (input) => ({ memory: { scope: input.scope, what: `${input.kind} "${input.key}": ${input.content}` } }),
    async execute(input) {
      if (!deps.limits.reserve("knowledge")) {
        throw new ToolError(
          `This session has saved ${deps.limits.cap("knowledge")} knowledge items, its limit (knowledge.maxKnowledgePerSession). Save only what matters most, in a later session.`,
        );
      }
      try {
        const store = input.scope === "user" ? deps.userStore() : deps.store;
        const item = store.save({
          layer: "user_knowledge",
          kind: input.kind,
          key: input.key,
          content: input.content,
          category: input.category ?? null,
          source: "agent",
          sessionId: deps.sessionId() || null,
          ...(input.scope === "user" ? { details: { scope: "user" } } : {}),
        });
        const where = input.scope === "user" ? " for every project" : "";
        return {
          output: `Saved ${input.kind} "${item.key}"${where} (id ${item.id}).`,
          display: `saved ${input.kind}${where}: ${item.key}`,
        };
      } catch (error) {
        deps.limits.release("knowledge");
        throw new ToolError(`Not saved: ${errorMessage(error)}.`);
      }
    },
  });
  const searchKnowledge = defineTool({
    name: "search_knowledge",
    description: toolDescription(import.meta.url, "search-knowledge.txt"),
    schema: z.strictObject({
      query: z.string().min(1).describe("What to look for."),
      layer: z
        .enum(KNOWLEDGE_LAYERS)
        .optional()
        .describe("Only this layer: user_knowledge, agent_learnings, skill_patterns or external_knowledge."),
      limit: z.number().int().min(1).max(30).default(10).describe("Most items."),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const hits = deps.search(input.query, { ...(input.layer ? { layers: [input.layer] } : {}), limit: input.limit });
      if (hits.length === 0) return { output: "source: knowledge · 0 results\nNothing saved matches.", display: "no knowledge found" };
      const lines = hits.map(
        ({ item }) =>
          `- [${item.layer} · ${item.kind}${item.details.scope === "user" ? " · every project" : ""}] ${item.key}: ${item.content} (id ${item.id}${item.category ? ` · ${item.category}` : ""})`,
      );
      return { output: [`source: knowledge · ${hits.length} results`, ...lines].join("\n"), display: `${hits.length} knowledge items` };
    },
  });
  const deleteKnowledge = defineTool({
    name: "delete_knowledge",
    description: toolDescription(import.meta.url, "delete-knowledge.txt"),
    schema: z.strictObject({ id: z.string().min(1).describe("The item's id, as search_knowledge shows it.") }),
    kind: "remember",
    targets: (input) => {
      const found = findItem(input.id);
      return {
        memory: {
          scope: found?.scope ?? "project",
          what: found ? `${found.item.kind} "${found.item.key}": ${found.item.content}` : `item ${input.id}`,
        },
      };
    },
    // An id that is nowhere fails before the user is asked about it.
    preview(input) {
      if (!findItem(input.id)) throw new ToolError(unknownId(input.id));
      return {};
    },
    async execute(input) {
      const found = findItem(input.id);
      if (!found?.store.delete(input.id)) throw new ToolError(unknownId(input.id));
      return { output: `Deleted ${found.item.kind} "${found.item.key}".`, display: `deleted: ${found.item.key}` };
    },
  });
  /** The item and the store holding it: the project's, else the user's (never made just to look). */
  function findItem(id: string) {
    const inProject = deps.store.get(id);
    if (inProject) return { item: inProject, store: deps.store, scope: "project" as const };
    const userStore = deps.existingUserStore();
    const inUser = userStore?.get(id);
    return userStore && inUser ? { item: inUser, store: userStore, scope: "user" as const } : undefined;
  }
  return [saveKnowledge, searchKnowledge, deleteKnowledge];
}

function unknownId(id: string): string {
  return `No knowledge item has the id ${id}; search_knowledge shows the ids.`;
}
