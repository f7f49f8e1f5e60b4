import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { SylkConfig } from "../../config/schema.js";
import { INITIAL_PRIORS, prefetchIsOn, type PrefetchThresholds } from "../../context/prefetch/prefetch-config.js";
import type { PrefetchMetrics } from "../../context/prefetch/prefetch-metrics.js";
import { projectHash } from "../../project/project-paths.js";
import type { Embedder } from "../../embedding/embedder.js";
import type { ProjectPaths } from "../../project/project-paths.js";
import type { LearningRepository } from "../../store/learning-repository.js";
import type { UserProfileDatabase } from "../../store/user-profile-database.js";
import { RetrievalLearning, type RetrievalLearningSummary, type RetrievalLearningDeps } from "./retrieval-learning.js";

/** What self-tuning retrieval reads of a project: where its log lives, its saved state, and the embedder. */
export interface RetrievalLearningSources {
  paths: Pick<ProjectPaths, "root" | "observationLog">;
  learning: LearningRepository;
  embedder: Pick<Embedder, "embed">;
}

/**
 * Self-tuning retrieval's part of one conversation: the learned state
 * opened on the first prompt, each run followed for its episode, and what
 * went wrong told once, as a warning in the run's events. With
 * `learning.enabled` off (or prefetch off) the fixed priors apply and
 * nothing is learned.
 */
export class SessionRetrievalLearning {
  private learning: RetrievalLearning | undefined;
  private readonly reports: string[] = [];

  constructor(
    private readonly project: RetrievalLearningSources,
    private readonly config: SylkConfig,
    private readonly userProfiles: () => UserProfileDatabase | undefined,
    private readonly random?: () => number,
  ) {}

  private get enabled(): boolean {
    return this.config.learning.enabled && prefetchIsOn(this.config.context);
  }

  /** The prefetch settings of the prompt under way. */
  thresholds(): PrefetchThresholds {
    return this.learning?.thresholds() ?? { ...INITIAL_PRIORS, maxBudgetPercent: this.config.context.prefetchBudgetRatio };
  }

  /** Each prefetch's outcome (what was injected, what was used) goes into the episode. */
  follow(metrics: PrefetchMetrics): void {
    metrics.onOutcome((outcome) => this.learning?.prefetchOutcome(outcome));
  }

  /** The run of one prompt, followed: the prompt's settings are sampled before it starts. */
  async *track(prompt: string, run: AsyncGenerator<AgentEvent, AgentResult>): AsyncGenerator<AgentEvent, AgentResult> {
    const learning = this.open();
    await learning?.beginEpisode(prompt);
    for (const message of this.reports.splice(0)) yield { type: "error", kind: "learning", message, fatal: false };
    for (;;) {
      const next = await run.next();
      if (next.done) return next.value;
      learning?.observe(next.value);
      yield next.value;
    }
  }

  fileWritten(path: string): void {
    this.learning?.fileWritten(path);
  }

  filesChanged(paths: readonly string[]): void {
    this.learning?.filesChanged(paths);
  }

  /** For `/learning`: what this project learned (opened for the asking, if no prompt has run yet). */
  summary(): RetrievalLearningSummary | undefined {
    return this.open()?.summary();
  }

  close(): void {
    this.learning?.close();
    this.learning = undefined;
  }

  private open(): RetrievalLearning | undefined {
    if (!this.enabled) return undefined;
    this.learning ??= RetrievalLearning.open({
      ...retrievalLearningDeps(this.project, this.config, this.userProfiles(), (message) => this.reports.push(message)),
      ...(this.random ? { random: this.random } : {}),
    });
    return this.learning;
  }
}

/** What `RetrievalLearning` needs from a project (for sessions and `sylk learning`). */
export function retrievalLearningDeps(
  project: RetrievalLearningSources,
  config: SylkConfig,
  userProfiles: UserProfileDatabase | undefined,
  report: (message: string) => void,
): RetrievalLearningDeps {
  return {
    repository: project.learning,
    logPath: project.paths.observationLog,
    ...(userProfiles ? { userProfiles } : {}),
    projectKey: projectHash(project.paths.root),
    config: config.learning,
    budgetRatio: config.context.prefetchBudgetRatio,
    embed: async (text) => Array.from((await project.embedder.embed([text], "query"))[0] ?? []),
    report,
  };
}
