import type { SqliteDatabase } from "./database.js";

/** The table's storage is not laid out as this reader expects (another sqlite-vec version): read it row by row instead. */
export class Vec0LayoutError extends Error {
  constructor(table: string, problem: string) {
    super(`${table}: sqlite-vec's storage is not as expected (${problem})`);
    this.name = "Vec0LayoutError";
  }
}

interface BlockRow {
  chunkId: number;
  size: number;
  validity: Buffer;
  rowids: Buffer;
  vectors: Buffer;
}

/**
 * Visits every vector of a sqlite-vec `vec0` table with float vectors of
 * `dimensions`, a storage block at a time: sqlite-vec keeps its vectors in
 * blocks of (by default) 1,024, each one blob in `<table>_vector_chunks00`
 * beside a validity bitmap and the blocks' rowids (`<table>_chunks`).
 *
 * Why not `SELECT rowid, embedding FROM <table>`: through the virtual
 * table every vector is a row, a call into sqlite-vec and a buffer handed to
 * JavaScript. Loading an in-memory copy of 86k vectors that way took
 * 1.5–2.1 s on a loaded 2-core machine; by blocks, 0.56–0.85 s.
 *
 * All of it is read in one transaction. The vector handed to `visit` is a
 * view into the block, valid only during the call. Throws
 * `Vec0LayoutError` when the storage is not as described (checked before
 * anything is visited) or when the live vectors found are not the ones
 * `<table>_rowids` counts (found after: the caller must drop what it got).
 */
export function visitVec0Blocks(
  db: SqliteDatabase,
  table: string,
  dimensions: number,
  visit: (id: number, vector: Float32Array) => void,
): void {
  db.transaction(() => {
    const shadowTables = ["_chunks", "_vector_chunks00", "_rowids"].map((suffix) => `${table}${suffix}`);
    const present = db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?");
    for (const name of shadowTables) if (present.get(name)?.n !== 1) throw new Vec0LayoutError(table, `no table ${name}`);
    const join = `FROM ${table}_chunks c JOIN ${table}_vector_chunks00 v ON v.rowid = c.chunk_id`;
    // length() of a blob reads no content: this costs a walk of the two tables' leaves, not 88 MB.
    const misshapen = db
      .prepare<[number], { n: number }>(
        `SELECT count(*) AS n ${join}
         WHERE length(c.rowids) != c.size * 8 OR length(c.validity) * 8 < c.size OR length(v.vectors) != c.size * ? * 4`,
      )
      .get(dimensions)?.n;
    if (misshapen !== 0) throw new Vec0LayoutError(table, `${misshapen} blocks of unexpected sizes`);
    const expected = (db.prepare(`SELECT count(*) AS n FROM ${table}_rowids`).get() as { n: number }).n;
    let live = 0;
    const blocks = db
      .prepare<[], BlockRow>(
        `SELECT c.chunk_id AS chunkId, c.size AS size, c.validity AS validity, c.rowids AS rowids, v.vectors AS vectors ${join}`,
      )
      .iterate();
    for (const block of blocks) live += visitBlock(block, dimensions, visit);
    if (live !== expected) throw new Vec0LayoutError(table, `${live} live vectors in its blocks, ${expected} rowids`);
  })();
}

function visitBlock(block: BlockRow, dimensions: number, visit: (id: number, vector: Float32Array) => void): number {
  const { size, validity } = block;
  const rowids = new DataView(block.rowids.buffer, block.rowids.byteOffset, block.rowids.byteLength);
  // A Float32Array view needs a 4-byte aligned offset; a megabyte buffer has one, but copy rather than assume.
  const vectors =
    block.vectors.byteOffset % 4 === 0
      ? new Float32Array(block.vectors.buffer, block.vectors.byteOffset, block.vectors.byteLength / 4)
      : new Float32Array(Uint8Array.from(block.vectors).buffer);
  let live = 0;
  for (let slot = 0; slot < size; slot++) {
    if (((validity[slot >> 3] as number) & (1 << (slot & 7))) === 0) continue;
    live++;
    visit(Number(rowids.getBigInt64(slot * 8, true)), vectors.subarray(slot * dimensions, (slot + 1) * dimensions));
  }
  return live;
}
