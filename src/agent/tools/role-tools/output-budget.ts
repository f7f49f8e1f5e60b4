import { estimateTokens } from "../../../tokens/estimate-tokens.js";

/** Tokens kept back for a section's "… N more not shown" line, so a cut section can always say so. */
const NOTE_RESERVE = 30;

/**
 * The body of a role tool's answer, filled line by line within a token
 * budget. Each line is charged on its own (rounded up), which overestimates
 * the whole a little: the rendered result never exceeds the budget.
 */
export class OutputBudget {
  readonly lines: string[] = [];
  private used = 0;
  private cut = false;

  constructor(
    private readonly limit: number,
    private readonly count: (text: string) => number = estimateTokens,
  ) {}

  get truncated(): boolean {
    return this.cut;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  /**
   * Adds the line when it fits below `ceiling` (default: the whole budget)
   * with room left for a closing note; otherwise adds nothing and marks the
   * answer truncated.
   */
  add(line: string, ceiling: number = this.limit): boolean {
    const cost = this.count(`${line}\n`);
    if (this.used + cost + NOTE_RESERVE > Math.min(ceiling, this.limit)) {
      this.cut = true;
      return false;
    }
    this.lines.push(line);
    this.used += cost;
    return true;
  }

  /** A closing note (what was left out), which may use the reserve. */
  note(line: string): void {
    const cost = this.count(`${line}\n`);
    if (this.used + cost > this.limit) return;
    this.lines.push(line);
    this.used += cost;
  }

  /** Adds the lines in order until one does not fit; then notes how many were left out. */
  addAll(lines: readonly string[], leftOut: (count: number) => string, ceiling?: number): number {
    let added = 0;
    for (const line of lines) {
      if (!this.add(line, ceiling)) break;
      added++;
    }
    if (added < lines.length) this.note(leftOut(lines.length - added));
    return added;
  }
}

/** `max_tokens` within [100, what the window can still take], as the context tools clamp it. */
export function clampBudget(requested: number, available: number): number {
  return Math.max(100, Math.min(requested, available));
}

/** The header every role tool's answer opens with: `source: … · N results · tokens: … · truncated: …`, then any details. */
export function resultHeader(source: string, results: number, tokens: number, truncated: boolean, details: readonly string[] = []): string {
  return [`source: ${source}`, `${results} results`, `tokens: ${tokens}`, `truncated: ${truncated}`, ...details].join(" · ");
}

/**
 * Header plus body, with the header's token figure the count of the whole
 * text (computed twice: the figure's own digits can change it).
 */
export function renderWithHeader(
  source: string,
  results: number,
  truncated: boolean,
  body: readonly string[],
  count: (text: string) => number = estimateTokens,
): { output: string; tokens: number } {
  const text = (tokens: number) => [resultHeader(source, results, tokens, truncated), ...body].join("\n");
  let tokens = count(text(0));
  tokens = count(text(tokens));
  return { output: text(tokens), tokens };
}
