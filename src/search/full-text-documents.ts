/** A document id's state in a full-text index. */
export const ABSENT = 0;
export const LIVE = 1;
export const TOMBSTONED = 2;

/** The live documents of an index, dense by id (what a snapshot stores). */
export interface IndexDocuments {
  /** `LIVE` (1) for each live document, 0 elsewhere, up to the highest live id. */
  live: Uint8Array;
  lengths: Float32Array;
  count: number;
  totalLength: number;
}

/**
 * The per-document side of a full-text index: which ids are live, absent or
 * tombstoned, each document's length, and the totals BM25 needs. Indexed by
 * id (store ids are dense integers): typed arrays keep the scoring loop free
 * of hash lookups, and it reads `state` and `lengths` directly.
 */
export class FullTextDocuments {
  state = new Uint8Array(1024);
  lengths = new Float32Array(1024);
  liveCount = 0;
  tombstones = 0;
  totalLength = 0;

  isLive(id: number): boolean {
    return this.state[id] === LIVE;
  }

  /** Throws for a tombstoned id: the store never reuses ids (AUTOINCREMENT), so one would mean the index and the store disagree. */
  assertNotRemoved(id: number): void {
    if (this.state[id] === TOMBSTONED) throw new Error(`Full-text document ${id} was removed; ids are never reused.`);
  }

  markLive(id: number, length: number): void {
    this.ensureCapacity(id);
    this.state[id] = LIVE;
    this.lengths[id] = length;
    this.liveCount++;
    this.totalLength += length;
  }

  /** A live document becomes a tombstone: skipped at query time, dropped on the next rebuild. */
  tombstone(id: number): void {
    if (this.state[id] !== LIVE) return;
    this.state[id] = TOMBSTONED;
    this.liveCount--;
    this.tombstones++;
    this.totalLength -= this.lengths[id] as number;
  }

  /**
   * Tombstones the live documents the store lost and returns, ascending, the
   * store's ids this index lacks.
   */
  reconcile(storeIds: Iterable<number>): { missing: number[]; removed: number } {
    const seen = new Uint8Array(this.state.length);
    const missing: number[] = [];
    for (const id of storeIds) {
      const current = this.state[id];
      if (current === LIVE) seen[id] = 1;
      else if (current === TOMBSTONED) throw new Error(`Full-text document ${id} was removed but the store has it; ids are never reused.`);
      else missing.push(id);
    }
    let removed = 0;
    for (let id = 0; id < seen.length; id++) {
      if (seen[id] === 0 && this.state[id] === LIVE) {
        this.tombstone(id);
        removed++;
      }
    }
    return { missing: missing.sort((a, b) => a - b), removed };
  }

  /**
   * Live documents among these postings. With no tombstones every posting
   * is live: frequent terms have up to ~170,000 of them on a large
   * repository, and counting them was a pass per query term.
   */
  liveIn(postings: ArrayLike<number>): number {
    if (this.tombstones === 0) return postings.length;
    let live = 0;
    for (let index = 0; index < postings.length; index++) if (this.state[postings[index] as number] === LIVE) live++;
    return live;
  }

  /** The live documents, dense by id. */
  snapshot(): IndexDocuments {
    const size = this.state.lastIndexOf(LIVE) + 1;
    const live = this.state.slice(0, size);
    const lengths = this.lengths.slice(0, size);
    // A removed document's length goes too, so that a snapshot's bytes do not depend on how its documents came and went.
    if (this.tombstones > 0)
      for (let id = 0; id < size; id++)
        if (live[id] !== LIVE) {
          live[id] = ABSENT;
          lengths[id] = 0;
        }
    return { live, lengths, count: this.liveCount, totalLength: this.totalLength };
  }

  /** Takes a snapshot's documents, live, except `leftOut` (removed since the snapshot): gone, not tombstoned. */
  restore(documents: IndexDocuments, leftOut: Iterable<number>): void {
    this.reset();
    const { live, lengths } = documents;
    if (live.length > 0) this.ensureCapacity(live.length - 1);
    this.state.set(live);
    this.lengths.set(lengths);
    this.liveCount = documents.count;
    this.totalLength = documents.totalLength;
    for (const id of leftOut) {
      if (this.state[id] !== LIVE) continue;
      this.state[id] = ABSENT;
      this.liveCount--;
      this.totalLength -= this.lengths[id] as number;
      this.lengths[id] = 0;
    }
  }

  reset(): void {
    this.state.fill(ABSENT);
    this.lengths.fill(0);
    this.liveCount = 0;
    this.tombstones = 0;
    this.totalLength = 0;
  }

  private ensureCapacity(id: number): void {
    if (id < this.state.length) return;
    let size = this.state.length;
    while (size <= id) size *= 2;
    const state = new Uint8Array(size);
    state.set(this.state);
    this.state = state;
    const lengths = new Float32Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}
