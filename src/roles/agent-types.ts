/**
 * Seed 002 "Agent Classification": every agent type, what it does when its
 * quality degrades, and the window the table gives it. Each role's own
 * prompt and tools come later; here the type decides the category and the
 * learned profile (`AgentHandoffProfile` is kept per type and model).
 */

/** Knowledge agents evict and continue; pipeline and standalone agents hand off to a new instance of their type. */
export type AgentCategory = "knowledge" | "pipeline" | "standalone";

/** Where an agent runs: as the agent the user talks to, or as a step of a pipeline. */
export type AgentPlacement = "main" | "pipeline";

export const AGENT_TYPES = [
  "librarian",
  "archivalist",
  "academic",
  "architect",
  "engineer",
  "designer",
  "inspector",
  "tester",
  "orchestrator",
  "guide",
] as const;

export type AgentType = (typeof AGENT_TYPES)[number];

export const DEFAULT_AGENT_TYPE: AgentType = "engineer";

interface AgentTypeSpec {
  /** The category in a pipeline, or always for types that only ever have one. */
  category: AgentCategory;
  /** Inspector and tester are pipeline agents inside a pipeline and standalone on their own. */
  categoryAsMain?: AgentCategory;
  /** The seed table's window; used only when neither the settings nor the model say. */
  defaultWindowTokens: number;
  /** The seed's model tier, for the record (the configured model is what runs). */
  seedModel: "opus" | "sonnet" | "haiku";
}

const ONE_MILLION = 1_000_000;
const TWO_HUNDRED_K = 200_000;

const SPECS: Record<AgentType, AgentTypeSpec> = {
  librarian: { category: "knowledge", defaultWindowTokens: ONE_MILLION, seedModel: "sonnet" },
  archivalist: { category: "knowledge", defaultWindowTokens: ONE_MILLION, seedModel: "sonnet" },
  academic: { category: "knowledge", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "opus" },
  architect: { category: "knowledge", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "opus" },
  engineer: { category: "pipeline", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "opus" },
  designer: { category: "pipeline", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "sonnet" },
  inspector: { category: "pipeline", categoryAsMain: "standalone", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "haiku" },
  tester: { category: "pipeline", categoryAsMain: "standalone", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "haiku" },
  orchestrator: { category: "standalone", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "haiku" },
  guide: { category: "standalone", defaultWindowTokens: TWO_HUNDRED_K, seedModel: "haiku" },
};

export function isAgentType(value: string): value is AgentType {
  return (AGENT_TYPES as readonly string[]).includes(value);
}

export function categoryOf(type: AgentType, placement: AgentPlacement): AgentCategory {
  const spec = SPECS[type];
  return placement === "main" ? (spec.categoryAsMain ?? spec.category) : spec.category;
}

/** What a detected degradation does to an agent of this category (seed: knowledge → eviction; others → same-type handoff). */
export function degradationActionOf(category: AgentCategory): "evict" | "handoff" {
  return category === "knowledge" ? "evict" : "handoff";
}

/** How a window sheds turns when it must (seed `GetEvictionConfig`). */
export const EVICTION_STRATEGIES = ["recency", "topic", "task"] as const;

export type EvictionStrategyName = (typeof EVICTION_STRATEGIES)[number];

/**
 * Seed `GetEvictionConfig`: the librarian and the archivalist evict the
 * oldest turns, the academic whole topic clusters, the architect finished
 * tasks. Agents that hand off evict only under the token safety net, the
 * oldest first.
 */
export function evictionStrategyOf(type: AgentType): EvictionStrategyName {
  if (type === "academic") return "topic";
  if (type === "architect") return "task";
  return "recency";
}

export function defaultWindowOf(type: AgentType): number {
  return SPECS[type].defaultWindowTokens;
}
