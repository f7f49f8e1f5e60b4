import {
  DamagedSnapshotError,
  type FullTextCollection,
  type FullTextRepository,
  type SnapshotDamage,
  type StoredSnapshot,
} from "../store/full-text-repository.js";
import { FullTextIndex, type FullTextHit, type FullTextResult } from "./full-text-index.js";
import { SegmentedSnapshotBuild } from "./segmented-snapshot-build.js";
import { DamagedFullTextError } from "./damaged-full-text-error.js";
import { reconcileWith, restoreInto } from "./snapshot-restore.js";

/** Rebuild instead of carrying tombstones once they are this share of the index. */
const TOMBSTONE_REBUILD_RATIO = 0.25;
/**
 * A snapshot this small is loaded to apply changes at once; none is (re-saving a 1.5 MB one was most of `sylk index`
 * after an edit): a process that never loaded the index leaves its changes in the table for the next load. Up to
 * `SMALL_SNAPSHOT_BYTES` a snapshot is still read through at the checkpoint, so damage is repaired as a load would;
 * above it, deferred changes that have added up are merged into it on disk, not loaded with it.
 */
const EAGER_LOAD_SNAPSHOT_BYTES = 0;
const SMALL_SNAPSHOT_BYTES = 2 << 20;
const DEFERRED_CHANGES_LIMIT = 2_000; // changes made without loading the snapshot, past which a checkpoint folds them in

export interface PersistentFullTextOptions {
  eagerLoadSnapshotBytes?: number;
  deferredChangesLimit?: number;
  /** Above this size a saved snapshot takes deferred changes merged on disk (`SegmentedSnapshotBuild.mergeIntoSaved`). */
  mergeOnDiskAboveBytes?: number;
  /**
   * Until something loads the index, answer each search from the snapshot's
   * postings of the query's terms alone: for a process that searches once
   * (`sylk search "…"`), where loading the whole index was most of the time.
   */
  searchWithoutLoading?: boolean;
}

/**
 * A FlexSearch index kept in step with its table. It loads from the last
 * snapshot (so a restart does not re-tokenise the repository), then
 * reconciles: documents the table has and the snapshot lacks are added from
 * their stored terms, documents the snapshot has and the table lost are
 * tombstoned. The table is the truth, so a crash at any moment leaves
 * nothing to repair. Another process's commits are noticed through SQLite's
 * `data_version` and reconciled the same way.
 *
 * A process that only changes a few documents of a saved index (`sylk index`
 * after an edit) need not load and re-save the whole snapshot: its changes
 * are left in the table for the next load to reconcile, and counted, so that
 * a checkpoint folds them into the snapshot once they add up.
 *
 * A snapshot holds exactly the table's documents when it is saved (it is
 * reconciled and written in one write transaction), and ids only grow, so
 * documents added since have ids above its highest. Removals deferred as
 * above are noted by id (and left out when restoring, rather than
 * tombstoned); a count then tells whether others happened (a process that
 * crashed before saving): most loads need not list the table's ids at all.
 *
 * A damaged snapshot (see `store/snapshot-damage.ts`) is a cache lost,
 * not data: a load rebuilds the index from the table's stored terms, as
 * when there is no snapshot, and saves a sound one. A search that reads the
 * snapshot without loading it cannot afford that: it fails with
 * `DamagedFullTextError` (the code searcher then answers from vectors and
 * says so) and notes the damage for the next checkpoint (`sylk index`) to
 * repair.
 */
export class PersistentFullText {
  private index = new FullTextIndex();
  private loaded = false;
  private seenDataVersion = -1;
  /** Changes applied in memory since the last snapshot. */
  private unsaved = 0;
  /** Damage this process repaired and has not reported yet (`takeRepairs`). */
  private repairs: SnapshotDamage[] = [];
  /** Set once a search without loading met damage: later ones fail at once. */
  private unreadable: DamagedFullTextError | undefined;
  /** A first index's snapshot being built on disk instead of in memory (`beginSegmentedBuild`). */
  private segmented: SegmentedSnapshotBuild | undefined;

  private readonly eagerLoadSnapshotBytes: number;
  private readonly deferredChangesLimit: number;
  private readonly mergeOnDiskAboveBytes: number;
  private readonly searchWithoutLoading: boolean;

  constructor(
    private readonly repository: FullTextRepository,
    readonly collection: FullTextCollection,
    options: PersistentFullTextOptions = {},
  ) {
    this.eagerLoadSnapshotBytes = options.eagerLoadSnapshotBytes ?? EAGER_LOAD_SNAPSHOT_BYTES;
    this.deferredChangesLimit = options.deferredChangesLimit ?? DEFERRED_CHANGES_LIMIT;
    this.mergeOnDiskAboveBytes = options.mergeOnDiskAboveBytes ?? SMALL_SNAPSHOT_BYTES;
    this.searchWithoutLoading = options.searchWithoutLoading ?? false;
  }

