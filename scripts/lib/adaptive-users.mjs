// The simulated users of scripts/bench-adaptive.mjs, and the figures computed
// from their episodes. A user is what its model does with what prefetch put in
// front of it; everything here is deterministic given its inputs, and the
// randomness (the Thompson draws, the outcome noise) is passed in seeded.
//
// What the users assume:
// - the model reads the prefetch block as the system prompt asks (cite
//   `path:a-b`), and a gold item is enough to answer without searching (for a
//   LoCoMo question with several evidence turns, one is taken as enough);
// - a starved model searches once with the query itself through the real
//   search tool; when the gold is not in what comes back, it tries two more
//   searches and answers with a hedge, and the user follows up once;
// - outcome noise unrelated to retrieval: a follow-up anyway on 15 % of
//   episodes, a failed run (error, interrupt) on 5 %, the same episodes for
//   every policy;
// - no user edits; corrections only from users E and F, whose corrections are
//   what defines them; tokens cost nothing in the satisfaction (the unweighted
//   function has no term for them), so they are reported beside it.

/** Seeded uniform source: the product's own generator (`seededUniform`), loaded by the caller from dist. */
export const mulberry32 = (await import(new URL("../../dist/src/stats/random-draws.js", import.meta.url).href)).seededUniform;

/**
 * What the user's model does with an injection: "uses" cites a gold excerpt,
 * reads a gold hint, and searches only when no gold item was injected;
 * "ignores" never looks at what was injected and always searches; "misled"
 * is "uses", except that with no gold excerpt it answers from a wrong one
 * when one was injected, and the user corrects the answer; "objects" is
 * "ignores", and the user corrects every answer that came with anything
 * injected (a user who does not want context put in front of the model).
 */
export const USERS = [
  { id: "A", name: "uses good excerpts, searches when starved", behaviourAt: () => "uses" },
  { id: "B", name: "never uses excerpts", behaviourAt: () => "ignores" },
  {
    id: "C",
    name: "uses, then ignores from the middle of the run",
    behaviourAt: (episode, total) => (episode <= Math.floor(total / 2) ? "uses" : "ignores"),
    flips: true,
  },
  {
    id: "D",
    name: "ignores, then uses from the middle of the run (extra)",
    behaviourAt: (episode, total) => (episode <= Math.floor(total / 2) ? "ignores" : "uses"),
    flips: true,
  },
  { id: "E", name: "misled by a wrong excerpt, and corrects the answer", behaviourAt: () => "misled" },
  { id: "F", name: "never uses excerpts, and corrects whenever anything was injected", behaviourAt: () => "objects" },
];

/** Reformulations the starved model tries after a first search that found nothing useful. */
const RETRIES = 2;

/**
 * The model's turn after the prefetch, from the query's gold answer:
 * - a gold excerpt was injected ("uses"): the answer cites it (its path, or its
 *   source and a line of it for a conversation turn); no search;
 * - else a gold hint was injected ("uses"): the model reads it (`read_file` of
 *   the hint's path; `get_turn_range` for a conversation turn); no search;
 * - else, and always for "ignores": the model searches with the real search tool
 *   (`search_codebase` / `search_history` with the query). If the gold is in what
 *   that returns, one search and an answer; if not, two more searches, then an
 *   answer that hedges ("I couldn't find …") and the user follows up once.
 * - "misled" (user E) is "uses", but with no gold excerpt and a wrong one
 *   injected it answers from the wrong one, and the user corrects the answer;
 *   "objects" (user F) is "ignores", and the user corrects every answer that
 *   came with anything injected.
 * Which keys count as used is decided by `PrefetchMetrics.recordOutcome`, the
 * product's own rule (an excerpt's source or a line of it in the answer, a file
 * hint's path read by a tool call, a conversation turn's hint brought back by
 * `retrieve_context`), less what the session discounts: an injected
 * file whose path the model's own search returned was found again, not used.
 */
