/**
 * Damage in a full-text snapshot, found when it is read: a checksum that
 * does not match (`snapshot-checksum.ts`), or bytes the decoder cannot read
 * (`MalformedSnapshotError` in `postings-codec.ts`). The tables the
 * snapshot caches are intact, so the index can be rebuilt from them.
 */

/** Which part of a snapshot is damaged, and how. */
export interface SnapshotDamage {
  /** `documents`, `postings` or `postings bucket 12`. */
  part: string;
  problem: string;
}

/** A snapshot that cannot be read as it was written. The tables are intact: the index can be rebuilt from them. */
export class DamagedSnapshotError extends Error {
  constructor(
    readonly collection: string,
    readonly damage: SnapshotDamage,
  ) {
    super(`the ${collection} full-text snapshot is damaged (${describeDamage(damage)})`);
    this.name = "DamagedSnapshotError";
  }
}

export function describeDamage(damage: SnapshotDamage): string {
  return `${damage.part}: ${damage.problem}`;
}

/** Damage in the snapshot of one full-text index (`code`, `history`, `knowledge`). */
export interface FullTextIndexDamage extends SnapshotDamage {
  index: string;
}

/** A repair as `sylk index` and the TUI report it. */
export function describeRepair(repair: FullTextIndexDamage): string {
  return `Rebuilt the ${repair.index} full-text index from its stored terms: its snapshot was damaged (${describeDamage(repair)}).`;
}
