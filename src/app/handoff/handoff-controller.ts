import { randomUUID } from "node:crypto";
import type { QualityHooks, HandoffReport } from "../../agent/quality-hooks.js";
import type { SessionRecorder } from "../../agent/session-recorder.js";
import type { ToolRunResult } from "../../agent/tools/tool-registry.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import { GaussianProcessPolicy } from "../../context/gaussian-process-policy.js";
import type { DegradationPolicy } from "../../context/degradation-policy.js";
import type { VirtualContextManager } from "../../context/virtual-context-manager.js";
import type { HandoffConfig } from "../../config/schema.js";
import { categoryOf, degradationActionOf, type AgentCategory, type AgentType } from "../../handoff/agent-types.js";
import { DegradationDetector, type DegradationCheck } from "../../handoff/degradation-detector.js";
import type { AgentHandoffProfile } from "../../handoff/handoff-profile.js";
import { buildHandoffState, isHandoffAgentType, renderHandoffState, type HandoffState, type PreparedContextSnapshot } from "../../handoff/handoff-state.js";
import { qualityOf } from "../../handoff/quality-signals.js";
import { TurnQualityTracker } from "../../handoff/turn-quality-tracker.js";
import type { ContextReference } from "../../store/content-types.js";
import type { HandoffRepository } from "../../store/handoff-repository.js";
import type { ProfileBook } from "./profile-book.js";

export interface HandoffControllerDeps {
  repository: HandoffRepository;
  profiles: ProfileBook;
  contentStore: UniversalContentStore;
  agentType: AgentType;
  model: string;
  windowTokens: number;
  config: HandoffConfig;
  /** The session's (calibrated) token count, for the state's share of the prepared size. */
  countTokens: (text: string) => number;
  random?: () => number;
  /** A new instance's id, unique in the session tree (a sub-agent's chain shares the tree's numbering). */
  allocateAgentId?: () => string;
  /** A sub-agent's first instance: the id its session was started with. */
  firstAgentId?: string;
}

interface LiveInstance {
  agentId: string;
  handoffIndex: number;
  profile: AgentHandoffProfile;
  detector: DegradationDetector;
}

/** Tool errors carried into a handoff's state (the newest; each one line). */
const MAX_TOOL_ERRORS = 8;
const MAX_ERROR_CHARS = 200;
/** Prompts a guide's state lists. */
const RECENT_PROMPTS = 5;

/**
 * The handoff controller of one conversation: it records a quality
 * observation after every turn, asks the instance's Gaussian process
 * before every model call whether quality is about to degrade, and then
 * either hands off to a fresh instance of the same type and model (pipeline
 * and standalone agents) or lets the context manager evict (knowledge
 * agents, through `GaussianProcessPolicy`). Each firing, observation and
 * instance is a row of the project database; what an instance learned goes
 * into the (type, model) profile when it ends.
 */
export class HandoffController implements QualityHooks {
  readonly category: AgentCategory;
  private readonly tracker = new TurnQualityTracker();
  private instance: LiveInstance | undefined;
  private recorder: SessionRecorder | undefined;
  private manager: VirtualContextManager | undefined;
  private reservedTokens = 0;
  private currentPrompt = "";
  private toolErrors: string[] = [];
  private forced: string | undefined;
  private lastCheck: DegradationCheck | undefined;

  constructor(private readonly deps: HandoffControllerDeps) {
    this.category = categoryOf(deps.agentType, "main");
  }

  /** What a detected degradation does to this agent: hand off, or evict (knowledge agents; or handoffs turned off). */
  get action(): "handoff" | "evict" {
    return this.deps.config.enabled && isHandoffAgentType(this.deps.agentType) ? degradationActionOf(this.category) : "evict";
  }

  get agentId(): string | undefined {
    return this.instance?.agentId;
  }

  /** The instance's predicted quality at the last check (the status line shows it). */
  predictedQuality(): number | undefined {
    return this.lastCheck?.lookahead.mean;
  }

  /** The context manager's policy: the GP for agents that evict, under the token safety net; the safety net alone for the others. */
  policy(safetyNet: DegradationPolicy): DegradationPolicy {
    if (this.action !== "evict") return safetyNet;
    return new GaussianProcessPolicy(
      {
        firesAt: (contextTokens, turn) => this.firesForEviction(contextTokens, turn),
        targetContextTokens: () => this.instance?.profile.optimalPreparedSize ?? 0,
      },
      safetyNet,
      () => this.reservedTokens,
    );
  }

