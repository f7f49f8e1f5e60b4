/**
 * Reciprocal Rank Fusion (Cormack et al. 2009) as a pure function: each
 * signal contributes 1 / (k + rank) for every item it ranked, and every fused
 * hit keeps each signal's own rank and score so that callers can validate
 * across signals.
 */

const DEFAULT_RRF_K = 60;

export interface RankedHit<Id> {
  id: Id;
  /** The signal's own score (higher is better); kept, not used by the fusion. */
  score: number;
}

export interface RankedList<Id> {
  signal: string;
  /** Best first. */
  hits: ReadonlyArray<RankedHit<Id>>;
  /** Multiplies this signal's contribution; 1 by default. */
  weight?: number;
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
  for (const list of lists) {
    const weight = list.weight ?? 1;
    const seenInList = new Set<Id>();
    list.hits.forEach((hit, index) => {
      if (seenInList.has(hit.id)) return; // a signal votes once per item, at its best rank
      seenInList.add(hit.id);
      const rank = index + 1;
      let entry = fused.get(hit.id);
      if (!entry) {
        entry = { id: hit.id, score: 0, signals: {} };
        fused.set(hit.id, entry);
        firstSeen.set(hit.id, order++);
      }
      entry.score += weight / (k + rank);
      entry.signals[list.signal] = { rank, score: hit.score };
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (firstSeen.get(a.id) ?? 0) - (firstSeen.get(b.id) ?? 0));
}
