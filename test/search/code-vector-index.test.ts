import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { normalize } from "../../src/embedding/embedder.js";
import { CodeVectorIndex } from "../../src/search/code-vector-index.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { VectorStore } from "../../src/store/vector-store.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const DIMENSIONS = 64;
let project: TempProject;
let db: SqliteDatabase;
let store: VectorStore;
let index: CodeVectorIndex;

let seed = 42;
function randomUnit(): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  for (let i = 0; i < DIMENSIONS; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    vector[i] = seed / 2 ** 32 - 0.5;
  }
  return normalize(vector);
}

beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/v.db`);
  store = new VectorStore(db, "test-embedder", DIMENSIONS);
  const repository = new FullTextRepository(db);
  index = new CodeVectorIndex(store, () => repository.dataVersion());
});
afterEach(() => {
  db.close();
  project.cleanup();
});

describe("CodeVectorIndex", () => {
  it("ranks like sqlite-vec's exact k-NN once warm", () => {
    const vectors = Array.from({ length: 500 }, () => randomUnit());
    db.transaction(() => vectors.forEach((vector, i) => store.insertChunk(i + 1, vector)))();
    expect(index.warm()).toBeGreaterThanOrEqual(0);
    expect(index.size).toBe(500);
    for (let query = 0; query < 10; query++) {
      const probe = randomUnit();
      const exact = store.nearestChunks(probe, 20);
      const fast = index.nearest(probe, 20);
      const overlap = fast.filter((hit) => exact.slice(0, 20).some((other) => other.id === hit.id)).length;
      expect(overlap).toBeGreaterThanOrEqual(19);
      expect(fast[0]?.id).toBe(exact[0]?.id);
      expect(fast[0]?.similarity).toBeCloseTo(exact[0]?.similarity ?? 0, 1);
    }
  });

  it("applies its own writes and reconciles another connection's", () => {
    const first = randomUnit();
    store.insertChunk(1, first);
    index.warm();
    const second = randomUnit();
    store.insertChunk(2, second);
    index.apply([], [{ id: 2, vector: second }]);
    expect(index.nearest(second, 1)[0]?.id).toBe(2);
    store.deleteChunks([2]);
    index.apply([2], []);
    expect(index.nearest(second, 5).map((hit) => hit.id)).toEqual([1]);

    const other = openDatabase(`${project.sylkHome}/v.db`);
    try {
      const otherStore = new VectorStore(other, "test-embedder", DIMENSIONS);
      const third = randomUnit();
      otherStore.insertChunk(3, third);
      otherStore.deleteChunks([1]);
      expect(index.nearest(third, 5).map((hit) => hit.id)).toEqual([3]);
    } finally {
      other.close();
    }
  });

  it("ignores changes until warm, then reads them from the store", () => {
    const vector = randomUnit();
    store.insertChunk(7, vector);
    index.apply([], [{ id: 7, vector }]);
    expect(index.isWarm).toBe(false);
    expect(index.nearest(vector, 1)[0]?.id).toBe(7);
    expect(index.isWarm).toBe(true);
  });
});
