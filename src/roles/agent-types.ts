/**
 * Every agent type and what it does when its quality degrades. A role's own
 * prompt and tools live in `src/roles/`; here the type decides the category
 * and the learned profile (`AgentHandoffProfile` is kept per type and model).
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
}

const SPECS: Record<AgentType, AgentTypeSpec> = {
  librarian: { category: "knowledge" },
  archivalist: { category: "knowledge" },
  academic: { category: "knowledge" },
  architect: { category: "knowledge" },
  engineer: { category: "pipeline" },
  designer: { category: "pipeline" },
  inspector: { category: "pipeline", categoryAsMain: "standalone" },
  tester: { category: "pipeline", categoryAsMain: "standalone" },
  orchestrator: { category: "standalone" },
  guide: { category: "standalone" },
};

export function isAgentType(value: string): value is AgentType {
  return (AGENT_TYPES as readonly string[]).includes(value);
}

export function categoryOf(type: AgentType, placement: AgentPlacement): AgentCategory {
  const spec = SPECS[type];
  return placement === "main" ? (spec.categoryAsMain ?? spec.category) : spec.category;
}

/** What a detected degradation does to an agent of this category (knowledge → eviction; others → same-type handoff). */
export function degradationActionOf(category: AgentCategory): "evict" | "handoff" {
  return category === "knowledge" ? "evict" : "handoff";
}

/** How a window sheds turns when it must. */
export const EVICTION_STRATEGIES = ["recency", "topic", "task"] as const;

export type EvictionStrategyName = (typeof EVICTION_STRATEGIES)[number];

/**
 * How each type evicts: the librarian and the archivalist evict the
 * oldest turns, the academic whole topic clusters, the architect finished
 * tasks. Agents that hand off evict only under the token safety net, the
 * oldest first.
 */
export function evictionStrategyOf(type: AgentType): EvictionStrategyName {
  if (type === "academic") return "topic";
  if (type === "architect") return "task";
  return "recency";
}
