import type { KnowledgeItem, KnowledgeKind, KnowledgeLayer } from "../../store/knowledge-repository.js";
import { KNOWLEDGE_LAYERS } from "../../store/knowledge-repository.js";
import type { Inquiry } from "../../store/inquiry-repository.js";
import { existsSync } from "node:fs";
import { extractKeywords } from "../extract-keywords.js";
import type { KnowledgeStore } from "../../content-store/knowledge-store.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import type { LoadedConfig } from "../../config/load-config.js";
import type { SessionRepository } from "../../store/session-repository.js";
import type { Inquiries } from "./inquiries.js";
import type { UserKnowledge } from "./user-knowledge.js";

/**
 * What `sylk memory` and `/memory` do: list, search, add, remove
 * and answer, over the project's knowledge and pending questions. One
 * implementation for both, so the command line and the TUI never differ.
 */
export type MemoryRequest =
  | { action: "list"; what?: string }
  | { action: "search"; query: string }
  | {
      action: "add";
      text: string;
      kind?: KnowledgeKind;
      key?: string /** For every project (`$SYLK_HOME`), not this one. */;
      user?: boolean;
    }
  | { action: "rm"; id: string }
  | { action: "answer"; id: string; text: string };

export interface MemoryReport {
  /** For `--json`. */
  json: Record<string, unknown>;
  /** For people. */
  lines: string[];
}

const LIST_LIMIT = 50;

export function parseMemoryRequest(given: readonly string[]): MemoryRequest {
  const user = given.includes("--user");
  const words = given.filter((word) => word !== "--user");
  const [action = "list", ...rest] = words;
  switch (action) {
    case "list":
      return { action: "list", ...(rest[0] ? { what: rest[0] } : {}) };
    case "search":
      if (rest.length === 0) throw new Error("Usage: memory search <words>");
      return { action: "search", query: rest.join(" ") };
    case "add":
      if (rest.length === 0) throw new Error("Usage: memory add <text> (a rule, preference, definition or fact to keep)");
      return { action: "add", text: rest.join(" "), ...(user ? { user: true } : {}) };
    case "rm":
      if (!rest[0]) throw new Error("Usage: memory rm <id>");
      return { action: "rm", id: rest[0] };
    case "answer":
      if (!rest[0] || rest.length < 2) throw new Error("Usage: memory answer <question id> <your answer>");
      return { action: "answer", id: rest[0], text: rest.slice(1).join(" ") };
    default:
      throw new Error(`Unknown memory action "${action}": list, search, add, rm or answer.`);
  }
}

/** What a memory request reads and writes: the project's knowledge and questions, and the latest session's notes. */
export interface MemorySources {
  knowledge: KnowledgeStore;
  inquiries: Pick<Inquiries, "pending" | "answer">;
  loadedConfig: Pick<LoadedConfig, "config">;
  contentStore: Pick<UniversalContentStore, "recentOfType">;
  sessions: Pick<SessionRepository, "latest">;
  /** The user's own store, for every project. */
  userKnowledge: Pick<UserKnowledge, "path" | "open">;
}

export function runMemoryRequest(services: MemorySources, request: MemoryRequest): MemoryReport {
  // The user's store is opened when it exists or is written to: a listing never creates it.
  const writesUser = request.action === "add" && request.user === true;
  const user = existsSync(services.userKnowledge.path) || writesUser ? services.userKnowledge.open() : undefined;
  const off = services.loadedConfig.config.knowledge.enabled
    ? []
    : ["(knowledge.enabled is off: your own notes apply to every prompt; what the agents saved is not put in prompts until it is on.)"];
  switch (request.action) {
    case "list": {
      if (request.what === "observations" || request.what === "reflections") {
        // Observational memory belongs to a conversation: the latest one's.
        const session = services.sessions.latest();
        const notes = (type: "observation" | "reflection") =>
          session ? services.contentStore.recentOfType(session.id, type, LIST_LIMIT) : [];
        const reflections = notes("reflection");
        const observations = notes("observation");
        const line = (entry: { id: string; contentType: string; content: string; metadata: Record<string, unknown> }) =>
          `${entry.id.slice(0, 8)}  ${entry.contentType}${entry.contentType === "reflection" ? ` (generation ${String(entry.metadata.generation ?? 1)})` : ""}\n${entry.content}`;
        return {
          json: {
            session_id: session?.id ?? null,
            reflections: reflections.map((entry) => ({
              id: entry.id,
              content: entry.content,
              generation: entry.metadata.generation ?? 1,
              created_at: entry.timestamp,
            })),
            observations: observations.map((entry) => ({ id: entry.id, content: entry.content, created_at: entry.timestamp })),
          },
          lines:
            reflections.length + observations.length === 0
              ? ["No observations in the latest session."]
              : [...reflections, ...observations].map(line),
        };
      }
      if (request.what === "inquiries" || request.what === "questions") {
        const pending = services.inquiries.pending(LIST_LIMIT);
        return {
          json: { inquiries: pending.map(inquiryJson) },
          lines: pending.length === 0 ? ["No questions are waiting for you."] : pending.map(inquiryLine),
        };
      }
      const layer = request.what as KnowledgeLayer | undefined;
      if (layer && !(KNOWLEDGE_LAYERS as readonly string[]).includes(layer)) {
        throw new Error(`Nothing called "${request.what}" is kept: list ${KNOWLEDGE_LAYERS.join(", ")}, inquiries or observations.`);
      }
      const items = [
        ...services.knowledge.list({ ...(layer ? { layer } : {}), limit: LIST_LIMIT }),
        ...(user
          ?.list({ ...(layer ? { layer } : {}), limit: LIST_LIMIT })
          .map((item) => ({ ...item, details: { ...item.details, scope: "user" } })) ?? []),
      ];
      const pending = layer ? [] : services.inquiries.pending(LIST_LIMIT);
      return {
        json: { items: items.map(itemJson), ...(layer ? {} : { inquiries: pending.map(inquiryJson) }) },
        lines: [
          ...(items.length === 0 ? ["Nothing is kept yet."] : items.map(itemLine)),
          ...(pending.length > 0 ? ["", `Questions for you (answer with: memory answer <id> <answer>):`, ...pending.map(inquiryLine)] : []),
          ...off,
        ],
      };
    }
    case "search": {
      const hits = services.knowledge.search(extractKeywords(request.query) ?? [], { limit: 20 });
      return {
        json: { items: hits.map(({ item, score }) => ({ ...itemJson(item), score })) },
        lines: hits.length === 0 ? ["Nothing kept matches."] : hits.map(({ item }) => itemLine(item)),
      };
    }
    case "add": {
      const kind = request.kind ?? kindOf(request.text);
      if (request.user && !user) throw new Error("The user's own knowledge is not open here.");
      const store = request.user && user ? user : services.knowledge;
      const item = store.save({
        layer: "user_knowledge",
        kind,
        key: request.key ?? keyOf(request.text),
        content: request.text,
        source: "user",
        ...(request.user ? { details: { scope: "user" } } : {}),
      });
      const where = request.user ? " for every project" : "";
      return {
        json: { item: itemJson(item) },
        lines: [`Kept ${item.kind}${where} ${item.id.slice(0, 8)}: ${item.content}. It applies from your next prompt.`],
      };
    }
    case "rm": {
      const { item, store } = findItem(services.knowledge, user, request.id);
      store.delete(item.id);
      return { json: { removed: itemJson(item) }, lines: [`Removed ${item.kind} ${item.id.slice(0, 8)}: ${item.key}`] };
    }
    case "answer": {
      const { inquiry, knowledgeId } = services.inquiries.answer(request.id, request.text);
      return {
        json: { inquiry: inquiryJson(inquiry), knowledge_id: knowledgeId },
        lines: [`Answered "${inquiry.question}"; kept as knowledge ${knowledgeId.slice(0, 8)}.`, ...off],
      };
    }
  }
}

