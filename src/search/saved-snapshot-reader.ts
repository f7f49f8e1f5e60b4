import type { DecodedSlots, FullTextCollection, FullTextRepository, StoredSnapshot } from "../store/full-text-repository.js";
import { PARTITION_BITS, partitionOf, reverseBits } from "./postings-spill.js";

/**
 * A saved snapshot's postings read as one more spilled segment
 * (`SegmentReader`'s `readUntil`), for a `SegmentedSnapshotBuild` that
 * starts from it: a bucket's row at a time, in the order of the partitions
 * its terms are filed under, so that the build merges it with the segments
 * spilled since in one pass.
 *
 * A saved bucket's terms are one run of partitions (`postings-spill.ts`),
 * whatever bucket count the new snapshot takes: its row is read when the
 * merge reaches the run's first partition and held until the merge passes
 * the run's last. Ids are handed out as saved; the build drops the dead ones.
 */
export class SavedSnapshotReader {
  private readonly bucketBits: number;
  /** The saved run (a bucket, bit-reversed) to read next. */
  private nextRun = 0;
  /** The terms of the run read last, by partition, and how many of them have been handed out. */
  private pending: Array<{ partition: number; term: string; slots: DecodedSlots }> = [];
  private handedOut = 0;

  constructor(
    private readonly repository: FullTextRepository,
    private readonly collection: FullTextCollection,
    private readonly snapshot: StoredSnapshot,
  ) {
    this.bucketBits = Math.log2(snapshot.buckets);
    if (!(Number.isInteger(this.bucketBits) && this.bucketBits <= PARTITION_BITS))
      throw new RangeError(`A snapshot of ${snapshot.buckets} buckets cannot be read by partition.`);
  }

  /** A snapshot of this many buckets can be read by partition. */
  static canRead(snapshot: StoredSnapshot): boolean {
    return snapshot.buckets <= 1 << PARTITION_BITS;
  }

  /** Calls `visit` with each saved term of the partitions up to (not including) `endPartition`, from where the last call ended. */
  readUntil(endPartition: number, visit: (term: string, slots: DecodedSlots) => void): void {
    for (;;) {
      for (; this.handedOut < this.pending.length; this.handedOut++) {
        const entry = this.pending[this.handedOut] as { partition: number; term: string; slots: DecodedSlots };
        if (entry.partition >= endPartition) return;
        visit(entry.term, entry.slots);
      }
      if (this.nextRun >= 1 << this.bucketBits) return;
      if (this.nextRun << (PARTITION_BITS - this.bucketBits) >= endPartition) return;
      const bucket = reverseBits(this.nextRun, this.bucketBits);
      this.nextRun++;
      this.pending = this.repository
        .postingsOfBucket(this.collection, this.snapshot, bucket)
        .map(([term, slots]) => ({ partition: partitionOf(term), term, slots }))
        .sort((a, b) => a.partition - b.partition);
      this.handedOut = 0;
    }
  }

  /** Nothing to release: rows are read by the build's own connection. */
  close(): void {}
}
