import { tokenize } from "../../parsing/code-tokenizer.js";

/** What the memory-pressure monitor can shrink. */
export interface EvictableCache {
  readonly name: string;
  currentSize(): number;
  /** Drops about this fraction of the content (least recently used first); returns the bytes freed. */
  evict(fraction: number): number;
  setMaxSize(bytes: number): void;
  defaultMaxSize(): number;
}

export interface HotEntry {
  id: string;
  /** A file path or an entry's turn and type, for citing. */
  source: string;
  content: string;
  /** Distinct terms, for the sub-millisecond hot-tier search. */
  terms: Set<string>;
}

/**
 * Recently retrieved or used content, in memory, LRU,
 * bounded in bytes; searched first (< 1 ms) by term overlap. Registered with
 * the memory-pressure monitor as an evictable cache.
 */
export class HotCache implements EvictableCache {
  readonly name = "adaptive-hot-cache";
  private readonly entries = new Map<string, HotEntry>();
  private size = 0;
  private maxSize: number;

  constructor(private readonly defaultMax: number = 8 << 20) {
    this.maxSize = defaultMax;
  }

  put(id: string, source: string, content: string): void {
    this.remove(id);
    const entry: HotEntry = { id, source, content, terms: new Set(tokenize(content)) };
    this.entries.set(id, entry);
    this.size += byteSize(content);
    this.trim();
  }

  get(id: string): HotEntry | undefined {
    const entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.entries.set(id, entry); // most recently used last
    }
    return entry;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Entries sharing query terms, scored by the share of the query they cover. */
  search(queryTerms: readonly string[], limit: number): Array<{ entry: HotEntry; coverage: number }> {
    if (queryTerms.length === 0) return [];
    const scored: Array<{ entry: HotEntry; coverage: number }> = [];
    for (const entry of this.entries.values()) {
      let matched = 0;
      for (const term of queryTerms) if (entry.terms.has(term)) matched++;
      if (matched > 0) scored.push({ entry, coverage: matched / queryTerms.length });
    }
    return scored.sort((a, b) => b.coverage - a.coverage).slice(0, limit);
  }

  currentSize(): number {
    return this.size;
  }

  get count(): number {
    return this.entries.size;
  }

  defaultMaxSize(): number {
    return this.defaultMax;
  }

  setMaxSize(bytes: number): void {
    this.maxSize = bytes;
    this.trim();
  }

  evict(fraction: number): number {
    const target = this.size * fraction;
    let freed = 0;
    for (const id of [...this.entries.keys()]) {
      if (freed >= target) break;
      freed += this.remove(id);
    }
    return freed;
  }

  private trim(): void {
    for (const id of [...this.entries.keys()]) {
      if (this.size <= this.maxSize) break;
      this.remove(id);
    }
  }

  private remove(id: string): number {
    const entry = this.entries.get(id);
    if (!entry) return 0;
    this.entries.delete(id);
    const bytes = byteSize(entry.content);
    this.size -= bytes;
    return bytes;
  }
}

function byteSize(text: string): number {
  return text.length * 2;
}
