/**
 * What one turn says about the agent's quality, without asking anyone: the
 * mistakes it made, counted, and one number in [0, 1] made of them. The
 * weights are the design notes' ("The handoff controller", "Quality
 * observations"); the counts are stored with every observation, so later
 * work can learn the weights instead.
 */

const QUALITY_SIGNALS = [
  "tool_failed",
  "tool_refused",
  "edit_miss",
  "malformed_input",
  "repeated_call",
  "redundant_read",
  "check_failed_after_edit",
  "truncated_output",
  "interrupted",
  "user_correction",
  "evicted_recall",
] as const;

export type QualitySignal = (typeof QUALITY_SIGNALS)[number];

export type SignalCounts = Partial<Record<QualitySignal, number>>;

/** The share of what is left that one occurrence costs. */
export const SIGNAL_WEIGHTS: Readonly<Record<QualitySignal, number>> = {
  tool_failed: 0.15,
  tool_refused: 0.05,
  edit_miss: 0.3,
  malformed_input: 0.3,
  repeated_call: 0.25,
  redundant_read: 0.15,
  check_failed_after_edit: 0.2,
  truncated_output: 0.3,
  interrupted: 0.3,
  user_correction: 0.4,
  evicted_recall: 0.1,
};

/**
 * `Π (1 − w)^count`: each mistake costs a share of what is left, so the
 * value stays in (0, 1], a clean turn is 1, and one disastrous turn does
 * not weigh more than a few bad ones.
 */
export function qualityOf(counts: SignalCounts, weights: Readonly<Record<QualitySignal, number>> = SIGNAL_WEIGHTS): number {
  let quality = 1;
  for (const signal of QUALITY_SIGNALS) {
    const count = counts[signal] ?? 0;
    if (count > 0) quality *= (1 - weights[signal]) ** count;
  }
  return quality;
}