export function modelTurn(behaviour, augmented, query, metrics, detectHedging) {
  const reads = behaviour === "uses" || behaviour === "misled";
  const goldExcerpts = reads ? augmented.excerpts.filter((item) => query.isGold(item)) : [];
  const wrongExcerpts = behaviour === "misled" && goldExcerpts.length === 0 ? augmented.excerpts.filter((item) => !query.isGold(item)) : [];
  const goldHints =
    reads && goldExcerpts.length === 0 && wrongExcerpts.length === 0 ? augmented.summaries.filter((item) => query.isGold(item)) : [];
  const searchedAfter = [];
  const toolCallTargets = [];
  let response;
  let corrections = 0;
  if (goldExcerpts.length > 0 || wrongExcerpts.length > 0) {
    // A wrong excerpt is cited as confidently as a right one; the user then corrects the answer.
    const cited = [...goldExcerpts, ...wrongExcerpts.slice(0, 1)].map((item) =>
      item.path ? item.source : `${item.source}: "${longestLine(item.content)}"`,
    );
    response = `From ${cited.join(" and ")}: the answer follows.`;
    if (wrongExcerpts.length > 0) corrections = 1;
  } else if (goldHints.length > 0) {
    // A tool call's input, as the session records it: read_file's path, or the retrieve_context call a conversation turn's hint names.
    for (const hint of goldHints) toolCallTargets.push(JSON.stringify(hint.path ? { path: hint.path } : { entry_id: hint.entryId }));
    response = `Having read ${goldHints.map((hint) => hint.path ?? hint.source).join(", ")}: the answer follows.`;
  } else {
    searchedAfter.push(query.text);
    // The answer cites what the search found, as it cites an excerpt; if prefetch had injected the
    // same file or turn, PrefetchMetrics counts that item used (the product's attribution).
    if (query.ownSearchFinds) response = `The search found ${query.ownSearchTop}: the answer follows.`;
    else {
      for (let retry = 1; retry <= RETRIES; retry++) searchedAfter.push(`${query.text} (reformulation ${retry})`);
      response = "I couldn't find where this is; it might be one of the places the searches returned.";
    }
  }
  if (behaviour === "objects" && augmented.excerpts.length + augmented.summaries.length > 0) corrections = 1;
  const outcome = metrics.recordOutcome(augmented, response, toolCallTargets);
  // As the session does: an injected file whose path the model's own search returned was found again, not used.
  const searchedPaths = searchedAfter.length > 0 ? (query.ownSearchPaths ?? new Set()) : new Set();
  const refound = new Set(
    [...augmented.excerpts, ...augmented.summaries].filter((item) => item.path && searchedPaths.has(item.path)).map((item) => item.key),
  );
  const hedging = detectHedging(response);
  return {
    prefetchedKeys: outcome.injectedKeys,
    usedKeys: outcome.usedKeys.filter((key) => !refound.has(key)),
    searchedAfter,
    toolCalls: searchedAfter.length + toolCallTargets.length,
    hedging,
    // A hedged answer draws a follow-up from the user.
    outcomeFollowUps: hedging ? 1 : 0,
    corrections,
    tokensInjected: augmented.tokensUsed,
    excerptsInjected: augmented.excerpts.length,
    goldInjected: augmented.excerpts.some((item) => query.isGold(item)) || augmented.summaries.some((item) => query.isGold(item)),
    // What the episode records of its prefetch for the paired advantage, as a session records it.
    rounds: augmented.scored ? [{ ...augmented.scored, neededKeys: outcome.neededKeys.filter((key) => !refound.has(key)) }] : [],
  };
}

/** The line an answer would quote of a text. */
export function longestLine(text) {
  return text.split("\n").reduce((best, line) => (line.trim().length > best.length ? line.trim() : best), "");
}

/**
 * Noise unrelated to retrieval, drawn once per episode and shared by every
 * policy (common random numbers): the user asks a follow-up anyway (15 %), the
 * run fails on its own (an error or an interrupt, 5 %).
 */
export function episodeNoise(random) {
  return { followUp: random() < 0.15, failed: random() < 0.05 };
}

/** The observation's outcome fields: the model's turn plus the episode's noise. */
export function outcomeFields(turn, noise) {
  return {
    taskCompleted: !noise.failed,
    followUps: turn.outcomeFollowUps + (noise.followUp ? 1 : 0),
    corrections: turn.corrections,
    toolCalls: turn.toolCalls,
    userEdits: 0,
    hedging: turn.hedging,
    prefetchedKeys: turn.prefetchedKeys,
    usedKeys: turn.usedKeys,
    searchedAfter: turn.searchedAfter,
    ...(turn.rounds.length > 0 ? { prefetchRounds: turn.rounds } : {}),
  };
}

export const mean = (values) => (values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length);

export function standardDeviation(values) {
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - m) ** 2, 0) / Math.max(1, values.length - 1));
}

/** The median of the runs' figures; null when most runs have none (never settled). */
export function median(values) {
  const sorted = values.filter((value) => value !== null).sort((a, b) => a - b);
  if (sorted.length < values.length / 2) return null;
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** How close the thresholds' posterior means must stay to their final values to count as settled. */
export const SETTLE_BAND = 0.02;
export const SETTLED_THRESHOLDS = ["thresholds.confidence", "thresholds.excerpt", "thresholds.budget"];

/**
 * Convergence (and, from the flip, recovery): the episodes from `start` until
 * the posterior means of the three thresholds (the Beta means: decayed,
 * weighted running means of the evidence) enter and stay within ±SETTLE_BAND
 * of their values after episode `end`. `means[i]` holds the means after
 * episode i + 1. It says when the learner stops moving, not whether where it
 * stopped is good: the satisfaction figures say that. The segment's length
 * means it was still moving at its end.
 */
export function settlingEpisodes(means, start, end) {
  const final = means[end - 1];
  const within = (episode) => SETTLED_THRESHOLDS.every((name) => Math.abs(means[episode - 1][name] - final[name]) <= SETTLE_BAND);
  let settledAt = end;
  while (settledAt > start && within(settledAt - 1)) settledAt--;
  return settledAt - start + 1;
}

/**
 * A paired comparison over the same episodes: the mean of a − b per episode
 * and twice its standard error (the episodes' own spread), so a difference
 * inside the noise reads as such. Each difference is rounded to 1e-9 (a
 * satisfaction is a sum of terms in hundredths): a learner's figure is the
 * mean of its runs, so an episode that matched the priors in every run could
 * differ from them by a rounding error, and a learner that matched them on
 * every episode read as below them (a mean of −1e-17 against 2 SE of 0).
 */
export function pairedDifference(a, b) {
  const differences = a.map((value, index) => Math.round((value - b[index]) * 1e9) / 1e9);
  return {
    mean: mean(differences),
    twoStandardErrors: (2 * standardDeviation(differences)) / Math.sqrt(differences.length),
    sd: standardDeviation(differences),
  };
}
