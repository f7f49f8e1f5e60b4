/**
 * The learning engine as a tool wrapper, and its decisions: what a tool
 * call's outcome teaches. A failed call leaves a pending error (its
 * signature, its input); a success of the same tool within `FIX_WINDOW`
 * calls turns it into a learning, the fix being what changed in the input.
 * An error already learned is watched: the next call of that tool confirms
 * the learning (success) or refutes it (failure). Pure: the caller stores.
 */

/** Calls of a tool after a failure within which its success counts as the fix. */
export const FIX_WINDOW = 5;
/** Confidence of a new learning, and how far a confirmation and a refutation move it. */
export const NEW_CONFIDENCE = 0.5;
const CONFIRM_STEP = 0.1;
const REFUTE_STEP = 0.2;
const MAX_CONFIDENCE = 0.95;
/** Below this a learning is no longer shown as a Known Solution. */
export const SHOWN_CONFIDENCE = 0.2;

export interface CallOutcome {
  tool: string;
  input: unknown;
  isError: boolean;
  /** The result's text (for an error, its message). */
  output: string;
}

export type AgentLearningAction =
  | { kind: "learn"; tool: string; signature: string; error: string; failedInput: unknown; workingInput: unknown }
  | { kind: "confirm"; tool: string; signature: string }
  | { kind: "refute"; tool: string; signature: string };

interface Pending {
  signature: string;
  error: string;
  input: unknown;
  /** Calls of the tool since the failure. */
  calls: number;
  /** The error has a learning already: the next call judges it instead of making a new one. */
  known: boolean;
}

export class AgentLearningEngine {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly signatureOf: (error: string) => string,
    /** Whether a learning for this tool and signature exists. */
    private readonly isKnown: (tool: string, signature: string) => boolean,
  ) {}

  observe(outcome: CallOutcome): AgentLearningAction[] {
    const waiting = this.pending.get(outcome.tool);
    const actions: AgentLearningAction[] = [];
    if (waiting) {
      waiting.calls += 1;
      if (waiting.known) {
        actions.push({ kind: outcome.isError ? "refute" : "confirm", tool: outcome.tool, signature: waiting.signature });
        this.pending.delete(outcome.tool);
      } else if (!outcome.isError) {
        actions.push({
          kind: "learn",
          tool: outcome.tool,
          signature: waiting.signature,
          error: waiting.error,
          failedInput: waiting.input,
          workingInput: outcome.input,
        });
        this.pending.delete(outcome.tool);
      } else if (waiting.calls >= FIX_WINDOW) {
        this.pending.delete(outcome.tool);
      }
    }
    if (outcome.isError && !this.pending.has(outcome.tool)) {
      const error = firstLine(outcome.output);
      const signature = this.signatureOf(error);
      if (signature)
        this.pending.set(outcome.tool, { signature, error, input: outcome.input, calls: 0, known: this.isKnown(outcome.tool, signature) });
    }
    return actions;
  }
}

/** A learning's confidence after a confirmation or a refutation. */
export function judged(confidence: number, action: "confirm" | "refute"): number {
  return action === "confirm" ? Math.min(MAX_CONFIDENCE, confidence + CONFIRM_STEP) : Math.max(0, confidence - REFUTE_STEP);
}

/** The fix, as the inputs' differing fields: `field: before → after`, each value clipped. */
export function describeFix(failedInput: unknown, workingInput: unknown): string {
  const before = asRecord(failedInput);
  const after = asRecord(workingInput);
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
  if (fields.length === 0) return "the same call, again (the failure was transient)";
  return fields.map((key) => `${key}: ${clip(before[key])} → ${clip(after[key])}`).join("; ");
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { input: value };
}

function clip(value: unknown): string {
  const text =
    value === undefined ? "(none)" : typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .find((candidate) => candidate.trim() !== "")
      ?.trim() ?? "";
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
