import { estimateTokens } from "../../../tokens/estimate-tokens.js";
import { resultHeader as headerLine } from "./output-budget.js";

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

/** The role tools' first line for blocks fitted to a budget. */
export function resultHeader(source: string, fitted: FittedBlocks, details: readonly string[] = []): string {
  return headerLine(source, fitted.kept.length, fitted.tokens, fitted.truncated, details);
}

/** The first line of some text that says something, clipped to `max` characters. */
export function firstLine(text: string, max = 160): string {
  const line =
    text
      .split("\n")
      .find((candidate) => candidate.trim().length > 0)
      ?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A moment as the tools show it: UTC, to the minute. */
export function shownTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString().slice(0, 16).replace("T", " ");
}
