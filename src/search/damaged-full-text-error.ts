import type { DamagedSnapshotError, SnapshotDamage } from "../store/full-text-repository.js";

/**
 * A full-text search this process cannot answer: the snapshot is damaged,
 * and the search reads it without loading the whole index. The table is
 * intact and `sylk index` rebuilds the index from it.
 */
export class DamagedFullTextError extends Error {
  readonly damage: SnapshotDamage;

  constructor(found: DamagedSnapshotError) {
    super(`${found.message}; run \`sylk index\` to rebuild it`);
    this.name = "DamagedFullTextError";
    this.damage = found.damage;
  }
}
