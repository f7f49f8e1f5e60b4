/**
 * The `limit` best (id, score) pairs of a large candidate set, best first, by
 * a bounded min-heap: O(n log k) instead of sorting every candidate, which
 * dominated full-text latency for common terms (26k candidates: 19 ms → <2 ms).
 * Ties go to the smaller id, as a full sort by (score desc, id asc) would.
 */
export function topK(ids: readonly number[], scoreOf: (id: number) => number, limit: number): Array<{ id: number; score: number }> {
  const size = Math.min(limit, ids.length);
  if (size <= 0) return [];
  const heapIds = new Float64Array(size);
  const heapScores = new Float64Array(size);
  let count = 0;
  // "a is worse than b": lower score, or equal score and larger id.
  const worse = (aScore: number, aId: number, bScore: number, bId: number) => aScore < bScore || (aScore === bScore && aId > bId);

  const siftUp = (index: number) => {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!worse(heapScores[index] as number, heapIds[index] as number, heapScores[parent] as number, heapIds[parent] as number)) break;
      swap(index, parent);
      index = parent;
    }
  };
  const siftDown = (index: number) => {
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let worst = index;
      if (left < count && worse(heapScores[left] as number, heapIds[left] as number, heapScores[worst] as number, heapIds[worst] as number)) worst = left;
      if (right < count && worse(heapScores[right] as number, heapIds[right] as number, heapScores[worst] as number, heapIds[worst] as number)) worst = right;
      if (worst === index) return;
      swap(index, worst);
      index = worst;
    }
  };
  const swap = (a: number, b: number) => {
    const id = heapIds[a] as number;
    heapIds[a] = heapIds[b] as number;
    heapIds[b] = id;
    const score = heapScores[a] as number;
    heapScores[a] = heapScores[b] as number;
    heapScores[b] = score;
  };

  for (const id of ids) {
    const score = scoreOf(id);
    if (count < size) {
      heapIds[count] = id;
      heapScores[count] = score;
      siftUp(count++);
    } else if (worse(heapScores[0] as number, heapIds[0] as number, score, id)) {
      heapIds[0] = id;
      heapScores[0] = score;
      siftDown(0);
    }
  }
  const result: Array<{ id: number; score: number }> = [];
  for (let index = 0; index < count; index++) result.push({ id: heapIds[index] as number, score: heapScores[index] as number });
  return result.sort((a, b) => b.score - a.score || a.id - b.id);
}