  get size(): number {
    this.ensureCurrent();
    return this.index.size;
  }

  /**
   * Loads the snapshot and reconciles; returns how many documents had to be
   * added or dropped. Without a snapshot, or with a damaged one, the index
   * is built from the stored terms and saved, so the next process finds a
   * sound one.
   */
  load(): { added: number; removed: number } {
    // Loading reads every committed document from the table, which holds all the build was given.
    this.discardSegmentedBuild();
    this.seenDataVersion = this.repository.dataVersion();
    const { snapshot, damage, reconciled } = this.restoreOrRebuild();
    this.loaded = true;
    this.unreadable = undefined;
    // A damaged snapshot must be written again even when the index is empty.
    this.unsaved = Math.max(reconciled.added + reconciled.removed, damage ? 1 : 0);
    // Not inside someone's transaction: the snapshot must not hold rows that may roll back.
    if (!snapshot && (this.index.size > 0 || damage) && !this.repository.inTransaction) this.save();
    return reconciled;
  }

  private restoreOrRebuild(): {
    snapshot: StoredSnapshot | undefined;
    damage?: SnapshotDamage;
    reconciled: { added: number; removed: number };
  } {
    try {
      const snapshot = this.repository.loadSnapshot(this.collection);
      return { snapshot, reconciled: restoreInto(this.repository, this.collection, this.index, snapshot) };
    } catch (error) {
      if (!(error instanceof DamagedSnapshotError)) throw error;
      this.repairs.push(error.damage);
      return {
        snapshot: undefined,
        damage: error.damage,
        reconciled: restoreInto(this.repository, this.collection, this.index, undefined),
      };
    }
  }

  /** Damage found in the snapshot and repaired from the table since the last call. */
  takeRepairs(): SnapshotDamage[] {
    return this.repairs.splice(0);
  }

  /** Damage noted in the store (by a search that could not repair it) and not repaired yet: the next checkpoint will. */
  damageNoted(): SnapshotDamage | undefined {
    return this.repository.recordedDamage(this.collection);
  }

