import { renameSync, rmSync } from "node:fs";
import type { AgentEvent } from "../../agent/agent-events.js";
import type { LearningConfig } from "../../config/schema.js";
import { INITIAL_PRIORS, type PrefetchThresholds } from "../../context/prefetch/prefetch-config.js";
import type { PrefetchOutcome } from "../../context/prefetch/prefetch-metrics.js";
import { AdaptiveState, type ParameterSummary } from "../adaptive-state.js";
import type { Uniform } from "../../stats/random-draws.js";
import type { ContextWeightBiasJSON } from "../context-weight-bias.js";
import { EpisodeDraft } from "../episode-draft.js";
import type { InjectionBelief } from "../injection-arms.js";
import { retrievalSettingsOf } from "../retrieval-mapping.js";
import { isEpisodeObservation, type EpisodeObservation } from "../satisfaction.js";
import { UserWeightProfile, type UserWeightProfileJSON } from "../user-weight-profile.js";
import type { LearningRepository } from "../../store/learning-repository.js";
import { ObservationLog, type Logged } from "../../store/observation-log.js";
import type { UserProfileDatabase } from "../../store/user-profile-database.js";
import { errorMessage } from "../../errors.js";

type Episode = Omit<EpisodeObservation, "sequence">;

/** The log is emptied into the state once it holds this many applied lines. */
const COMPACT_AFTER_LINES = 100;

export interface RetrievalLearningDeps {
  repository: LearningRepository;
  /** The project's observation log (`observations.log`). */
  logPath: string;
  /** `$SYLK_HOME/profiles.db`, for the user profile; absent, the profile lives in the project's state. */
  userProfiles?: UserProfileDatabase;
  /** Names this project in the user profile's record of applied positions. */
  projectKey: string;
  config: LearningConfig;
  /** `context.prefetchBudgetRatio`: the learned budget scales it. */
  budgetRatio: number;
  /** The built-in embedder, for discovering the prompt's context. */
  embed: (text: string) => Promise<number[]>;
  /** Damage and failures, each reported once; learning never stops a session. */
  report: (message: string) => void;
  random?: Uniform;
  now?: () => number;
}

export interface RetrievalLearningSummary {
  observations: number;
  parameters: ParameterSummary[];
  contexts: Array<{ id: string; count: number; baseline: number | null; bias: ContextWeightBiasJSON }>;
  profile: UserWeightProfileJSON;
  /** Whether prompts get prefetched context at all, and the evidence for it. */
  injection: InjectionBelief;
}

/**
 * Self-tuning retrieval for one session (design notes, "Self-tuning
 * retrieval"): each prompt samples the prefetch settings from
 * what the project learned; the next prompt (or the session's end) closes
 * the episode, which is logged (fsynced), applied and saved, in that order,
 * once the next prompt's model call has answered (or at the session's
 * end), never before a model call.
 *
 * Every write happens under the project database's write lock, with the
 * state read afresh: two processes on one project (the TUI and a scripted
 * `sylk ask`) each add their episodes, and neither overwrites the other's.
 */
