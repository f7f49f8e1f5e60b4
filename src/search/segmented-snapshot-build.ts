import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isRunning } from "../project/process-identity.js";
import type {
  DecodedSlots,
  FullTextCollection,
  FullTextDocument,
  FullTextRepository,
  StoredSnapshot,
} from "../store/full-text-repository.js";
import { bucketCountFor, bucketOf, encodeBucket } from "../store/postings-codec.js";
import { FullTextDocuments, LIVE } from "./full-text-documents.js";
import { PARTITION_BITS, readBufferBytes, reverseBits, SegmentReader, spillSegment, type SpilledSegment } from "./postings-spill.js";
import { SavedSnapshotReader } from "./saved-snapshot-reader.js";
import { SegmentPostings } from "./segment-postings.js";

/**
 * Terms text a segment takes in before it is spilled: some 50 MB of
 * arrays and map while it is built (32 MB of text took ≈ 200 MB of heap on
 * biome), whatever the repository's size; a 28k-file repository makes
 * about eight segments.
 */
const SEGMENT_TERM_CHARS = 8 << 20;

/** Bits of the map that counts distinct terms (2 MB): exact enough for a bucket count up to millions of terms. */
const TERM_COUNT_BITS = 24;

/**
 * A full-text snapshot built without the whole index in memory, for a first
 * index of a large repository: the index process then holds a segment of
 * the postings, not the repository's (the whole index in memory, and then
 * the whole snapshot encoded beside it, grew with every file).
 *
 * Documents are indexed into a small in-memory segment, which is spilled to
 * a file of its own once it holds `SEGMENT_TERM_CHARS` of terms
 * (`postings-spill.ts`); `finish` merges the segments bucket by bucket into
 * snapshot rows as `saveSnapshot` would store them (the same terms, ids and
 * frequency slots), so that the snapshot loads and searches the same. Only
 * the documents' table (five bytes an id) grows with the repository.
 *
 * A build may also start from the saved snapshot (`mergeIntoSaved`), whose
 * rows the merge then reads as one more segment: many changes to a saved
 * index folded in without loading it.
 */
export class SegmentedSnapshotBuild {
  private segment = new SegmentPostings();
  private segmentChars = 0;
  private readonly documents = new FullTextDocuments();
  private readonly spilled: SpilledSegment[] = [];
  private readonly seenTerms = new Uint8Array(1 << (TERM_COUNT_BITS - 3));
  private made = false;
  /** The saved snapshot the build started from, if any, and its bucket count. */
  private saved: SavedSnapshotReader | undefined;
  private savedBuckets = 1;

  constructor(
    /** A directory of the build's own, removed when it ends. */
    private readonly directory: string,
    private readonly segmentTermChars = SEGMENT_TERM_CHARS,
  ) {}

  /** A build of `collection`'s snapshot, its segments in a directory of its own beside the database. */
  static besideDatabase(repository: FullTextRepository, collection: FullTextCollection): SegmentedSnapshotBuild {
    SegmentedSnapshotBuild.removeAbandoned(repository, collection);
    return new SegmentedSnapshotBuild(join(repository.scratchDirectory(), `${buildPrefix(collection)}${process.pid}`));
  }

  /**
   * Removes the segments of builds whose process ended without finishing
   * them (killed, or crashed): a later run may never build on disk again,
   * and on a large repository they take hundreds of megabytes.
   */
  static removeAbandoned(repository: FullTextRepository, collection: FullTextCollection): void {
    const parent = repository.scratchDirectory();
    const prefix = buildPrefix(collection);
    let names: string[] = [];
    try {
      names = readdirSync(parent);
    } catch {
      return; // nothing there yet
    }
    for (const name of names) {
      const pid = Number(name.slice(prefix.length));
      if (name.startsWith(prefix) && pid !== process.pid && !isRunning(pid)) rmSync(join(parent, name), { recursive: true, force: true });
    }
  }

  /**
   * Saves the table's documents as a new snapshot merged on disk from the
   * saved one, in one write transaction (docs/DESIGN-NOTES.md, "Many changes
   * to a saved index"). Returns false, having saved nothing, where there is
   * no saved snapshot or it cannot be read by partition; a damaged one
   * throws `DamagedSnapshotError`, and nothing is changed.
   */
  static mergeIntoSaved(repository: FullTextRepository, collection: FullTextCollection): boolean {
    const build = SegmentedSnapshotBuild.besideDatabase(repository, collection);
    try {
      return repository.writeTransaction(() => {
        const snapshot = repository.loadSnapshot(collection);
        if (!snapshot || !SavedSnapshotReader.canRead(snapshot)) return false;
        build.startFrom(repository, collection, snapshot);
        build.finish(repository, collection);
        return true;
      });
    } finally {
      build.discard();
    }
  }

