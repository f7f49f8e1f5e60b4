import { TF_BUCKETS, TF_BUCKET_VALUE } from "./full-text-document.js";

/** Term frequency by table code: 0 absent, 1 once, 2… the frequency buckets in order. */
export const FREQUENCY_OF_CODE: readonly number[] = [0, 1, ...TF_BUCKETS.map((bucket) => TF_BUCKET_VALUE[bucket] as number)];

/** Tables kept at most; each costs one byte per document id (≈ 100 KB on a 28k-file repository). */
const MAX_TABLES = 64;

/**
 * Dense per-document frequency codes of frequent terms, built from their
 * postings on first use and kept until the index changes. A frequent term
 * then scores the documents a query already found by looking each one up,
 * instead of passing over its postings and its bucket terms' postings
 * (`crate` in a Rust monorepo: ≈ 170,000 entries a query).
 */
export class FrequentTermTables {
  private readonly tables = new Map<string, Uint8Array>();

  /** Forgets every table; call on any change to the index. */
  invalidate(): void {
    if (this.tables.size > 0) this.tables.clear();
  }

  /**
   * The term's table, sized for ids below `capacity`. `postings` lists the
   * term's documents, then each frequency bucket's documents, in
   * `TF_BUCKETS` order.
   */
  get(term: string, capacity: number, postings: () => ReadonlyArray<ArrayLike<number>>): Uint8Array {
    let table = this.tables.get(term);
    if (table && table.length >= capacity) {
      // Most recently used last, so the oldest goes first when full.
      this.tables.delete(term);
      this.tables.set(term, table);
      return table;
    }
    table = new Uint8Array(capacity);
    postings().forEach((ids, code) => {
      for (let index = 0; index < ids.length; index++) table[ids[index] as number] = code + 1;
    });
    if (this.tables.size >= MAX_TABLES) this.tables.delete(this.tables.keys().next().value as string);
    this.tables.set(term, table);
    return table;
  }
}