  /**
   * Binds the controller to the conversation and its window, once per
   * session: a new session starts its first instance; a continued one goes
   * on with its latest instance, its observations and its handoff state.
   */
  attach(recorder: SessionRecorder, manager: VirtualContextManager, reservedTokens: number): void {
    this.reservedTokens = reservedTokens;
    this.manager = manager;
    if (this.recorder?.session.id === recorder.session.id && this.instance) return;
    this.recorder = recorder;
    const sessionId = recorder.session.id;
    const latest = this.deps.repository.latestInstance(sessionId);
    if (latest && latest.agentType === this.deps.agentType && latest.model === this.deps.model && latest.endReason !== "handoff") {
      if (latest.endedAt !== null) this.deps.repository.reopenInstance(sessionId, latest.agentId);
      this.instance = this.liveInstance(latest.agentId, latest.handoffIndex, latest.preparedFraction ?? undefined);
      for (const observation of this.deps.repository.observations(sessionId, latest.agentId)) {
        this.instance.detector.observe(observation.contextTokens, observation.quality);
      }
      manager.setPreamble(latest.stateText ?? undefined);
    } else {
      // A first instance, or another type or model than the session's last one: a new chain link without a state.
      const index = latest ? latest.handoffIndex + 1 : 0;
      const agentId = this.freshAgentId(sessionId, index);
      this.deps.repository.startInstance({
        sessionId,
        agentId,
        agentType: this.deps.agentType,
        model: this.deps.model,
        handoffIndex: index,
        startedAt: Date.now(),
        handoffEntryId: null,
        state: null,
        stateText: null,
        preparedFraction: null,
      });
      this.instance = this.liveInstance(agentId, index, undefined);
      manager.setPreamble(undefined);
    }
    recorder.switchAgent({ agentId: this.instance.agentId, agentType: this.deps.agentType });
    manager.setAgent(this.instance.agentId, this.deps.agentType);
    this.deps.profiles.catchUpUser();
  }

