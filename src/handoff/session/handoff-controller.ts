import { randomUUID } from "node:crypto";
import type { AgentInstance, HandoffPlan, QualityHooks, SuccessorPlan } from "../../agent/quality-hooks.js";
import type { ToolRunResult } from "../../agent/tools/tool-registry.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import { categoryOf, degradationActionOf, type AgentCategory } from "../../roles/agent-types.js";
import type { DegradationCheck } from "../degradation-detector.js";
import type { AgentHandoffProfile } from "../handoff-profile.js";
import {
  buildHandoffState,
  isHandoffAgentType,
  renderHandoffState,
  type HandoffAgentType,
  type HandoffState,
  type PreparedContextSnapshot,
} from "../handoff-state.js";
import { qualityOf } from "../quality-signals.js";
import { TurnQualityTracker } from "../turn-quality-tracker.js";
import type { ContextReference } from "../../store/content-types.js";
import { endInstance, freshAgentId, liveInstance, openInstance, type InstanceChainDeps, type LiveInstance } from "./instance-chain.js";

export interface HandoffControllerDeps extends InstanceChainDeps {
  contentStore: UniversalContentStore;
  /** The session's (calibrated) token count, for the state's share of the prepared size. */
  countTokens: (text: string) => number;
}

/** Tool errors carried into a handoff's state (the newest; each one line). */
const MAX_TOOL_ERRORS = 8;
const MAX_ERROR_CHARS = 200;
/** Prompts a guide's state lists. */
const RECENT_PROMPTS = 5;

/** What a successor plan's commit stores: the state built when the controller fired, and who hands to whom. */
interface PlannedHandoff {
  turn: number;
  old: LiveInstance;
  type: HandoffAgentType;
  toAgent: string;
  handoffIndex: number;
  reason: string;
  state: HandoffState;
  snapshot: PreparedContextSnapshot;
  timestamp: number;
}

/**
 * The handoff controller of one conversation: it records a quality
 * observation after every turn and, before every model call, asks the
 * instance's Gaussian process whether quality is about to degrade. When it
 * is (or the user asked), it answers with a plan: a pipeline or standalone
 * agent hands off to a fresh instance of the same type and model; a
 * knowledge agent evicts down to the learned prepared size and goes on.
 * The loop applies the plan to the window and the recorder; the controller
 * touches neither. Each firing, observation and instance is a row of the
 * project database; what an instance learned goes into the (type, model)
 * profile when it ends.
 */
export class HandoffController implements QualityHooks {
  readonly category: AgentCategory;
  private readonly tracker = new TurnQualityTracker();
  private live: LiveInstance;
  private currentPrompt = "";
  private toolErrors: string[] = [];
  private forced: string | undefined;
  private lastCheck: DegradationCheck | undefined;

  /** Opens the conversation's chain: its latest instance goes on, or a first one starts. */
  constructor(private readonly deps: HandoffControllerDeps) {
    this.category = categoryOf(deps.agentType, "main");
    this.live = openInstance(deps);
    deps.profiles.catchUpUser();
  }

  /** What a detected degradation does to this agent: hand off, or evict (knowledge agents; or handoffs turned off). */
  get action(): "handoff" | "evict" {
    return this.deps.config.enabled && isHandoffAgentType(this.deps.agentType) ? degradationActionOf(this.category) : "evict";
  }

  get agentId(): string {
    return this.live.agentId;
  }

  get instance(): AgentInstance {
    return { agentId: this.live.agentId, agentType: this.deps.agentType, preamble: this.live.preamble };
  }

  /** The instance's predicted quality at the last check (the status line shows it). */
  predictedQuality(): number | undefined {
    return this.lastCheck?.lookahead.mean;
  }

  /** `/handoff`: the next model call hands off (or evicts) whatever the curve says. */
  requestHandoff(): void {
    this.forced = "forced";
  }

  promptStarted(prompt: string): void {
    this.currentPrompt = prompt;
    this.tracker.prompt(prompt);
  }

  turnStarted(turn: number): void {
    this.tracker.startTurn(turn);
  }

  evicted(reference: ContextReference): void {
    this.tracker.evicted(reference);
  }

  answerStopped(stopReason: string): void {
    this.tracker.answerStopped(stopReason);
  }

