import { estimateTokens } from "../../tokens/estimate-tokens.js";
import type { AccessTracker } from "./access-tracker.js";
import { selectInjection, SINGLE_SIGNAL_PENALTY, type ScoredCandidate } from "./injection-selection.js";
import { prefetchBudget, type PrefetchThresholds } from "./prefetch-config.js";
import { asksForHistory, hasEnoughEvidence, isSmallTalk } from "./prefetch-evidence.js";
import type { PrefetchCandidate, SearchTier, TieredSearcher } from "./tiered-searcher.js";

/** Tier A: the content itself. */
export interface Excerpt {
  key: string;
  source: string;
  entryId?: string;
  path?: string;
  lineRange?: [number, number];
  /** The turn of the running session the entry records: `get_turn_range` can expand it (absent for another session's entries). */
  turn?: number;
  content: string;
  language?: string | null;
  confidence: number;
  tokens: number;
}

/** Tier B: a one-line hint. */
export interface Summary {
  key: string;
  source: string;
  entryId?: string;
  path?: string;
  /** The turn of the running session the entry records: `get_turn_range` can expand it (absent for another session's entries). */
  turn?: number;
  description: string;
  lines: number;
  confidence: number;
  tokens: number;
}

/** A prompt with what prefetch found for it: excerpts to inject and hints to name. */
export interface AugmentedQuery {
  originalQuery: string;
  excerpts: Excerpt[];
  summaries: Summary[];
  tokensUsed: number;
  budgetMax: number;
  tierReached: SearchTier;
  degraded: string[];
  /** Every candidate considered, with its confidence, and what the selection had: what other thresholds would have taken. */
  scored?: { candidates: ScoredCandidate[]; remainingTokens: number; penalty: number; maxBudgetTokens?: number };
}

/** What is already in front of the model: nothing of it is injected again. */
export interface PrefetchSituation {
  sessionId?: string;
  turn: number;
  /** Content keys (`entry:<id>`, `chunk:<id>`) whose content is in the window. */
  inWindow: ReadonlySet<string>;
  /** Project paths whose content is in the window (a file read this session, say). */
  pathsInWindow: ReadonlySet<string>;
}

/** Latency budget of the whole search (full tier < 200 ms). */
const SEARCH_BUDGET_MS = 200;

/**
 * The query augmenter: before the model sees a query, inject at most
 * `maxBudgetPercent` of the remaining window: up to two excerpts (Tier A,
 * 60 % of the budget, ≤ 50 lines each) and three one-line hints (Tier B,
 * 30 %), nothing below the confidence threshold. Confidence needs both
 * signals (multi-signal validation): full-text coverage of the query and a
 * top vector rank; recent content and the current session get a boost.
 */
export class QueryAugmenter {
  constructor(
    private readonly searcher: TieredSearcher,
    private readonly thresholds: () => PrefetchThresholds,
    private readonly tracker: AccessTracker,
  ) {}

