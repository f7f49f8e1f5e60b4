import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { SessionRecorder } from "../../agent/session-recorder.js";
import type { CodeSearcher } from "../../agent/tools/search-codebase.js";
import type { SylkConfig } from "../../config/schema.js";
import { createContextManager } from "../../context/create-context-manager.js";
import { createPrefetcher, type Prefetcher } from "../../context/prefetch/create-prefetcher.js";
import type { PrefetchThresholds } from "../../context/prefetch/prefetch-config.js";
import type { EvictionNotice } from "../../context/evicted-items.js";
import type { VirtualContextManager } from "../../context/virtual-context-manager.js";
import type { AgentType } from "../../roles/agent-types.js";
import type { TokenCounter } from "../../llm/token-counter.js";
import type { ContentEntry, ContextReference } from "../../store/content-types.js";
import type { ProjectServices } from "../project-services.js";
import type { SessionRetrievalLearning } from "../../learning/session/session-retrieval-learning.js";

/** Tokens a retrieval may bring back before the first model call, when the window's size is not known yet. */
const RETRIEVAL_BUDGET_BEFORE_FIRST_RUN = 10_000;

export interface SessionWindowDeps {
  services: Pick<ProjectServices, "contentStore">;
  config: SylkConfig["context"];
  /** The built-in type whose eviction strategy the window uses. */
  agentType: AgentType;
  tokenCounter: TokenCounter;
  codeSearcher: CodeSearcher;
  sessionId: string;
  /** Prefetch's thresholds as self-tuning retrieval has learned them (and the role's budget). */
  thresholds: () => PrefetchThresholds;
  learning: Pick<SessionRetrievalLearning, "follow">;
  /** Told before each eviction is written (the user's `PreEvict` hooks). */
  beforeEvict?: (notice: EvictionNotice) => Promise<void>;
}

/**
 * The agent's window over its conversation: the context manager and the
 * prefetcher, made at the first model run, once the model (and so the
 * window's size) is known, and kept for the session.
 */
export class SessionWindow {
  private manager: VirtualContextManager | undefined;
  private prefetching: Prefetcher | undefined;
  /** Runs holding the window now. */
  private runs = 0;
  /** The observer's compaction asked for while a run held the window. */
  private deferred: Parameters<SessionWindow["compactObserved"]> | undefined;

  constructor(private readonly deps: SessionWindowDeps) {}

  /** Tokens a retrieval may bring back: what the window can still take. */
  retrievalBudget(): number {
    return this.manager?.retrievalBudget() ?? RETRIEVAL_BUDGET_BEFORE_FIRST_RUN;
  }

  /** Content the model retrieved is promoted to the hot tier. */
  retrieved(entries: readonly ContentEntry[], turn: number): void {
    for (const entry of entries) {
      this.prefetching?.tracker.recordAccess(`entry:${entry.id}`, turn, "tool_retrieved");
      this.prefetching?.hotCache.put(`entry:${entry.id}`, `turn ${entry.turnNumber} · ${entry.contentType}`, entry.content);
    }
  }

  /** The window, made at the first run with the policy on top of the token safety net (the handoff controller's). */
  managerFor(windowTokens: number): VirtualContextManager {
    const { deps } = this;
    this.manager ??= createContextManager({
      config: deps.config,
      contentStore: deps.services.contentStore,
      tokenCounter: deps.tokenCounter,
      windowTokens,
      agentType: deps.agentType,
      ...(deps.beforeEvict ? { beforeEvict: deps.beforeEvict } : {}),
    });
    return this.manager;
  }

  /** The prefetcher, made at the first run (after the window, whose pressure it sets), its memory pressure checked for each. */
  prefetcherFor(windowTokens: number): Prefetcher {
    const { deps } = this;
    if (!this.prefetching) {
      this.prefetching = createPrefetcher({
        services: { codeSearcher: deps.codeSearcher, contentStore: deps.services.contentStore },
        sessionId: deps.sessionId,
        windowTokens,
        thresholds: deps.thresholds,
      });
      deps.learning.follow(this.prefetching.metrics);
      const manager = this.manager;
      this.prefetching.pressure.onChange((level) => manager?.setPressure(level));
    }
    this.prefetching.pressure.check();
    return this.prefetching;
  }

  /** `/evict`: nothing before the first run. */
  async evictNow(recorder: SessionRecorder | undefined): Promise<ContextReference[]> {
    return this.manager && recorder ? this.manager.evictNow(recorder) : [];
  }

  /**
   * The run, holding the window while it lasts: the loop prepares each
   * request over several awaits (fit, a plan's eviction, a handoff's trim),
   * and a compaction from the background observer between them would evict
   * what the loop is placing. The compaction asked for meanwhile waits for
   * the run's end, the newest standing for all (it covers the most); its
   * failure goes to `failed`, never into the run that has just ended.
   */
  async *holding(run: AsyncGenerator<AgentEvent, AgentResult>, failed: (error: unknown) => void): AsyncGenerator<AgentEvent, AgentResult> {
    this.runs++;
    try {
      return yield* run;
    } finally {
      this.runs--;
      const deferred = this.runs === 0 ? this.deferred : undefined;
      if (deferred) {
        this.deferred = undefined;
        await this.compactObserved(...deferred).catch(failed);
      }
    }
  }

  /** The observed messages, but the newest `keepTokens`, leave the window behind one marker (once no run holds the window). */
  async compactObserved(
    recorder: SessionRecorder | undefined,
    through: number,
    keepTokens: number,
    summary: string,
  ): Promise<ContextReference | undefined> {
    if (this.runs > 0) {
      this.deferred = [recorder, through, keepTokens, summary];
      return undefined;
    }
    return this.manager && recorder ? this.manager.compactObserved(recorder, through, keepTokens, summary) : undefined;
  }
}