  toolResult(call: { name: string; input: unknown }, result: ToolRunResult): void {
    this.tracker.toolResult(call, result);
    if (result.isError && result.permission !== "denied") {
      const line = (result.output.split("\n")[0] ?? "").slice(0, MAX_ERROR_CHARS);
      this.toolErrors = [...this.toolErrors, `${call.name}: ${line}`].slice(-MAX_TOOL_ERRORS);
    }
  }

  interrupted(): void {
    this.tracker.interrupted();
  }

  /** One quality observation for the turn that just ended, at the size its request had. */
  turnFinished(turn: number, contextTokens: number): void {
    const signals = this.tracker.finishTurn();
    const quality = qualityOf(signals);
    this.live.detector.observe(contextTokens, quality);
    this.deps.repository.recordObservation({
      sessionId: this.deps.sessionId,
      agentId: this.live.agentId,
      agentType: this.deps.agentType,
      model: this.deps.model,
      turn,
      contextTokens,
      quality,
      signals: signals as Record<string, number>,
    });
  }

  /**
   * Before a model call, with the tokens the prepared request puts in the
   * window: whether the curve fired (or the user asked), recorded with its
   * action, and what to do about it. Undefined: nothing.
   */
  planFor(turn: number, contextTokens: number): HandoffPlan | undefined {
    const check = this.live.detector.check(contextTokens);
    this.lastCheck = check;
    const reason = this.forced ?? (check.fire ? check.condition : undefined);
    if (!reason) return undefined;
    this.forced = undefined;
    const action = this.action;
    this.recordFiring(turn, reason, action, check);
    const type = this.deps.agentType;
    if (action === "handoff" && isHandoffAgentType(type))
      return this.successorPlan(turn, type, contextTokens, reason, check.lookahead.mean);
    const targetTokens = contextTokens - this.live.profile.optimalPreparedSize;
    return targetTokens > 0 ? { action: "evict", targetTokens } : undefined;
  }

  /**
   * The end of the session (the process ends or the conversation closes):
   * what the instance learned goes into the profiles; a continued session
   * reopens it and replaces that contribution when it ends again.
   */
  close(): void {
    if (this.live.detector.observationCount === 0) return;
    endInstance(this.deps, this.live, "session_end");
    this.deps.profiles.catchUpUser();
  }

  /**
   * The state a handoff would carry now, without handing off: what a
   * pipeline stores for an engineer stage (its task list, decisions, files
   * changed, tool errors). Undefined for an agent type that evicts.
   */
  stateNow(reason: string): HandoffState | undefined {
    const type = this.deps.agentType;
    if (!isHandoffAgentType(type)) return undefined;
    return buildHandoffState(type, this.snapshot(), { handoffIndex: this.live.handoffIndex, reason, timestamp: Date.now() });
  }

  /**
   * A fresh instance takes over: its state is built now, and the window
   * keeps the newest turns that fit beside it in the prepared size.
   */
  private successorPlan(
    turn: number,
    type: HandoffAgentType,
    contextTokensBefore: number,
    reason: string,
    predictedQuality: number,
  ): SuccessorPlan {
    const started = performance.now();
    const old = this.live;
    const handoffIndex = old.handoffIndex + 1;
    const toAgent = freshAgentId(this.deps, handoffIndex);
    const snapshot = this.snapshot();
    const timestamp = Date.now();
    const state = buildHandoffState(type, snapshot, { handoffIndex, reason, timestamp });
    // The state goes first in the new window; the newest turns fill the rest of the prepared size.
    const draft = renderHandoffState(state, snapshot, { from: old.agentId, to: toAgent, referenceId: "00000000" });
    const keepTokens = Math.max(0, preparedSize(old.profile, contextTokensBefore) - this.deps.countTokens(draft));
    const planned: PlannedHandoff = { turn, old, type, toAgent, handoffIndex, reason, state, snapshot, timestamp };
    return {
      action: "handoff",
      fromAgent: old.agentId,
      toAgent,
      handoffIndex,
      reason,
      contextTokensBefore,
      predictedQuality,
      keepTokens,
      commit: (referenceId) => this.commit(planned, referenceId),
      planMs: performance.now() - started,
    };
  }

