import type { FullTextCollection, FullTextRepository } from "../store/full-text-repository.js";
import { FullTextIndex, type FullTextHit, type FullTextResult } from "./full-text-index.js";

/** Rebuild instead of carrying tombstones once they are this share of the index. */
const TOMBSTONE_REBUILD_RATIO = 0.25;
/** A snapshot this small is loaded to apply changes at once; a larger one is left for reconciling. */
const EAGER_LOAD_SNAPSHOT_BYTES = 2 << 20;
/** Changes made without loading the snapshot, past which a checkpoint folds them in. */
const DEFERRED_CHANGES_LIMIT = 2_000;

/**
 * A FlexSearch index kept in step with its table. It loads from the last
 * snapshot (so a restart does not re-tokenise the repository), then
 * reconciles: documents the table has and the snapshot lacks are added from
 * their stored terms, documents the snapshot has and the table lost are
 * tombstoned. The table is the truth, so a crash at any moment leaves
 * nothing to repair. Another process's commits are noticed through SQLite's
 * `data_version` and reconciled the same way.
 *
 * A process that only changes a few documents of a large index (`sylk index`
 * after an edit) need not load and re-save the whole snapshot: its changes
 * are left in the table for the next load to reconcile, and counted, so that
 * a checkpoint folds them into the snapshot once they add up.
 */
export class PersistentFullText {
  private readonly index = new FullTextIndex();
  private loaded = false;
  private seenDataVersion = -1;
  /** Changes applied in memory since the last snapshot. */
  private unsaved = 0;

  private readonly eagerLoadSnapshotBytes: number;
  private readonly deferredChangesLimit: number;

  constructor(
    private readonly repository: FullTextRepository,
    readonly collection: FullTextCollection,
    limits: { eagerLoadSnapshotBytes?: number; deferredChangesLimit?: number } = {},
  ) {
    this.eagerLoadSnapshotBytes = limits.eagerLoadSnapshotBytes ?? EAGER_LOAD_SNAPSHOT_BYTES;
    this.deferredChangesLimit = limits.deferredChangesLimit ?? DEFERRED_CHANGES_LIMIT;
  }

  get size(): number {
    this.ensureCurrent();
    return this.index.size;
  }

  /** Loads the snapshot and reconciles; returns how many documents had to be added or dropped. */
  load(): { added: number; removed: number } {
    this.index.import(this.repository.loadSnapshot(this.collection));
    this.loaded = true;
    const reconciled = this.reconcile();
    this.unsaved = reconciled.added + reconciled.removed;
    return reconciled;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /**
   * Applies this process's own committed changes. Call after the commit:
   * its own commits do not change `data_version`, so nothing is reconciled
   * twice. When the index is not in memory and its snapshot is large, the
   * changes are only counted: the next load reconciles them from the table.
   */
  apply(removed: readonly number[], added: ReadonlyArray<{ id: number; terms: string; length: number }>): void {
    const changes = removed.length + added.length;
    if (changes === 0) return;
    if (!this.loaded && this.repository.snapshotBytes(this.collection) > this.eagerLoadSnapshotBytes) {
      this.repository.addDeferredChanges(this.collection, changes);
      return;
    }
    this.ensureCurrent();
    for (const id of removed) this.index.remove(id);
    for (const document of added) this.index.add(document.id, document.terms, document.length);
    this.seenDataVersion = this.repository.dataVersion();
    this.unsaved += changes;
  }

  /**
   * End of a batch of work: writes a snapshot when changes are waiting for
   * one, loading the index first if deferred changes have added up.
   */
  async checkpoint(): Promise<void> {
    if (!this.loaded && this.repository.deferredChanges(this.collection) < this.deferredChangesLimit) return;
    this.ensureCurrent();
    if (this.unsaved > 0) await this.save();
  }

  search(terms: readonly string[], limit: number): FullTextHit[] {
    this.ensureCurrent();
    return this.index.search(terms, limit);
  }

  searchWithIdealScore(terms: readonly string[], limit: number): FullTextResult {
    this.ensureCurrent();
    return this.index.searchWithIdealScore(terms, limit);
  }

  idealScore(terms: readonly string[]): number {
    this.ensureCurrent();
    return this.index.idealScore(terms);
  }

  /** Writes a snapshot, rebuilding first when tombstones have piled up. */
  async save(): Promise<void> {
    this.ensureCurrent();
    if (this.index.tombstoneCount > Math.max(100, this.index.size * TOMBSTONE_REBUILD_RATIO)) {
      this.index.rebuild(this.repository.documents(this.collection));
    }
    this.repository.saveSnapshot(this.collection, await this.index.export());
    this.unsaved = 0;
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
    const { missing, removed } = this.index.reconcile(this.repository.lengths(this.collection));
    for (let start = 0; start < missing.length; start += 1000) {
      for (const document of this.repository.documents(this.collection, missing.slice(start, start + 1000))) {
        this.index.add(document.id, document.terms, document.length);
      }
    }
    return { added: missing.length, removed };
  }
}