  async augment(query: string, remainingTokens: number, situation: PrefetchSituation): Promise<AugmentedQuery> {
    const thresholds = this.thresholds();
    const budget = prefetchBudget(thresholds, remainingTokens);
    const result: AugmentedQuery = {
      originalQuery: query,
      excerpts: [],
      summaries: [],
      tokensUsed: 0,
      budgetMax: budget,
      tierReached: "hot",
      degraded: [],
    };
    if (budget <= 0 || query.trim() === "" || isSmallTalk(query)) return result;
    const found = await this.searcher.search(query, {
      budgetMs: SEARCH_BUDGET_MS,
      historyScope: asksForHistory(query) ? "project" : "session",
      vectorWeight: thresholds.vectorWeight,
      ...(situation.sessionId ? { sessionId: situation.sessionId } : {}),
    });
    result.tierReached = found.tierReached;
    result.degraded = found.degraded;
    const penalty = found.singleSignal ? SINGLE_SIGNAL_PENALTY : 1;
    const maxTurn = Math.max(1, situation.turn, ...found.candidates.map((candidate) => candidate.turn ?? 0));

    // Every candidate with its confidence, below the threshold too: what other thresholds would
    // have taken is what self-tuning retrieval learns from (the episode records `scored`).
    const ranked = found.candidates
      .filter((candidate) => !this.alreadyPresent(candidate, situation) && hasEnoughEvidence(candidate, query))
      .map((candidate) => ({ candidate, confidence: this.confidence(candidate, thresholds, found.singleSignal, maxTurn, situation) }))
      .filter(({ confidence }) => confidence > 0)
      .sort((a, b) => b.confidence - a.confidence);
    const forms = new Map<ScoredCandidate, { excerpt: Excerpt; summary: Summary }>();
    for (const { candidate, confidence } of ranked) {
      const turn = candidate.turn !== undefined && candidate.sessionId === situation.sessionId ? { turn: candidate.turn } : {};
      const excerpt = toExcerpt(candidate, confidence, thresholds.maxExcerptLines, turn);
      const summary = toSummary(candidate, confidence, turn);
      const record = {
        key: candidate.key,
        ...(candidate.path ? { path: candidate.path } : {}),
        confidence,
        excerptTokens: excerpt.tokens,
        summaryTokens: summary.tokens,
      };
      forms.set(record, { excerpt, summary });
    }
    const scored = [...forms.keys()];
    const chosen = selectInjection(scored, thresholds, remainingTokens, penalty);
    // The selection returns the scored records themselves: each is the key to the excerpt and hint made with it.
    const formOf = (candidate: ScoredCandidate) => {
      const form = forms.get(candidate);
      if (!form) throw new Error(`the injection selection returned a candidate it was not given (${candidate.key})`);
      return form;
    };
    result.excerpts = chosen.excerpts.map((candidate) => formOf(candidate).excerpt);
    result.summaries = chosen.summaries.map((candidate) => formOf(candidate).summary);
    result.tokensUsed = [...result.excerpts, ...result.summaries].reduce((total, item) => total + item.tokens, 0);
    result.scored = {
      candidates: scored,
      remainingTokens,
      penalty,
      ...(thresholds.maxBudgetTokens !== undefined ? { maxBudgetTokens: thresholds.maxBudgetTokens } : {}),
    };
    for (const item of [...result.excerpts, ...result.summaries]) this.tracker.recordAccess(item.key, situation.turn, "prefetch_injected");
    return result;
  }

  /** Both signals must vouch (≥ 0.5 each) unless only one answered. */
  private confidence(
    candidate: PrefetchCandidate,
    thresholds: PrefetchThresholds,
    singleSignal: boolean,
    maxTurn: number,
    situation: PrefetchSituation,
  ): number {
    const coverage = candidate.coverage ?? 0;
    const vector = candidate.vectorRank === undefined ? 0 : Math.max(0, 1 - (candidate.vectorRank - 1) / 10);
    let combined: number;
    if (thresholds.requireMultiSignal && !singleSignal) {
      if (coverage < 0.5 || vector < 0.5) return 0;
      combined = (coverage + vector) / 2;
    } else {
      combined = Math.max(coverage, vector);
    }
    const recency = candidate.turn === undefined ? 1 : 1 + (thresholds.recencyBoost * candidate.turn) / maxTurn;
    const session = candidate.sessionId !== undefined && candidate.sessionId === situation.sessionId ? 1 + thresholds.sessionPreference : 1;
    return combined * recency * session;
  }

  private alreadyPresent(candidate: PrefetchCandidate, situation: PrefetchSituation): boolean {
    return isInWindow(candidate, situation) || this.tracker.isHot(candidate.key, situation.turn);
  }
}

function isInWindow(item: { key: string; path?: string }, situation: PrefetchSituation): boolean {
  return situation.inWindow.has(item.key) || (item.path !== undefined && situation.pathsInWindow.has(item.path));
}