  /**
   * Reads the whole snapshot, checksums and all, to find damage without
   * loading the index (`sylk status`); what is found is noted for the next
   * checkpoint to repair.
   */
  checkSnapshot(): SnapshotDamage | undefined {
    const damage = this.repository.verifySnapshot(this.collection);
    if (damage) this.noteDamage(damage);
    return damage;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /**
   * Lets go of the index in memory; the next search loads the snapshot.
   * For after another process indexed a large part of the project: brought
   * up to date here, the index would take its new documents one by one from
   * their stored terms (about twice the memory of the snapshot loaded, see
   * `save`). Nothing is lost: the table holds every change made here, and a
   * load reconciles with it.
   */
  unload(): void {
    this.discardSegmentedBuild();
    this.index = new FullTextIndex();
    this.loaded = false;
    this.unsaved = 0;
    this.seenDataVersion = -1;
  }

  /**
   * Applies this process's own committed changes. Call after the commit:
   * its own commits do not change `data_version`, so nothing is reconciled
   * twice. When the index is not in memory and a snapshot is saved, the
   * changes are only counted: the next load reconciles them from the table.
   */
  apply(removed: readonly number[], added: ReadonlyArray<{ id: number; terms: string; length: number }>): void {
    const changes = removed.length + added.length;
    if (changes === 0) return;
    if (this.segmented) {
      this.segmented.remove(removed);
      this.segmented.add(added);
      this.unsaved += changes;
      return;
    }
    if (!this.loaded && this.repository.snapshotBytes(this.collection) > this.eagerLoadSnapshotBytes) {
      this.repository.addDeferredChanges(this.collection, changes, removed);
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
   * one. Deferred changes that have added up are merged into a large saved
   * snapshot on disk, or else the index is loaded first (a damaged one too).
   */
  async checkpoint(): Promise<void> {
    if (this.damageNoted()) return this.repairNotedDamage();
    if (this.segmented) return this.finishSegmentedBuild();
    if (!this.loaded) {
      const savedBytes = this.repository.snapshotBytes(this.collection);
      if (this.repository.deferredChanges(this.collection) < this.deferredChangesLimit)
        return savedBytes <= SMALL_SNAPSHOT_BYTES && this.checkSnapshot() ? this.repairNotedDamage() : undefined;
      if (savedBytes > this.mergeOnDiskAboveBytes && this.mergedOnDisk()) return;
    }
    this.ensureCurrent();
    if (this.unsaved > 0) this.save();
  }

  /**
   * For a first index of a large repository (or one resumed after a kill),
   * by a process that will not search it (`sylk index`): until the next
   * checkpoint, applied documents go to a snapshot built on disk a segment
   * at a time (`SegmentedSnapshotBuild`), not to the index in memory, which
   * grows with the repository. The checkpoint adds what the table held
   * before, saves it over any snapshot, and leaves the index unloaded. Only
   * while the index is not in memory; returns whether the build began. A
   * load meanwhile ends it: the table holds what it was given.
   */
  beginSegmentedBuild(): boolean {
    if (this.loaded || this.segmented) return false;
    this.segmented = SegmentedSnapshotBuild.besideDatabase(this.repository, this.collection);
    return true;
  }

  /** See `SegmentedSnapshotBuild.removeAbandoned`. */
  removeAbandonedBuilds(): void {
    SegmentedSnapshotBuild.removeAbandoned(this.repository, this.collection);
  }

  private finishSegmentedBuild(): void {
    const build = this.segmented as SegmentedSnapshotBuild;
    this.segmented = undefined;
    try {
      this.repository.writeTransaction(() => build.finish(this.repository, this.collection));
    } finally {
      build.discard();
    }
    this.unsaved = 0;
  }

  /** See `SegmentedSnapshotBuild.mergeIntoSaved`; false where it saved nothing (no snapshot, or a damaged one). */
  private mergedOnDisk(): boolean {
    try {
      return SegmentedSnapshotBuild.mergeIntoSaved(this.repository, this.collection);
    } catch (error) {
      if (error instanceof DamagedSnapshotError) return false;
      throw error;
    }
  }

  /** Ends a build under way without saving it (a load, or its run failed): the table keeps what it was given. */
  discardSegmentedBuild(): void {
    this.segmented?.discard();
    this.segmented = undefined;
  }

  /**
   * Writes a sound snapshot over one noted as damaged: loading meets the
   * damage and rebuilds from the table (and saves); an index already in
   * memory is sound and is saved as it is.
   */
  private repairNotedDamage(): void {
    if (!this.loaded) this.load();
    const stillNoted = this.damageNoted();
    if (!stillNoted) return;
    this.save();
    this.repairs.push(stillNoted);
  }

  search(terms: readonly string[], limit: number): FullTextHit[] {
    return this.searchWithIdealScore(terms, limit).hits;
  }

  /** See `FullTextIndex.documentsHolding`. */
  documentsHolding(term: string, max: number): number[] | undefined {
    return this.indexFor([term]).documentsHolding(term, max);
  }

  searchWithIdealScore(terms: readonly string[], limit: number): FullTextResult {
    return this.indexFor(terms).searchWithIdealScore(terms, limit);
  }

  idealScore(terms: readonly string[]): number {
    return this.indexFor(terms).idealScore(terms);
  }

  /**
   * Writes a snapshot of exactly the table's documents: reconciled and
   * written in one write transaction, so no other process commits between
   * (see the class comment for why that matters). Tombstones are left out,
   * and rebuilt away in memory once they have piled up.
   */
  save(): void {
    if (!this.loaded) this.load();
    this.repository.writeTransaction(() => {
      this.reconcile(this.repository.ids(this.collection));
      if (this.index.tombstoneCount > Math.max(100, this.index.size * TOMBSTONE_REBUILD_RATIO)) {
        this.index.rebuild(this.repository.documents(this.collection));
      }
      this.repository.saveSnapshot(this.collection, this.index.documents(), [...this.index.liveTerms()]);
    });
    // Built up document by document, the postings took about twice what the snapshot just saved would take loaded.
    this.index.compact();
    this.seenDataVersion = this.repository.dataVersion();
    this.unsaved = 0;
  }

  /** The index a search runs on: the loaded one, or one holding only these terms' postings. */
  private indexFor(terms: readonly string[]): FullTextIndex {
    if (this.loaded || !this.searchWithoutLoading) {
      this.ensureCurrent();
      return this.index;
    }
    if (this.unreadable) throw this.unreadable;
    try {
      const snapshot = this.repository.loadSnapshot(this.collection);
      if (!snapshot) {
        this.load();
        return this.index;
      }
      const partial = new FullTextIndex({ searchedOnce: true });
      restoreInto(this.repository, this.collection, partial, snapshot, terms);
      return partial;
    } catch (error) {
      if (!(error instanceof DamagedSnapshotError)) throw error;
      this.noteDamage(error.damage);
      this.unreadable = new DamagedFullTextError(error);
      throw this.unreadable;
    }
  }

  /** Notes damage in the store for the next checkpoint; a search does not fail for want of the note (the database may be busy). */
  private noteDamage(damage: SnapshotDamage): void {
    try {
      this.repository.recordDamage(this.collection, damage);
    } catch {
      // the damage is found again by whoever reads the snapshot next
    }
  }

  private ensureCurrent(): void {
    if (!this.loaded) {
      this.load();
      return;
    }
    if (this.repository.dataVersion() !== this.seenDataVersion) this.reconcile(this.repository.ids(this.collection));
  }

  private reconcile(storeIds: Iterable<number>): { added: number; removed: number } {
    this.seenDataVersion = this.repository.dataVersion();
    return reconcileWith(this.repository, this.collection, this.index, storeIds);
  }
}
