import type { ContextReference } from "../store/content-types.js";
import type { ToolRunResult } from "./tools/tool-registry.js";

/** The agent instance answering now: who records, whose window it is, and what that window starts with. */
export interface AgentInstance {
  agentId: string;
  agentType: string;
  /** Its handoff state, ahead of every stored message and never evicted; undefined: none. */
  preamble: string | undefined;
}

/** A knowledge agent (or any agent with handoffs off) degrades: the same instance goes on with a smaller window. */
export interface EvictionPlan {
  action: "evict";
  /** Tokens to move out of the prepared window: down to the learned prepared size. */
  targetTokens: number;
}

/** A pipeline or standalone agent degrades (or `/handoff` asked): a fresh instance of its type and model takes over. */
export interface SuccessorPlan {
  action: "handoff";
  fromAgent: string;
  toAgent: string;
  /** 1, 2, 3… along the session's chain of instances. */
  handoffIndex: number;
  /** The trigger that fired (below_peak, declining_trend, high_uncertainty, onset_reached) or "forced" (`/handoff`). */
  reason: string;
  contextTokensBefore: number;
  /** The GP's predicted quality at the lookahead when it fired. */
  predictedQuality: number;
  /** The newest tokens of the window the new instance keeps; everything before leaves behind one reference. */
  keepTokens: number;
  /**
   * Stores the handoff once the window is trimmed: the state (pointing at
   * the reference standing for what the new window leaves out), the old
   * instance's end and the new one's start. Returns the new instance.
   */
  commit(referenceId: string | undefined): Promise<AgentInstance>;
  /** How long planning took (reading and building the state); the loop adds the rest of the handoff. */
  planMs: number;
}

/** What the controller decides before a model call; the loop applies it to the window and the recorder. */
export type HandoffPlan = EvictionPlan | SuccessorPlan;

/**
 * What the agent loop tells the handoff controller as a run goes, and the
 * one question it asks it before each model call. The loop knows nothing
 * of Gaussian processes or profiles; the controller nothing of streams,
 * windows or recorders: it answers with a plan, which the loop applies.
 */
export interface QualityHooks {
  /** The instance the run starts with (a continued session goes on with its latest). */
  readonly instance: AgentInstance;
  promptStarted(prompt: string): void;
  turnStarted(turn: number): void;
  /** Before a model call, with the tokens the prepared request puts in the window: what to do now (undefined: nothing). */
  planFor(turn: number, contextTokens: number): HandoffPlan | undefined;
  evicted(reference: ContextReference): void;
  answerStopped(stopReason: string): void;
  toolResult(call: { name: string; input: unknown }, result: ToolRunResult): void;
  interrupted(): void;
  /** The quality the instance's curve predicted when it was last asked, once it has one (the status line shows it). */
  predictedQuality(): number | undefined;
  /** The turn is over: one quality observation at the size its request had. */
  turnFinished(turn: number, contextTokens: number): void;
}
