import { isCorrection } from "../signals/correction.js";
import { asksTheSame } from "../signals/repeated-question.js";
import type { AdaptiveSample } from "./adaptive-state.js";
import type { ScoredCandidate } from "../context/prefetch/injection-selection.js";
import { detectHedging, type EpisodeObservation, type PrefetchRound } from "./satisfaction.js";

/** A next prompt this soon after the answer is a follow-up (design notes, "Outcomes without ratings"). */
export const FOLLOW_UP_WINDOW_MS = 10 * 60 * 1000;

/** Tools whose call after the prefetch means the model still had to look (starvation), with the input field that holds the query. */
const SEARCH_TOOLS: Readonly<Record<string, string>> = {
  grep: "pattern",
  search_codebase: "query",
  search_history: "query",
  retrieve_context: "query",
};
/** How much of one search's result is kept to look for injected paths in. */
const MAX_SEARCH_OUTPUT = 20_000;

/**
 * One user prompt while it is under way: what its run did, gathered from
 * the agent's events and the prefetch outcomes, until the next prompt (or
 * the end of the session) says how it went. Pure: no IO.
 */
export class EpisodeDraft {
  private toolCalls = 0;
  private readonly searchedAfter: string[] = [];
  private readonly prefetched = new Set<string>();
  private readonly used = new Set<string>();
  private readonly userEdited = new Set<string>();
  private readonly rounds: PrefetchRound[] = [];
  private readonly agentWrote = new Set<string>();
  /** What the run's searches returned: an injected item's path among it means the model went looking for it anyway. */
  private readonly searchOutputs: string[] = [];
  private readonly pathOf = new Map<string, string>();
  private completed = false;
  private hedging = false;
  /** When the run ended; undefined while it runs (or if it never reported its end). */
  private answeredAt: number | undefined;

  constructor(
    readonly query: string,
    readonly queryEmbedding: number[],
    readonly sample: AdaptiveSample,
    /** `context.prefetchBudgetRatio`, which the sampled budget scales. */
    readonly budgetRatio?: number,
  ) {}

  get running(): boolean {
    return this.answeredAt === undefined;
  }

  toolUsed(name: string, input: unknown): void {
    this.toolCalls++;
    const field = SEARCH_TOOLS[name];
    if (field === undefined) return;
    const query = (input as Record<string, unknown> | null)?.[field];
    this.searchedAfter.push(typeof query === "string" ? query : name);
  }

  prefetchOutcome(outcome: {
    injectedKeys: readonly string[];
    usedKeys: readonly string[];
    neededKeys?: readonly string[];
    scored?: { candidates: ScoredCandidate[]; remainingTokens: number; penalty: number; maxBudgetTokens?: number } | undefined;
  }): void {
    for (const key of outcome.injectedKeys) this.prefetched.add(key);
    for (const key of outcome.usedKeys) this.used.add(key);
    for (const candidate of outcome.scored?.candidates ?? []) if (candidate.path) this.pathOf.set(candidate.key, candidate.path);
    if (outcome.scored) this.rounds.push({ ...outcome.scored, neededKeys: [...(outcome.neededKeys ?? outcome.usedKeys)] });
  }

  /** A search's result (the text the model was given). */
  toolResult(name: string, output: string): void {
    if (SEARCH_TOOLS[name] !== undefined) this.searchOutputs.push(output.slice(0, MAX_SEARCH_OUTPUT));
  }

  fileWritten(path: string): void {
    this.agentWrote.add(path);
  }

  /** Files changed on disk; only those changed after the answer, and not by the agent, are the user's edits. */
  filesChanged(paths: readonly string[]): void {
    if (this.running) return;
    for (const path of paths) if (!this.agentWrote.has(path)) this.userEdited.add(path);
  }

  finished(result: { stopReason: string; error?: unknown; response: string }, at: number): void {
    this.completed = result.stopReason === "end_turn" && result.error === undefined;
    this.hedging = detectHedging(result.response);
    this.answeredAt = at;
  }

  /**
   * The episode as it is logged, closed by the next prompt (`nextPrompt`,
   * arriving at `at`) or by the end of the session (no next prompt). A
   * prompt within the follow-up window is a follow-up, a correction when it
   * opens by correcting the answer.
   */
  close(at: number, nextPrompt?: string): Omit<EpisodeObservation, "sequence"> {
    const followedUp = nextPrompt !== undefined && this.answeredAt !== undefined && at - this.answeredAt <= FOLLOW_UP_WINDOW_MS;
    const correction = followedUp && isCorrection(nextPrompt);
    const repeat = followedUp && !correction && asksTheSame(this.query, nextPrompt);
    // An injected item the model found again by searching did not spare the search: it was not used, and injecting it was not needed.
    const refound = new Set(
      [...this.prefetched].filter((key) => {
        const path = this.pathOf.get(key);
        return path !== undefined && this.searchOutputs.some((output) => output.includes(path));
      }),
    );
    const rounds = this.rounds.map((round) => ({ ...round, neededKeys: round.neededKeys.filter((key) => !refound.has(key)) }));
    return {
      timestamp: at,
      contextId: this.sample.contextId,
      query: this.query,
      queryEmbedding: this.queryEmbedding,
      sampledWeights: this.sample.sampledWeights,
      sampledThresholds: this.sample.sampledThresholds,
      appliedWeights: this.sample.appliedWeights,
      taskCompleted: this.completed,
      followUps: followedUp && !correction ? 1 : 0,
      corrections: correction ? 1 : 0,
      repeats: repeat ? 1 : 0,
      toolCalls: this.toolCalls,
      userEdits: this.userEdited.size,
      hedging: this.hedging,
      prefetchedKeys: [...this.prefetched],
      usedKeys: [...this.used].filter((key) => !refound.has(key)),
      searchedAfter: [...this.searchedAfter],
      ...(rounds.length > 0 ? { prefetchRounds: rounds } : {}),
      ...(this.budgetRatio !== undefined ? { budgetRatio: this.budgetRatio } : {}),
      injectionArm: this.sample.injectionArm,
    };
  }
}
