import { estimateTokens } from "../tokens/estimate-tokens.js";

/**
 * What the user told Sylk to keep (`# always use pnpm`, `sylk memory add`)
 * applies to every prompt from the next one on, as an AGENTS.md line would:
 * users of other agents expect a `#` note to take effect at once. Only the
 * user's own notes stand; what an agent saved is knowledge, found by a
 * prompt's keywords when `knowledge.enabled` is on.
 */
export interface StandingRule {
  id: string;
  kind: string;
  content: string;
  /** Kept for every project (the user's own store) rather than this one. */
  everyProject: boolean;
}

export const STANDING_RULES_TITLE = "## The User's Standing Rules";

/** Tokens the section may take; the newest rules are kept when there are more. */
export const STANDING_RULES_TOKEN_BUDGET = 2_000;

/** Rules first, then preferences, definitions and facts. */
const KIND_ORDER = ["rule", "preference", "definition", "fact"];

/**
 * The section, or "" when there is nothing to say. `rules` come newest
 * first; those that do not fit the budget are left out, and the section says
 * how many, so the model knows the list is not whole.
 */
export function standingRulesSection(rules: readonly StandingRule[], budgetTokens = STANDING_RULES_TOKEN_BUDGET): string {
  const kept: StandingRule[] = [];
  let tokens = estimateTokens(STANDING_RULES_TITLE) + 20;
  for (const rule of rules) {
    const cost = estimateTokens(rule.content) + 2;
    if (tokens + cost > budgetTokens) continue;
    kept.push(rule);
    tokens += cost;
  }
  if (kept.length === 0) return "";
  const rank = (kind: string) => (KIND_ORDER.includes(kind) ? KIND_ORDER.indexOf(kind) : KIND_ORDER.length);
  const ordered = kept
    .map((rule, newness) => ({ rule, newness }))
    .sort((a, b) => rank(a.rule.kind) - rank(b.rule.kind) || a.newness - b.newness);
  const lines = ordered.map(({ rule }) => `- ${rule.content.replace(/\n/g, "\n  ")}`);
  const left = rules.length - kept.length;
  return [
    STANDING_RULES_TITLE,
    "The user asked for these in every session; follow them unless the user now says otherwise.",
    ...lines,
    ...(left > 0 ? [`(${left} more did not fit; \`/memory list\` shows them all.)`] : []),
  ].join("\n");
}
