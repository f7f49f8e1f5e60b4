/**
 * Whether a request can fit the model's window at all. Eviction can move
 * any part of the conversation out, but never the system prompt, the tool
 * definitions or the room kept for the answer; when those and one marker
 * leave no room for the prompt, every request would carry markers only and
 * the model would never see what it was asked. Such a run fails at once,
 * before anything is sent or recorded, instead of calling the model until
 * the turn limit.
 */

export type WindowMisfitKind = "context_window" | "prompt_too_long";

export interface WindowMisfit {
  kind: WindowMisfitKind;
  message: string;
}

export interface RequestShape {
  windowTokens: number;
  /** The system prompt (with what the turn adds to it) and the tool definitions. */
  prefixTokens: number;
  /** Room kept for the answer. */
  answerTokens: number;
  /** What no eviction can free besides the prefix: a handoff's state and one marker standing for the evicted turns. */
  floorTokens: number;
  /** The prompt as the window counts it; 0 when only the fixed part is checked. */
  promptTokens: number;
}

/** Undefined when the prompt fits beside everything that cannot be evicted. */
export function windowMisfit(shape: RequestShape): WindowMisfit | undefined {
  const { windowTokens, prefixTokens, answerTokens, floorTokens, promptTokens } = shape;
  const room = windowTokens - prefixTokens - answerTokens - floorTokens;
  if (room >= promptTokens) return undefined;
  if (room <= 0) {
    return {
      kind: "context_window",
      message:
        `The context window of ${count(windowTokens)} tokens cannot hold the system prompt and tool definitions (${count(prefixTokens)} tokens) ` +
        `with room for the answer (${count(answerTokens)}): nothing of the conversation would reach the model. ` +
        `Give it at least ${count(suggestedWindow(prefixTokens))} tokens (--context-window or context.windowTokens), or use a model with a larger window.`,
    };
  }
  return {
    kind: "prompt_too_long",
    message:
      `The prompt (${count(promptTokens)} tokens) does not fit in the context window of ${count(windowTokens)} tokens ` +
      `beside the system prompt, the tool definitions and the room for the answer (${count(windowTokens - room)} tokens). ` +
      `Shorten it, or give the model a larger window (--context-window or context.windowTokens).`,
  };
}

/**
 * A window whose conversation has as much room as the prefix before the
 * default policy starts moving turns out: it evicts past 75 % of the window
 * and a small window keeps a quarter for the answer, so 0.75 W − W/4 − P ≥ P,
 * W ≥ 4 P (to the next thousand).
 */
function suggestedWindow(prefixTokens: number): number {
  return Math.ceil((4 * prefixTokens) / 1_000) * 1_000;
}

const count = (value: number): string => value.toLocaleString("en-US");
