/**
 * Reciprocal Rank Fusion (Cormack et al. 2009) as a pure function: each
 * signal contributes 1 / (k + rank) for every item it ranked, and every fused
 * hit keeps each signal's own rank and score so that callers can validate
 * across signals.
 *
 * A signal can be marked as one that only corroborates: it then votes only
 * for items that an independent signal of the same fusion also ranked, so it
 * re-orders what they found by agreement and never brings in an item of its
 * own. Equal-weight RRF gives a weak signal's noise the same vote as a strong
 * signal's evidence; a corroborating signal's noise can only land on items the
 * strong signal already found.
 */

const DEFAULT_RRF_K = 60;

export interface RankedHit<Id> {
  id: Id;
  /** The signal's own score (higher is better); kept as evidence, and what a score fusion compares unless `weightedScore` is given. */
  score: number;
  /** The score times a prior the signal's order follows (the kind of file): what a score fusion compares instead of `score`. */
  weightedScore?: number;
}

export interface RankedList<Id> {
  signal: string;
  /** Best first. */
  hits: ReadonlyArray<RankedHit<Id>>;
  /** Multiplies this signal's contribution; 1 by default. */
  weight?: number;
  /**
   * Votes only for items that a list without this flag ranked. When no such
   * list ranked anything (none was given, or they found nothing), there is
   * nothing to corroborate and this list ranks on its own.
   */
  corroboratesOnly?: boolean;
}

export interface SignalEvidence {
  /** 1-based rank within the signal. */
  rank: number;
  score: number;
}

export interface FusedHit<Id> {
  id: Id;
  score: number;
  signals: Record<string, SignalEvidence>;
}

export function reciprocalRankFusion<Id>(lists: ReadonlyArray<RankedList<Id>>, k: number = DEFAULT_RRF_K): FusedHit<Id>[] {
  if (!(k > 0)) throw new RangeError(`RRF k must be positive, got ${k}`);
  const fused = new Map<Id, FusedHit<Id>>();
  let order = 0;
  const firstSeen = new Map<Id, number>();
  const found = foundByIndependentSignals(lists);
  for (const list of lists) {
    const weight = list.weight ?? 1;
    const seenInList = new Set<Id>();
    const corroborating = list.corroboratesOnly === true && found.size > 0;
    // A corroborating list's vote is its rank among the items it may vote for: its say in their order.
    let votes = 0;
    list.hits.forEach((hit, index) => {
      if (seenInList.has(hit.id)) return; // a signal votes once per item, at its best rank
      seenInList.add(hit.id);
      if (corroborating && !found.has(hit.id)) return;
      votes++;
      let entry = fused.get(hit.id);
      if (!entry) {
        entry = { id: hit.id, score: 0, signals: {} };
        fused.set(hit.id, entry);
        firstSeen.set(hit.id, order++);
      }
      entry.score += weight / (k + (corroborating ? votes : index + 1));
      entry.signals[list.signal] = { rank: index + 1, score: hit.score };
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (firstSeen.get(a.id) ?? 0) - (firstSeen.get(b.id) ?? 0));
}

/** The items that lists not marked `corroboratesOnly` ranked: what a corroborating list may vote for. */
export function foundByIndependentSignals<Id>(lists: ReadonlyArray<RankedList<Id>>): ReadonlySet<Id> {
  const found = new Set<Id>();
  for (const list of lists) if (!list.corroboratesOnly) for (const hit of list.hits) found.add(hit.id);
  return found;
}
