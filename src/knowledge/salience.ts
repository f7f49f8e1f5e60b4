import { estimateTokens } from "../tokens/estimate-tokens.js";
import { KEYWORD_STOP_WORDS } from "./extract-keywords.js";

/**
 * How much a sentence tells, for the extractive observer and reflector, which
 * can only choose what to keep. A sentence's salience is the summed inverse
 * sentence frequency of its content words within the passage it is chosen
 * from, divided by the square root of its tokens: a word every sentence of
 * the passage repeats (a speaker's name, the topic of the hour, "thanks")
 * tells little, a word said once (a name, a path, a number, what was bought
 * or decided) tells much, and a long sentence is charged for its length, but
 * less than in proportion, since it states more. The classic extractive
 * summariser's weighting (SumBasic, TF-IDF sentence scoring), with no list of
 * words beyond the English stop words.
 */

/** The distinct content words of a text: lower-cased runs of letters and digits, clitics ("'s", "'ll"), stop words and single letters out. */
export function contentWordsOf(text: string): Set<string> {
  const words = new Set<string>();
  const plain = text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/'(?:s|ll|re|ve|d|m)\b/g, "")
    // What is left of a contraction reads as the stop words spell it ("isn't" → "isnt").
    .replace(/'/g, "");
  for (const word of plain.match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (KEYWORD_STOP_WORDS.has(word)) continue;
    if (/^\p{N}+$/u.test(word) || word.length >= 2) words.add(word);
  }
  return words;
}

/** Each sentence's salience within the passage `sentences` make up (see above). */
export function salienceOf(sentences: readonly string[]): number[] {
  const words = sentences.map(contentWordsOf);
  const frequency = new Map<string, number>();
  for (const own of words) for (const word of own) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const total = sentences.length;
  return sentences.map((sentence, index) => {
    let told = 0;
    for (const word of words[index] ?? []) told += Math.log((total + 1) / (frequency.get(word) ?? 1));
    return told / Math.sqrt(estimateTokens(sentence) + 1);
  });
}

/**
 * The indexes of the most salient `lines` (ties: the earlier) whose tokens,
 * one more each for its line break, fit in `maxTokens`, in their order.
 * `salience` scores them, one a line.
 */
export function mostSalientWithin(lines: readonly string[], salience: readonly number[], maxTokens: number): number[] {
  const ranked = lines.map((_, index) => index).sort((a, b) => (salience[b] ?? 0) - (salience[a] ?? 0) || a - b);
  const kept: number[] = [];
  let tokens = 0;
  for (const index of ranked) {
    const cost = estimateTokens(lines[index] ?? "") + 1;
    if (tokens + cost > maxTokens) continue;
    kept.push(index);
    tokens += cost;
  }
  return kept.sort((a, b) => a - b);
}
