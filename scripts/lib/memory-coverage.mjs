// Answer-bearing coverage: does a context hold what a question's answer rests on? The measure and its trivial
// baselines for scripts/bench-knowledge.mjs (plain JS, run by node without a build; typed in memory-coverage.d.mts).
//
// Definitions, exactly:
// - Content words of a text: NFKC, lower case, typographic apostrophes made plain; "n't" read as " not" and the
//   clitics 's 'll 're 've 'd 'm removed; then the maximal runs of Unicode letters and digits; a run is a content word
//   when it is not a stop word and is a digit run or has at least two letters.
// - A question's answer words: the content words of its answer, less the conversation's speakers' names (every turn
//   is said by one of them, so their names bear no answer).
// - A question's answer-bearing sentences: the matchable sentences of its evidence turns (the observer's sentence
//   split, held by no other turn of the conversation) that hold at least one answer word.
// - A context holds a sentence when the sentence is a substring of it, case, Unicode form and white space aside.
// - A question is covered by a context when the context holds one of its answer-bearing sentences.
// - A context's tokens: the sum over its lines of `estimateTokens(line) + 1` (the line break), for every contestant.

/** Case, Unicode form and white space do not count in a match. */
export const normalise = (text) => text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ");

/** The content words of `text` (see the definitions above). */
export function contentWords(text, stopWords) {
  const plain = text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/n't\b/g, " not")
    .replace(/'(?:s|ll|re|ve|d|m)\b/g, "");
  const words = new Set();
  for (const word of plain.match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (stopWords.has(word)) continue;
    if (/^\p{N}+$/u.test(word) || word.length >= 2) words.add(word);
  }
  return words;
}

/** The answer words of an answer: its content words less the speakers' names. */
export function answerWords(answer, speakers, stopWords) {
  const words = contentWords(String(answer), stopWords);
  for (const speaker of speakers) for (const name of contentWords(speaker, stopWords)) words.delete(name);
  return words;
}

/** Of `sentences`, those that hold at least one of `words`. */
export function answerBearing(sentences, words, stopWords) {
  return sentences.filter((sentence) => {
    const own = contentWords(sentence, stopWords);
    return [...words].some((word) => own.has(word));
  });
}

/** Whether the normalised `context` holds one of `sentences` (each compared normalised). */
export function holdsAny(context, sentences) {
  return sentences.some((sentence) => context.includes(normalise(sentence)));
}

/** A context's tokens as every contestant is counted: each line's estimate plus one for its line break. */
export function contextTokens(text, estimateTokens) {
  if (text === "") return 0;
  return text.split("\n").reduce((sum, line) => sum + estimateTokens(line) + 1, 0);
}

/** The newest `units` (in their order) whose lines fit in `budget` tokens, taken newest first until the next does not fit. */
export function recentWithin(units, budget, estimateTokens) {
  const kept = [];
  let tokens = 0;
  for (let index = units.length - 1; index >= 0; index--) {
    const cost = estimateTokens(units[index]) + 1;
    if (tokens + cost > budget) break;
    kept.unshift(units[index]);
    tokens += cost;
  }
  return kept;
}

/**
 * Every k-th of `units`, with k = (their tokens) / `budget` (a fraction allowed, so the picks spread evenly over the
 * whole conversation and fill the budget): unit i is taken when the running count of owed units passes a whole one;
 * one that does not fit is skipped.
 */
export function everyKthWithin(units, budget, estimateTokens) {
  const total = units.reduce((sum, unit) => sum + estimateTokens(unit) + 1, 0);
  if (total <= budget) return [...units];
  const rate = budget / total;
  const kept = [];
  let owed = 0;
  let tokens = 0;
  for (const unit of units) {
    owed += rate;
    if (owed < 1) continue;
    const cost = estimateTokens(unit) + 1;
    if (tokens + cost > budget) continue;
    owed -= 1;
    kept.push(unit);
    tokens += cost;
  }
  return kept;
}

/** mulberry32: a small seeded PRNG. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random `units` (a seeded shuffle, each taken if it still fits) within `budget`, in their original order. */
export function randomWithin(units, budget, estimateTokens, seed) {
  const random = seededRandom(seed);
  const order = units.map((_, index) => index);
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other], order[index]];
  }
  const taken = new Set();
  let tokens = 0;
  for (const index of order) {
    const cost = estimateTokens(units[index]) + 1;
    if (tokens + cost > budget) continue;
    taken.add(index);
    tokens += cost;
  }
  return units.filter((_, index) => taken.has(index));
}
