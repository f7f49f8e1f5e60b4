import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { Vec0LayoutError, visitVec0Blocks } from "../../src/store/vec0-blocks.js";
import { VectorStore } from "../../src/store/vector-store.js";
import { mulberry32, randomUnitVector } from "../helpers/random-vectors.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const DIMENSIONS = 32;
let project: TempProject;
let db: SqliteDatabase;
let store: VectorStore;

const random = mulberry32(7);
const randomUnit = () => randomUnitVector(DIMENSIONS, random);

function byBlocks(table = "chunk_vectors", dimensions = DIMENSIONS): Map<number, number[]> {
  const seen = new Map<number, number[]>();
  visitVec0Blocks(db, table, dimensions, (id, vector) => seen.set(id, [...vector]));
  return seen;
}

function byRows(): Map<number, number[]> {
  return new Map([...store.iterateChunkVectors()].map(({ id, vector }) => [id, [...vector]]));
}

beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/v.db`);
  store = new VectorStore(db, "test-embedder", DIMENSIONS);
});
afterEach(() => {
  db.close();
  project.cleanup();
});

describe("visitVec0Blocks", () => {
  it("visits exactly the vectors a row-by-row read returns, across blocks, after deletes and replacements", () => {
    // Three of sqlite-vec's 1,024-vector blocks, the last partly filled.
    db.transaction(() => {
      for (let id = 1; id <= 2_500; id++) store.insertChunk(id * 3, randomUnit());
    })();
    db.transaction(() => {
      store.deleteChunks([3, 3_000, 7_500]);
      for (const id of [6, 4_500]) store.upsertChunk(id, randomUnit());
      for (let id = 8_000; id < 8_010; id++) store.insertChunk(id, randomUnit());
    })();
    const rows = byRows();
    expect(rows.size).toBe(2_500 - 3 + 10);
    const blocks = byBlocks();
    expect([...blocks.keys()].sort((a, b) => a - b)).toEqual([...rows.keys()].sort((a, b) => a - b));
    for (const [id, vector] of rows) expect(blocks.get(id)).toEqual(vector);
  });

  it("visits nothing in an empty table", () => {
    expect(byBlocks().size).toBe(0);
  });

  it("refuses, before visiting anything, storage it does not recognise", () => {
    store.insertChunk(1, randomUnit());
    expect(() => byBlocks("no_such_vectors")).toThrow(Vec0LayoutError);
    // Blocks of another width than the caller expects.
    expect(() => byBlocks("chunk_vectors", DIMENSIONS * 2)).toThrow(/blocks of unexpected sizes/);
  });
});