  /**
   * Starts from the saved snapshot's documents, less those noted as removed
   * since: `finish` then takes what else the table gained or lost, and
   * merges the snapshot's rows with the segments. Call before anything is
   * added, inside the write transaction that finishes.
   */
  startFrom(repository: FullTextRepository, collection: FullTextCollection, snapshot: StoredSnapshot): void {
    this.documents.restore(snapshot.documents, repository.removedSinceSnapshot(collection));
    this.saved = new SavedSnapshotReader(repository, collection, snapshot);
    this.savedBuckets = snapshot.buckets;
  }

  /** Documents committed, in any order; one already added is ignored. */
  add(documents: readonly FullTextDocument[]): void {
    for (const document of documents) {
      if (this.documents.isLive(document.id)) continue;
      this.documents.markLive(document.id, document.length);
      this.segment.add(document.id, document.terms);
      this.segmentChars += document.terms.length;
      if (this.segmentChars >= this.segmentTermChars) this.spill();
    }
  }

  /** Documents removed since they were added: left out of the snapshot. */
  remove(ids: readonly number[]): void {
    for (const id of ids) this.documents.tombstone(id);
  }

  /**
   * Brings the build up to the table (what another process committed or
   * removed meanwhile) and saves the snapshot. Call inside a write
   * transaction, so the table cannot change before the snapshot is saved.
   */
  finish(repository: FullTextRepository, collection: FullTextCollection): void {
    const { missing } = this.documents.reconcile(repository.ids(collection));
    for (let start = 0; start < missing.length; start += 1000)
      this.add(repository.documents(collection, missing.slice(start, start + 1000)));
    this.spill();
    // The saved terms are not counted (that would decode every saved row twice): its bucket count stands for them.
    const buckets = Math.min(Math.max(this.savedBuckets, bucketCountFor(this.distinctTerms())), 1 << PARTITION_BITS);
    repository.saveSnapshotRows(collection, this.documents.snapshot(), buckets, this.mergedRows(buckets));
  }

  /** Deletes the spilled segments. */
  discard(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }

  private spill(): void {
    if (this.segment.size === 0) return;
    if (!this.made) {
      mkdirSync(this.directory, { recursive: true });
      this.made = true;
    }
    const terms = [...this.segment.entries()];
    for (const [term] of terms) this.noteTerm(term);
    this.spilled.push(spillSegment(join(this.directory, `segment-${this.spilled.length}`), terms));
    this.segment = new SegmentPostings();
    this.segmentChars = 0;
  }

  /** Marks the term's hash in the map `distinctTerms` reads. */
  private noteTerm(term: string): void {
    const bit = bucketOf(term, 2 ** 32) >>> (32 - TERM_COUNT_BITS);
    this.seenTerms[bit >>> 3] = (this.seenTerms[bit >>> 3] as number) | (1 << (bit & 7));
  }

  /** Distinct terms seen, estimated from the share of the map still clear (linear counting). */
  private distinctTerms(): number {
    let clear = 0;
    for (const byte of this.seenTerms) {
      let bits = byte;
      clear += 8;
      while (bits !== 0) {
        bits &= bits - 1;
        clear--;
      }
    }
    const size = this.seenTerms.length * 8;
    return clear === 0 ? size : Math.round(-size * Math.log(clear / size));
  }

  /** Each bucket's row, merged from every segment, live documents only. */
  private *mergedRows(buckets: number): Generator<[number, Uint8Array]> {
    const bucketBits = Math.log2(buckets);
    const partitionsPerBucket = 1 << (PARTITION_BITS - bucketBits);
    // The readers share `MERGE_READ_BYTES`: a buffer of its own each grew the merge with the segments.
    const bufferBytes = readBufferBytes(this.spilled.length);
    const readers: Array<SavedSnapshotReader | SegmentReader> = this.spilled.map((segment) => new SegmentReader(segment, bufferBytes));
    // The saved ids are all below those added since, so read first it keeps every slot's ids ascending.
    if (this.saved) readers.unshift(this.saved);
    try {
      for (let run = 0; run < buckets; run++) {
        const merged = new Map<string, number[][]>();
        for (const reader of readers)
          reader.readUntil((run + 1) * partitionsPerBucket, (term, slots) => this.mergeInto(merged, term, slots));
        const entries = [...merged].filter(([, slots]) => slots.some((ids) => ids.length > 0));
        if (entries.length > 0) yield [reverseBits(run, bucketBits), encodeBucket(entries)];
      }
    } finally {
      for (const reader of readers) reader.close();
    }
  }

  private mergeInto(merged: Map<string, number[][]>, term: string, slots: ReadonlyArray<DecodedSlots[number] | number[]>): void {
    let into = merged.get(term);
    if (!into) {
      into = [];
      merged.set(term, into);
    }
    const state = this.documents.state;
    for (let slot = into.length; slot < slots.length; slot++) into.push([]);
    slots.forEach((ids, slot) => {
      if (!ids) return;
      const target = into[slot] as number[];
      for (let index = 0; index < ids.length; index++) {
        const id = ids[index] as number;
        if (state[id] === LIVE) target.push(id);
      }
    });
  }
}

function buildPrefix(collection: FullTextCollection): string {
  return `fts-build-${collection}-`;
}