export class RetrievalLearning {
  private state: AdaptiveState;
  private draft: EpisodeDraft | undefined;
  private settings: PrefetchThresholds;
  private readonly queue: Episode[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private failed = false;
  private readonly random: Uniform;
  private readonly now: () => number;

  private constructor(private readonly deps: RetrievalLearningDeps) {
    this.state = new AdaptiveState(deps.config);
    this.settings = { ...INITIAL_PRIORS, maxBudgetPercent: deps.budgetRatio };
    this.random = deps.random ?? Math.random;
    this.now = deps.now ?? Date.now;
  }

  /** Loads the state and replays what the log holds past it. Damage is reported, and learning goes on from what is intact. */
  static open(deps: RetrievalLearningDeps): RetrievalLearning {
    const learning = new RetrievalLearning(deps);
    learning.guarded("could not load what was learned", () => {
      const needsRepair = learning.deps.repository.withWriteLock(() => learning.refreshAndClose());
      // The damaged log is moved aside only once a committed state holds what it could read.
      if (needsRepair) learning.deps.repository.withWriteLock(() => learning.refreshAndClose());
    });
    return learning;
  }

  /** Forgets what this project learned, and the user profile (`sylk learning --reset`). */
  static reset(deps: Pick<RetrievalLearningDeps, "repository" | "logPath" | "userProfiles" | "projectKey">): void {
    deps.repository.withWriteLock(() => {
      deps.repository.clear();
      rmSync(deps.logPath, { force: true });
    });
    deps.userProfiles?.clearUserWeightProfile();
  }

  /** The prefetch settings of the prompt under way (the priors before the first). */
  thresholds(): PrefetchThresholds {
    return this.settings;
  }

  /** A new prompt: the one before is closed (a follow-up if it came soon), and this one samples its settings. */
  async beginEpisode(prompt: string): Promise<void> {
    const at = this.now();
    this.closeEpisode(at, prompt);
    if (this.failed) return;
    try {
      const embedding = await this.deps.embed(prompt);
      const sample = this.state.sample(this.state.contexts.classify(prompt, embedding), this.random);
      this.settings = retrievalSettingsOf(sample, this.deps.budgetRatio);
      this.draft = new EpisodeDraft(prompt, embedding, sample, this.deps.budgetRatio);
    } catch (error) {
      this.fail("could not sample the prefetch settings", error);
    }
  }

  /** What the run did: tool calls (searches among them) and how it ended. */
  observe(event: AgentEvent): void {
    // The prompt's request is on its way once the model answers: the episode before is written now, off its path.
    if (event.type === "text_delta" || event.type === "tool_use" || event.type === "done") this.scheduleFlush();
    if (!this.draft) return;
    if (event.type === "tool_use") this.draft.toolUsed(event.name, event.input);
    else if (event.type === "tool_result") this.draft.toolResult(event.name, event.output);
    else if (event.type === "done") this.draft.finished(event.result, this.now());
  }

  prefetchOutcome(outcome: PrefetchOutcome): void {
    this.draft?.prefetchOutcome({ ...outcome, scored: outcome.prefetch.scored });
  }

  fileWritten(path: string): void {
    this.draft?.fileWritten(path);
  }

  /** Files changed on disk (the project watcher): after the answer, the user's edits. */
  filesChanged(paths: readonly string[]): void {
    this.draft?.filesChanged(paths);
  }

  /** The session ends: the open episode closes without a follow-up, and everything queued is applied. */
  close(): void {
    this.closeEpisode(this.now());
    this.flush();
  }

  /** Applies what is queued now (tests; close). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const episodes = this.queue.splice(0);
    if (episodes.length === 0 || this.failed) return;
    this.guarded("could not save what was learned", () =>
      this.deps.repository.withWriteLock(() => {
        const log = this.refresh({ recovering: false });
        try {
          for (const episode of episodes) this.apply(log.append(episode));
          this.save();
        } finally {
          log.close();
        }
      }),
    );
  }

  summary(): RetrievalLearningSummary {
    return {
      observations: this.state.totalObservations,
      parameters: this.state.parameters(),
      contexts: this.state.contexts
        .list()
        .map((context) => ({ id: context.id, count: context.count, baseline: context.baseline ?? null, bias: context.bias.toJSON() })),
      profile: this.state.profile.toJSON(),
      injection: this.state.injection.belief(),
    };
  }

  private closeEpisode(at: number, nextPrompt?: string): void {
    const draft = this.draft;
    this.draft = undefined;
    if (!draft || this.failed) return;
    this.queue.push(draft.close(at, nextPrompt));
  }

  private scheduleFlush(): void {
    if (this.queue.length === 0) return;
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.flush();
    });
  }

  /** `refresh` on open; true when the log is damaged and still holds lines the committed state lacks. */
  private refreshAndClose(): boolean {
    let needsRepair = false;
    this.refresh({ recovering: true, damagedPending: () => (needsRepair = true) }).close();
    return needsRepair;
  }

  /**
   * Under the write lock: the saved state (another process may have moved
   * it on), the user's profile, and the log's lines past the state applied.
   * Returns the open log.
   *
   * The log loses a line (compacted, or a damaged log moved aside) only here,
   * before anything is applied, when the state just read, which is
   * committed, already holds every line that can be applied. Doing it after
   * this transaction's own save would let a kill before the commit take the
   * lines with it, while the user profile (another database) kept them.
   */
  private refresh(options: { recovering: boolean; damagedPending?: () => void }): ObservationLog<Episode> {
    const saved = this.deps.repository.load();
    let state: AdaptiveState | undefined;
    if (saved) {
      try {
        state = AdaptiveState.fromJSON(JSON.parse(saved.state), this.deps.config);
      } catch (error) {
        this.deps.report(
          `What Sylk learned about retrieval in this project could not be read (${errorMessage(error)}); learning starts again from the priors.`,
        );
        this.deps.repository.clear();
        this.deps.userProfiles?.forgetProjectPositions(this.deps.projectKey);
      }
    }
    this.state = state ?? new AdaptiveState(this.deps.config);
    this.loadUserProfile();
    const log = ObservationLog.open<Episode>(this.deps.logPath, this.state.appliedSequence);
    const pending = log.readAfter(this.state.appliedSequence);
    const whole = pending.entries.filter((entry) => isEpisodeObservation(entry));
    const damaged = pending.damaged || whole.length < pending.entries.length;
    if (whole.length === 0) {
      if (damaged && options.recovering) return this.moveDamagedLogAside(log);
      if (log.lines >= COMPACT_AFTER_LINES) log.compact(this.state.appliedSequence);
      return log;
    }
    for (const entry of whole) this.apply(entry);
    this.save();
    if (damaged) options.damagedPending?.();
    return log;
  }

  private moveDamagedLogAside(log: ObservationLog<Episode>): ObservationLog<Episode> {
    this.deps.report(
      `Part of the retrieval observation log (${this.deps.logPath}) could not be read; it was moved aside, and what was readable is kept.`,
    );
    log.close();
    renameSync(this.deps.logPath, `${this.deps.logPath}.damaged-${this.now()}`);
    return ObservationLog.open<Episode>(this.deps.logPath, this.state.appliedSequence);
  }

  private apply(episode: Logged<Episode>): void {
    const userProfiles = this.deps.userProfiles;
    const result = this.state.update(episode, "advantage", { updateProfile: !userProfiles });
    if (!result.applied || !userProfiles) return;
    const stored = userProfiles.updateUserWeightProfile(this.deps.projectKey, episode.sequence, (profile) => {
      const updated = profile ? UserWeightProfile.fromJSON(JSON.parse(profile)) : new UserWeightProfile();
      updated.update(result.satisfaction, episode);
      return JSON.stringify(updated.toJSON());
    });
    if (stored) this.state.profile = UserWeightProfile.fromJSON(JSON.parse(stored));
  }

  private loadUserProfile(): void {
    const stored = this.deps.userProfiles?.userWeightProfile();
    if (stored === undefined) return;
    try {
      this.state.profile = UserWeightProfile.fromJSON(JSON.parse(stored));
    } catch (error) {
      this.deps.report(`Your retrieval profile in $SYLK_HOME/profiles.db could not be read (${errorMessage(error)}); it starts again.`);
      this.deps.userProfiles?.clearUserWeightProfile();
    }
  }

  private save(): void {
    this.deps.repository.save(JSON.stringify(this.state.toJSON()), this.state.appliedSequence);
  }

  private guarded(what: string, work: () => void): void {
    if (this.failed) return;
    try {
      work();
    } catch (error) {
      this.fail(what, error);
    }
  }

  /** Learning stops for this session, said once; the session goes on with the settings it has. */
  private fail(what: string, error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.deps.report(`Self-tuning retrieval ${what} (${errorMessage(error)}); it is off for this session.`);
  }
}
