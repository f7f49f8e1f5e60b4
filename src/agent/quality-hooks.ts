import type { ContextReference } from "../store/content-types.js";
import type { ToolRunResult } from "./tools/tool-registry.js";

/** What a handoff did, for the `handoff` event (the loop adds the new window's size). */
export interface HandoffReport {
  fromAgent: string;
  toAgent: string;
  /** 1, 2, 3… along the session's chain of instances. */
  handoffIndex: number;
  /** The trigger that fired (below_peak, declining_trend, high_uncertainty) or "forced" (`/handoff`). */
  reason: string;
  contextTokensBefore: number;
  /** The GP's predicted quality at the lookahead when it fired. */
  predictedQuality: number;
  /** The reference standing for everything the new instance's window leaves out. */
  referenceId?: string;
  /** How long the handoff took, without any model call (there is none). */
  durationMs: number;
}

/**
 * What the agent loop tells the handoff controller as a run goes, and the
 * one question it asks it before each model call. The loop knows nothing
 * of Gaussian processes or profiles; the controller nothing of streams.
 */
export interface QualityHooks {
  promptStarted(prompt: string): void;
  turnStarted(turn: number): void;
  /** Before a model call, with the tokens the request puts in the window: hand off now? */
  beforeModelCall(turn: number, contextTokens: number): Promise<HandoffReport | undefined>;
  evicted(reference: ContextReference): void;
  answerStopped(stopReason: string): void;
  toolResult(call: { name: string; input: unknown }, result: ToolRunResult): void;
  interrupted(): void;
  /** The quality the instance's curve predicts for the next turn, once it has one (the status line shows it). */
  predictedQuality(): number | undefined;
  /** The turn is over: one quality observation at the size its request had. */
  turnFinished(turn: number, contextTokens: number): void;
}
