import { foundByIndependentSignals, type FusedHit, type RankedHit, type RankedList } from "./rrf.js";

/**
 * Relative score fusion: each signal's scores are rescaled to 0..1 over the
 * items it votes for (the lowest 0, the highest 1), times the signal's
 * weight, and summed per item. Weaviate's hybrid search fuses this way; Elastic's
 * linear retriever with min-max normalisation is the same rule.
 *
 * Unlike Reciprocal Rank Fusion it keeps how far apart a signal placed its
 * items. RRF (k = 60) scores ranks 1 and 2 of a signal almost alike
 * (1/61 against 1/62), so a weak signal's preference among a strong signal's
 * top files decided their order even when the strong one was sure: on vite,
 * the hybrid lost a file full text had first, by a clear margin, in 30
 * queries of 300. Here a clear lead survives a weak signal's mild disagreement,
 * and a near tie is broken by whichever signal separates the items more.
 * A signal that cannot tell its items apart (every score equal) adds the
 * same to each and leaves the others' order as it was.
 *
 * A list marked `corroboratesOnly` votes, and is rescaled, only over items an
 * independent list ranked (see `RankedList`), so it re-orders their finds and
 * brings in none of its own.
 */
export function relativeScoreFusion<Id>(lists: ReadonlyArray<RankedList<Id>>): FusedHit<Id>[] {
  const fused = new Map<Id, FusedHit<Id>>();
  const firstSeen = new Map<Id, number>();
  const found = foundByIndependentSignals(lists);
  for (const list of lists) {
    const weight = list.weight ?? 1;
    const corroborating = list.corroboratesOnly === true && found.size > 0;
    const voting = votesOf(list.hits, corroborating ? found : undefined);
    const values = voting.map(({ hit }) => fusedScoreOf(hit));
    const lowest = values.reduce((min, value) => Math.min(min, value), Number.POSITIVE_INFINITY);
    const spread = values.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY) - lowest;
    voting.forEach(({ hit, rank }, index) => {
      let entry = fused.get(hit.id);
      if (!entry) {
        entry = { id: hit.id, score: 0, signals: {} };
        fused.set(hit.id, entry);
        firstSeen.set(hit.id, firstSeen.size);
      }
      // With no spread the signal cannot tell these items apart: the same share for each.
      entry.score += weight * (spread > 0 ? ((values[index] as number) - lowest) / spread : 1);
      entry.signals[list.signal] = { rank, score: hit.score };
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (firstSeen.get(a.id) ?? 0) - (firstSeen.get(b.id) ?? 0));
}

/** What the fusion compares: a score weighted by a prior when the signal has one, else its own score. */
function fusedScoreOf<Id>(hit: RankedHit<Id>): number {
  return hit.weightedScore ?? hit.score;
}

/** Each item once, at its best (first) rank; only items in `allowed` when given. */
function votesOf<Id>(
  hits: ReadonlyArray<RankedHit<Id>>,
  allowed: ReadonlySet<Id> | undefined,
): Array<{ hit: RankedHit<Id>; rank: number }> {
  const seen = new Set<Id>();
  const votes: Array<{ hit: RankedHit<Id>; rank: number }> = [];
  hits.forEach((hit, index) => {
    if (seen.has(hit.id)) return;
    seen.add(hit.id);
    if (allowed && !allowed.has(hit.id)) return;
    votes.push({ hit, rank: index + 1 });
  });
  return votes;
}