  /** `/handoff`: the next model call hands off whatever the curve says. */
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
    const instance = this.instance;
    const recorder = this.recorder;
    if (!instance || !recorder) return;
    const signals = this.tracker.finishTurn();
    const quality = qualityOf(signals);
    instance.detector.observe(contextTokens, quality);
    this.deps.repository.recordObservation({
      sessionId: recorder.session.id,
      agentId: instance.agentId,
      agentType: this.deps.agentType,
      model: this.deps.model,
      turn,
      contextTokens,
      quality,
      signals: signals as Record<string, number>,
    });
  }

  /**
   * Before a model call: a pipeline or standalone agent whose curve fired
   * (or that the user asked to) hands off now. Returns what happened; the
   * loop then prepares the new instance's window.
   */
  async beforeModelCall(turn: number, contextTokens: number): Promise<HandoffReport | undefined> {
    if (!this.instance || !this.recorder || !this.manager) return undefined;
    const check = this.checkAt(contextTokens);
    if (this.action !== "handoff") return undefined;
    const reason = this.fire(turn, check, "handoff");
    return reason ? this.handOff(turn, contextTokens, reason, check.lookahead.mean) : undefined;
  }

  /**
   * The end of the session (the process ends or the conversation closes):
   * what the instance learned goes into the profiles; a continued session
   * reopens it and replaces that contribution when it ends again.
   */
  close(): void {
    const instance = this.instance;
    const recorder = this.recorder;
    if (!instance || !recorder || instance.detector.observationCount === 0) return;
    this.endInstance(recorder.session.id, instance, "session_end");
    this.deps.profiles.catchUpUser();
  }

  private firesForEviction(contextTokens: number, turn: number): boolean {
    if (!this.instance) return false;
    return this.fire(turn, this.checkAt(contextTokens), "evict") !== undefined;
  }

  /** The instance's check at this size, kept for the status line. */
  private checkAt(contextTokens: number): DegradationCheck {
    const check = (this.instance as LiveInstance).detector.check(contextTokens);
    this.lastCheck = check;
    return check;
  }

  /** Why the controller fires now (the user's request first, then the curve), recorded with its action; undefined: it does not. */
  private fire(turn: number, check: DegradationCheck, action: "handoff" | "evict"): string | undefined {
    const reason = this.forced ?? (check.fire ? check.condition : undefined);
    if (!reason) return undefined;
    this.forced = undefined;
    this.recordFiring(turn, reason, action, check);
    return reason;
  }

  private async handOff(turn: number, contextTokensBefore: number, reason: string, predictedQuality: number): Promise<HandoffReport> {
    const started = performance.now();
    const recorder = this.recorder as SessionRecorder;
    const manager = this.manager as VirtualContextManager;
    const old = this.instance as LiveInstance;
    const type = this.deps.agentType;
    if (!isHandoffAgentType(type)) throw new Error(`${type} agents evict; they do not hand off`);
    const sessionId = recorder.session.id;
    const handoffIndex = old.handoffIndex + 1;
    const toAgent = this.freshAgentId(sessionId, handoffIndex);
    const snapshot = this.snapshot(sessionId);
    const timestamp = Date.now();
    const state = buildHandoffState(type, snapshot, { handoffIndex, reason, timestamp });
    // The state goes first in the new window; the newest turns fill the rest of the prepared size.
    const draft = renderHandoffState(state, snapshot, { from: old.agentId, to: toAgent, referenceId: "00000000" });
    const keepTokens = Math.max(0, preparedSize(old.profile, contextTokensBefore) - this.deps.countTokens(draft));
    const reference = await manager.handOff(recorder, keepTokens);
    const text = renderHandoffState(state, snapshot, { from: old.agentId, to: toAgent, ...(reference ? { referenceId: reference.id } : {}) });
    const entryId = randomUUID();
    const preparedFraction = old.profile.preparedFraction;
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
          metadata: { handoff_index: handoffIndex, from_agent: old.agentId, to_agent: toAgent, reason, ...(reference ? { reference_id: reference.id } : {}) },
        },
      ],
      () => {
        this.endInstance(sessionId, old, "handoff");
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
        });
      },
    );
    this.deps.profiles.catchUpUser();
    this.instance = this.liveInstance(toAgent, handoffIndex, preparedFraction);
    recorder.switchAgent({ agentId: toAgent, agentType: type });
    manager.setAgent(toAgent, type);
    manager.setPreamble(text);
    this.tracker.reset();
    this.toolErrors = [];
    return {
      fromAgent: old.agentId,
      toAgent,
      handoffIndex,
      reason,
      contextTokensBefore,
      predictedQuality,
      ...(reference ? { referenceId: reference.id } : {}),
      durationMs: performance.now() - started,
    };
  }

  private endInstance(sessionId: string, instance: LiveInstance, reason: string): void {
    const identity = { sessionId, agentId: instance.agentId, agentType: this.deps.agentType, model: this.deps.model };
    this.deps.profiles.endInstance(identity, instance.detector.summary(), (contribution) =>
      this.deps.repository.endInstance(sessionId, instance.agentId, reason, contribution),
    );
  }

  private liveInstance(agentId: string, handoffIndex: number, preparedFraction: number | undefined): LiveInstance {
    const profile = this.deps.profiles.profileFor(this.deps.agentType, this.deps.model, this.deps.windowTokens, this.deps.random);
    const detector = new DegradationDetector(profile, {
      burnIn: this.deps.config.burnInTurns,
      ...(preparedFraction !== undefined ? { preparedFraction } : {}),
    });
    return { agentId, handoffIndex, profile, detector };
  }

  /**
   * In a session tree, the tree's next free id (a sub-agent's first
   * instance: its session's). Otherwise `<type>-<n>`, the n-th instance of
   * the chain (n = handoff index + 1), unless that id is taken by another
   * type's chain.
   */
  private freshAgentId(sessionId: string, handoffIndex: number): string {
    if (handoffIndex === 0 && this.deps.firstAgentId) return this.deps.firstAgentId;
    if (this.deps.allocateAgentId) return this.deps.allocateAgentId();
    let id = `${this.deps.agentType}-${handoffIndex + 1}`;
    for (let suffix = 2; this.deps.repository.instance(sessionId, id); suffix++) id = `${this.deps.agentType}-${handoffIndex + 1}.${suffix}`;
    return id;
  }

  /**
   * The state a handoff would carry now, without handing off: what a
   * pipeline stores for an engineer stage (its task list, decisions, files
   * changed, tool errors). Undefined before the controller is attached.
   */
  stateNow(reason: string): HandoffState | undefined {
    const sessionId = this.recorder?.session.id;
    const type = this.deps.agentType;
    if (!sessionId || !isHandoffAgentType(type)) return undefined;
    return buildHandoffState(type, this.snapshot(sessionId), { handoffIndex: this.instance?.handoffIndex ?? 0, reason, timestamp: Date.now() });
  }

  private snapshot(sessionId: string): PreparedContextSnapshot {
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
    const instance = this.instance;
    const recorder = this.recorder;
    if (!instance || !recorder) return;
    this.deps.repository.recordFiring({
      sessionId: recorder.session.id,
      agentId: instance.agentId,
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
export function preparedSize(profile: AgentHandoffProfile, contextTokensAtFiring: number): number {
  return Math.min(profile.optimalPreparedSize, Math.round(profile.preparedFraction * contextTokensAtFiring));
}
