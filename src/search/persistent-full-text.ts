import type { FullTextCollection, FullTextRepository } from "../store/full-text-repository.js";
import { FullTextIndex, type FullTextHit } from "./full-text-index.js";

/** Rebuild instead of carrying tombstones once they are this share of the index. */
const TOMBSTONE_REBUILD_RATIO = 0.25;

/**
 * A FlexSearch index kept in step with its table. It loads from the last
 * snapshot (so a restart does not re-tokenise the repository), then
 * reconciles: documents the table has and the snapshot lacks are added from
 * their stored terms, documents the snapshot has and the table lost are
 * tombstoned. The table is the truth, so a crash at any moment leaves
 * nothing to repair. Another process's commits are noticed through SQLite's
 * `data_version` and reconciled the same way.
 */
export class PersistentFullText {
  private readonly index = new FullTextIndex();
  private loaded = false;
  private seenDataVersion = -1;

  constructor(
    private readonly repository: FullTextRepository,
    readonly collection: FullTextCollection,
  ) {}

  get size(): number {
    this.ensureCurrent();
    return this.index.size;
  }

  /** Loads the snapshot and reconciles; returns how many documents had to be added or dropped. */
  load(): { added: number; removed: number } {
    this.index.import(this.repository.loadSnapshot(this.collection));
    this.loaded = true;
    return this.reconcile();
  }

  /**
   * Applies this process's own committed changes. Call after the commit:
   * its own commits do not change `data_version`, so nothing is reconciled twice.
   */
  apply(removed: readonly number[], added: ReadonlyArray<{ id: number; terms: string; length: number }>): void {
    this.ensureCurrent();
    for (const id of removed) this.index.remove(id);
    for (const document of added) this.index.add(document.id, document.terms, document.length);
    this.seenDataVersion = this.repository.dataVersion();
  }

  search(terms: readonly string[], limit: number): FullTextHit[] {
    this.ensureCurrent();
    return this.index.search(terms, limit);
  }

  /** Writes a snapshot, rebuilding first when tombstones have piled up. */
  async save(): Promise<void> {
    this.ensureCurrent();
    if (this.index.tombstoneCount > Math.max(100, this.index.size * TOMBSTONE_REBUILD_RATIO)) {
      this.index.rebuild(this.repository.documents(this.collection));
    }
    this.repository.saveSnapshot(this.collection, await this.index.export());
  }

  private ensureCurrent(): void {
    if (!this.loaded) {
      this.load();
      return;
    }
    if (this.repository.dataVersion() !== this.seenDataVersion) this.reconcile();
  }

  private reconcile(): { added: number; removed: number } {
    this.seenDataVersion = this.repository.dataVersion();
    const inIndex = this.index.indexedIds();
    const missing: number[] = [];
    const live = new Set<number>();
    for (const { id, length } of this.repository.lengths(this.collection)) {
      live.add(id);
      if (this.index.has(id)) continue;
      if (inIndex.has(id)) this.index.setLength(id, length);
      else missing.push(id);
    }
    const gone = [...inIndex].filter((id) => !live.has(id));
    this.index.markRemoved(gone);
    for (let start = 0; start < missing.length; start += 1000) {
      for (const document of this.repository.documents(this.collection, missing.slice(start, start + 1000))) {
        this.index.add(document.id, document.terms, document.length);
      }
    }
    return { added: missing.length, removed: gone.length };
  }
}
