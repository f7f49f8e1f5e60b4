/**
 * The nine context layers (six of knowledge and session state, plus
 * Observations, Reflections and Pending Inquiries) and the item every layer
 * yields. The values are stable identifiers a store may persist.
 */
export const ContextLayer = {
  ToolRegistry: "tool_registry",
  UserKnowledge: "user_knowledge",
  SkillPatterns: "skill_patterns",
  ExternalKnowledge: "external_knowledge",
  AgentLearnings: "agent_learnings",
  RuntimeContext: "runtime_context",
  Observations: "observations",
  Reflections: "reflections",
  PendingInquiries: "pending_inquiries",
} as const;

export type ContextLayer = (typeof ContextLayer)[keyof typeof ContextLayer];

/** Every layer, in the order the prompt shows them. */
export const LAYERS: readonly ContextLayer[] = Object.values(ContextLayer);

/**
 * The layers `retrieve` searches when no layers are named: the four the
 * knowledge store backs. Tools, runtime state, memory and inquiries are asked
 * for explicitly by whoever assembles the prompt.
 */
export const DEFAULT_RETRIEVAL_LAYERS: readonly ContextLayer[] = [
  ContextLayer.UserKnowledge,
  ContextLayer.SkillPatterns,
  ContextLayer.ExternalKnowledge,
  ContextLayer.AgentLearnings,
];

/** The layers whose items come from a keyword search of the knowledge store (`LayerSearch`). */
export const KNOWLEDGE_LAYERS: ReadonlySet<ContextLayer> = new Set(DEFAULT_RETRIEVAL_LAYERS);

export type ContextItemMetadata = Readonly<Record<string, string | number | boolean>>;

/**
 * One retrieved piece of context. `key` names it within its layer (a
 * knowledge key, a tool name, a skill name, an inquiry's topic); `content` is
 * what the model reads. Well-known metadata: `category` (user knowledge),
 * `context` (an inquiry's reason), `tokenCount` and `createdAt` (ISO-8601,
 * memory notes).
 */
export interface ContextItem {
  layer: ContextLayer;
  key: string;
  content: string;
  source?: string;
  score?: number;
  metadata?: ContextItemMetadata;
}

/** A pending inquiry as an item: topic → key, question → content, why → `metadata.context`. */
export function inquiryItem(inquiry: { topic: string; question: string; context?: string }): ContextItem {
  return {
    layer: ContextLayer.PendingInquiries,
    key: inquiry.topic,
    content: inquiry.question,
    ...(inquiry.context ? { metadata: { context: inquiry.context } } : {}),
  };
}
