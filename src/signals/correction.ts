/**
 * A prompt that opens by correcting what came before ("no", "that's
 * wrong", "undo", "I said"): the previous answer missed. Only the opening
 * counts, so "no tests needed here" in the middle of a request does not.
 */
const CORRECTION =
  /^\s*(?:no\b(?![-\s]+(?:one|problem|worries|need|longer|matter|rush)\b)|nope\b|wrong\b|not\s+(?:that|what\s+i)\b|that'?s\s+(?:not|wrong|incorrect)\b|that\s+is\s+(?:not|wrong|incorrect)\b|undo\b|revert\b|stop\b|i\s+(?:said|told\s+you|asked)\b|you\s+(?:broke|forgot|missed|didn'?t)\b|actually,?\s+no\b)/i;

export function isCorrection(prompt: string): boolean {
  return CORRECTION.test(prompt);
}
