import { estimateTokens } from "../../../tokens/estimate-tokens.js";

/** A tool's `max_tokens`, clamped to what the window can still take (never below 100). */
export function tokenBudget(requested: number, availableTokens: number): number {
  return Math.max(100, Math.min(requested, availableTokens));
}

export interface FittedBlocks {
  kept: string[];
  tokens: number;
  /** Some blocks did not fit the budget. */
  truncated: boolean;
}

/** Whole blocks, in order, while they fit `budget` tokens (the header's share included by the caller). */
export function fitBlocks(blocks: readonly string[], budget: number): FittedBlocks {
  const kept: string[] = [];
  let tokens = 0;
  for (const block of blocks) {
    const cost = estimateTokens(block) + 1;
    if (tokens + cost > budget) return { kept, tokens, truncated: true };
    kept.push(block);
    tokens += cost;
  }
  return { kept, tokens, truncated: false };
}

/** The role tools' first line: `source: … · N results · tokens: … · truncated: …`, then any details. */
export function resultHeader(source: string, fitted: FittedBlocks, details: readonly string[] = []): string {
  return [`source: ${source}`, `${fitted.kept.length} results`, `tokens: ${fitted.tokens}`, `truncated: ${fitted.truncated}`, ...details].join(" · ");
}

/** The first line of some text that says something, clipped to `max` characters. */
export function firstLine(text: string, max = 160): string {
  const line = text.split("\n").find((candidate) => candidate.trim().length > 0)?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A moment as the tools show it: UTC, to the minute. */
export function shownTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString().slice(0, 16).replace("T", " ");
}