/** "always", "never", "must", "use … instead": a rule; "I prefer", "I like": a preference; "X means", "X is": a fact. */
function kindOf(text: string): KnowledgeKind {
  if (/\b(always|never|must|don't|do not|use\b.*\binstead)\b/i.test(text)) return "rule";
  if (/\b(prefer|like|rather)\b/i.test(text)) return "preference";
  if (/\bmeans\b|\bstands for\b/i.test(text)) return "definition";
  return "fact";
}

function keyOf(text: string): string {
  const keywords = extractKeywords(text) ?? [];
  return (keywords.slice(0, 3).join(" ") || text.slice(0, 40)).slice(0, 60);
}

/** The item an id (or its start) names, in this project's store or the user's. */
function findItem(
  project: KnowledgeStore,
  user: KnowledgeStore | undefined,
  idOrPrefix: string,
): { item: KnowledgeItem; store: KnowledgeStore } {
  const stores = [project, ...(user ? [user] : [])];
  const matches = stores.flatMap((store) =>
    store
      .list({ limit: 10_000 })
      .filter((item) => item.id.startsWith(idOrPrefix))
      .map((item) => ({ item, store })),
  );
  if (matches.length === 1) return matches[0] as { item: KnowledgeItem; store: KnowledgeStore };
  throw new Error(
    matches.length === 0
      ? `Nothing kept has the id ${idOrPrefix}; \`memory list\` shows the ids.`
      : `${matches.length} items start with ${idOrPrefix}; give more of the id.`,
  );
}

function itemLine(item: KnowledgeItem): string {
  const scope = item.details.scope === "user" ? " · every project" : "";
  const standing = item.layer === "user_knowledge" && item.source === "user" ? " · standing" : "";
  return `${item.id.slice(0, 8)}  ${item.layer === "user_knowledge" ? item.kind : item.layer}${item.category ? ` · ${item.category}` : ""}${scope}${standing}  ${titled(item)}`;
}

/** `key: content`, or the content alone when its key is only words taken from it (`# always use pnpm` is not shown twice). */
function titled(item: KnowledgeItem): string {
  const content = item.content.toLowerCase();
  const derived = item.key.split(/\s+/).every((word) => content.includes(word.toLowerCase()));
  return derived ? item.content : `${item.key}: ${item.content}`;
}

function inquiryLine(inquiry: Inquiry): string {
  return `${inquiry.id.slice(0, 8)}  [${inquiry.topic}] ${inquiry.question} (context: ${inquiry.context})`;
}

function itemJson(item: KnowledgeItem) {
  return {
    id: item.id,
    layer: item.layer,
    kind: item.kind,
    key: item.key,
    content: item.content,
    source: item.source,
    scope: item.details.scope === "user" ? "user" : "project",
    category: item.category,
    confidence: item.confidence,
    uses: item.uses,
    created_at: item.createdAt,
  };
}

function inquiryJson(inquiry: Inquiry) {
  return {
    id: inquiry.id,
    topic: inquiry.topic,
    question: inquiry.question,
    context: inquiry.context,
    status: inquiry.status,
    created_at: inquiry.createdAt,
  };
}