/**
 * A prefetch started earlier, taken now: what the window has come to hold
 * meanwhile (the tool result it was started beside, a file just read) is
 * dropped from it, so nothing is put in front of the model twice.
 */
export function withoutPresent(augmented: AugmentedQuery, situation: PrefetchSituation): AugmentedQuery {
  const excerpts = augmented.excerpts.filter((excerpt) => !isInWindow(excerpt, situation));
  const summaries = augmented.summaries.filter((summary) => !isInWindow(summary, situation));
  if (excerpts.length === augmented.excerpts.length && summaries.length === augmented.summaries.length) return augmented;
  const tokensUsed = [...excerpts, ...summaries].reduce((sum, item) => sum + item.tokens, 0);
  return { ...augmented, excerpts, summaries, tokensUsed };
}

function toExcerpt(candidate: PrefetchCandidate, confidence: number, maxLines: number, turn: { turn?: number }): Excerpt {
  const lines = candidate.content.split("\n").slice(0, maxLines);
  const content = lines.join("\n");
  const lineRange: [number, number] | undefined =
    candidate.startLine !== undefined ? [candidate.startLine, candidate.startLine + lines.length - 1] : undefined;
  const excerpt: Excerpt = {
    key: candidate.key,
    source: candidate.path && lineRange ? `${candidate.path}:${lineRange[0]}-${lineRange[1]}` : candidate.source,
    content,
    confidence,
    tokens: 0,
    ...(candidate.entryId ? { entryId: candidate.entryId } : {}),
    ...(candidate.path ? { path: candidate.path } : {}),
    ...(lineRange ? { lineRange } : {}),
    ...turn,
    ...(candidate.language !== undefined ? { language: candidate.language } : {}),
  };
  excerpt.tokens = estimateTokens(renderExcerpt(excerpt));
  return excerpt;
}

function toSummary(candidate: PrefetchCandidate, confidence: number, turn: { turn?: number }): Summary {
  const summary: Summary = {
    key: candidate.key,
    source: candidate.path ?? candidate.source,
    description: candidate.description,
    lines: candidate.lineCount,
    confidence,
    tokens: 0,
    ...(candidate.entryId ? { entryId: candidate.entryId } : {}),
    ...(candidate.path ? { path: candidate.path } : {}),
    ...turn,
  };
  summary.tokens = estimateTokens(renderSummary(summary));
  return summary;
}

/** `[AUTO-RETRIEVED: path:a-b | confidence: x]` and the fenced content. */
function renderExcerpt(excerpt: Excerpt): string {
  const tail = excerpt.path
    ? `\n[Full file: read_file("${excerpt.path}")]`
    : excerpt.entryId
      ? `\n[Full entry: ${expandEntry(excerpt.entryId)}]`
      : "";
  return `[AUTO-RETRIEVED: ${excerpt.source} | confidence: ${Math.min(excerpt.confidence, 1).toFixed(2)}]\n\`\`\`${excerpt.language ?? ""}\n${excerpt.content}\n\`\`\`${tail}`;
}

/**
 * `[RELATED: path - description, N lines]`; a conversation entry's hint
 * also names the call that brings it back, since it has no path to read.
 */
function renderSummary(summary: Summary): string {
  const expand = summary.path === undefined && summary.entryId ? ` | ${expandEntry(summary.entryId)}` : "";
  return `[RELATED: ${summary.source} - ${summary.description}, ${summary.lines} lines${expand}]`;
}

/** The call that brings a conversation entry back whole. */
function expandEntry(entryId: string): string {
  return `retrieve_context(entry_id="${entryId}")`;
}

/** The block appended to the prompt, or an empty string when nothing qualified. */
export function renderAugmentation(augmented: AugmentedQuery): string {
  return [...augmented.excerpts.map(renderExcerpt), ...augmented.summaries.map(renderSummary)].join("\n");
}