  /** Stores the handoff (the state as an `agent_handoff` entry, the old instance's end and the new one's start, together) and goes on with the new instance. */
  private async commit(planned: PlannedHandoff, referenceId: string | undefined): Promise<AgentInstance> {
    const { turn, old, type, toAgent, handoffIndex, reason, state, snapshot, timestamp } = planned;
    const sessionId = this.deps.sessionId;
    const text = renderHandoffState(state, snapshot, { from: old.agentId, to: toAgent, ...(referenceId ? { referenceId } : {}) });
    const entryId = randomUUID();
    const preparedFraction = old.profile.preparedFraction;
    // The successor starts from everything the chain has seen of the onset, and its row keeps that start for a continued session.
    const carried = old.detector.onsetMemory();
    await this.deps.contentStore.indexContents(
      [
        {
          id: entryId,
          sessionId,
          agentId: old.agentId,
          agentType: type,
          contentType: "agent_handoff",
          content: JSON.stringify(state),
          turnNumber: turn,
          metadata: {
            handoff_index: handoffIndex,
            from_agent: old.agentId,
            to_agent: toAgent,
            reason,
            ...(referenceId ? { reference_id: referenceId } : {}),
          },
        },
      ],
      () => {
        endInstance(this.deps, old, "handoff");
        this.deps.repository.startInstance({
          sessionId,
          agentId: toAgent,
          agentType: type,
          model: this.deps.model,
          handoffIndex,
          startedAt: timestamp,
          handoffEntryId: entryId,
          state: JSON.stringify(state),
          stateText: text,
          preparedFraction,
          onsetStart: carried ? JSON.stringify(carried) : null,
        });
      },
    );
    this.deps.profiles.catchUpUser();
    this.live = liveInstance(this.deps, toAgent, handoffIndex, {
      preparedFraction,
      preamble: text,
      handedOff: true,
      ...(carried ? { carried } : {}),
    });
    this.tracker.reset();
    this.toolErrors = [];
    return this.instance;
  }

  private snapshot(): PreparedContextSnapshot {
    const sessionId = this.deps.sessionId;
    // Only the guide's state lists the recent prompts; the others need the first alone (finding the newest reads the whole session).
    const prompts = this.deps.repository.prompts(sessionId, this.deps.agentType === "guide" ? RECENT_PROMPTS : 0);
    const originalPrompt = prompts[0]?.text ?? this.currentPrompt;
    const tasks = this.deps.repository.taskList(sessionId);
    return {
      sessionId,
      originalPrompt,
      ...(this.currentPrompt && this.currentPrompt !== originalPrompt ? { currentPrompt: this.currentPrompt } : {}),
      tasks: tasks?.items ?? [],
      decisions: tasks?.decisions ?? [],
      blockers: tasks?.blockers ?? [],
      filesChanged: this.deps.repository.filesChanged(sessionId).map((change) => ({
        path: change.path,
        action: change.action,
        // Lines are counted for the write tools' changes; a command's are known only as a change.
        description: change.linesAdded + change.linesRemoved > 0 ? `+${change.linesAdded} −${change.linesRemoved} lines` : "",
        lines_changed: change.linesAdded + change.linesRemoved,
      })),
      toolErrors: this.toolErrors,
      recentPrompts: prompts,
    };
  }

  private recordFiring(turn: number, condition: string, action: "handoff" | "evict", check: DegradationCheck): void {
    this.deps.repository.recordFiring({
      sessionId: this.deps.sessionId,
      agentId: this.live.agentId,
      turn,
      condition,
      action,
      contextTokens: check.contextTokens,
      lookaheadTokens: check.lookaheadTokens,
      predictedMean: check.current.mean,
      predictedSd: check.current.sd,
      lookaheadMean: check.lookahead.mean,
      lookaheadSd: check.lookahead.sd,
      peak: check.peak,
      threshold: check.threshold,
    });
  }
}

/**
 * How much the new instance's window starts with: the learned
 * `OptimalPreparedSize`, but never more than the arm's share of the size at
 * which this instance degraded. An instance that degraded far below the
 * learned onset must not hand its successor a window already that large.
 */
function preparedSize(profile: AgentHandoffProfile, contextTokensAtFiring: number): number {
  return Math.min(profile.optimalPreparedSize, Math.round(profile.preparedFraction * contextTokensAtFiring));
}
