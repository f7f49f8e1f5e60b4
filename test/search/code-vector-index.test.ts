import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { normalize } from "../../src/embedding/embedder.js";
import { CodeVectorIndex } from "../../src/search/code-vector-index.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { Vec0LayoutError } from "../../src/store/vec0-blocks.js";
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
    db.transaction(() =>
      vectors.forEach((vector, i) => {
        store.insertChunk(i + 1, vector);
      }),
    )();
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

  it("loads row by row, and answers the same, where sqlite-vec's storage is not laid out as it expects", () => {
    db.transaction(() => {
      for (let id = 1; id <= 300; id++) store.insertChunk(id, randomUnit());
    })();
    class UnrecognisedStorage extends VectorStore {
      override visitChunkVectorBlocks(): void {
        throw new Vec0LayoutError("chunk_vectors", "a layout of another version");
      }
    }
    const repository = new FullTextRepository(db);
    const byRows = new CodeVectorIndex(new UnrecognisedStorage(db, "test-embedder", DIMENSIONS), () => repository.dataVersion());
    byRows.warm();
    index.warm();
    expect([byRows.isWarm, byRows.size]).toEqual([true, 300]);
    const probe = randomUnit();
    expect(byRows.nearest(probe, 10)).toEqual(index.nearest(probe, 10));
  });

  it("gives the similarity of chunks asked for by id as its k-NN and the store's do", () => {
    const vectors = Array.from({ length: 300 }, () => randomUnit());
    db.transaction(() =>
      vectors.forEach((vector, i) => {
        store.insertChunk(i + 1, vector);
      }),
    )();
    index.warm();
    const probe = randomUnit();
    const nearest = index.nearest(probe, 300);
    const ids = [250, 3, 77, 1_000]; // 1,000 has no vector
    const expected = ids.flatMap((id) => nearest.filter((hit) => hit.id === id));
    expect(expected).toHaveLength(3);
    expect(index.similarities(probe, ids)).toEqual(expected);
    const exact = store.nearestChunks(probe, 300);
    const fromStore = store.chunkSimilarities(probe, ids);
    expect(fromStore.map((hit) => hit.id)).toEqual([250, 3, 77]);
    fromStore.forEach((hit) => {
      expect(hit.similarity).toBeCloseTo(exact.find((other) => other.id === hit.id)?.similarity ?? Number.NaN, 5);
    });
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

describe("CodeVectorIndex on a scan thread", () => {
  let threaded: CodeVectorIndex;
  beforeEach(() => {
    const repository = new FullTextRepository(db);
    threaded = new CodeVectorIndex(store, () => repository.dataVersion(), true);
  });
  afterEach(async () => {
    await threaded.close();
  });

  it("answers exactly as the scan on this thread, through growth, deletions and slot reuse", async () => {
    const vectors = Array.from({ length: 300 }, () => randomUnit());
    db.transaction(() =>
      vectors.forEach((vector, i) => {
        store.insertChunk(i + 1, vector);
      }),
    )();
    threaded.warm();
    const compare = async () => {
      for (let query = 0; query < 5; query++) {
        const probe = randomUnit();
        expect(await threaded.nearestAsync(probe, 25)).toEqual(threaded.nearest(probe, 25));
      }
    };
    await compare();
    expect((threaded as unknown as { thread?: { isUsable: boolean } }).thread?.isUsable).toBe(true);
    // Past the first capacity (1,024 slots): memory grows after the thread started.
    const more = Array.from({ length: 1500 }, () => randomUnit());
    db.transaction(() =>
      more.forEach((vector, i) => {
        store.insertChunk(1000 + i, vector);
      }),
    )();
    threaded.apply(
      [],
      more.map((vector, i) => ({ id: 1000 + i, vector })),
    );
    await compare();
    // Deleted chunks leave zeroed slots, which must never be returned; new ones reuse them.
    const removed = Array.from({ length: 400 }, (_, i) => i + 1);
    store.deleteChunks(removed);
    threaded.apply(removed, []);
    await compare();
    const probe = randomUnit();
    const hits = await threaded.nearestAsync(probe, 2000);
    expect(hits.some((hit) => removed.includes(hit.id))).toBe(false);
    expect(hits).toHaveLength(300 - 300 + 1500);
  });

  it("answers the same when this thread helps with the scan, at once or after other work", async () => {
    // Past SCAN_BLOCK_SLOTS, so the scan has several blocks for the two threads to share.
    const vectors = Array.from({ length: 9_000 }, () => randomUnit());
    db.transaction(() =>
      vectors.forEach((vector, i) => {
        store.insertChunk(i + 1, vector);
      }),
    )();
    threaded.warm();
    for (let query = 0; query < 8; query++) {
      const probe = randomUnit();
      const expected = threaded.nearest(probe, 40);
      const scanning = threaded.nearestAsync(probe, 40);
      if (query % 2 === 1) {
        const until = performance.now() + query / 4; // let the thread take a head start of up to 1.75 ms
        while (performance.now() < until);
      }
      threaded.helpScan();
      expect(await scanning).toEqual(expected);
    }
    threaded.helpScan(); // nothing in flight: a no-op
  });

  it("holds back changes made while a scan runs, and applies them after", async () => {
    const first = randomUnit();
    store.insertChunk(1, first);
    threaded.warm();
    const second = randomUnit();
    store.insertChunk(2, second);
    const scanning = threaded.nearestAsync(second, 5);
    threaded.apply([], [{ id: 2, vector: second }]); // arrives mid-scan
    expect((await scanning).map((hit) => hit.id)).toEqual([1]);
    expect((await threaded.nearestAsync(second, 1))[0]?.id).toBe(2);
  });

  it("scans on this thread when the scan thread dies mid-scan, or after close", async () => {
    const vectors = Array.from({ length: 50 }, () => randomUnit());
    db.transaction(() =>
      vectors.forEach((vector, i) => {
        store.insertChunk(i + 1, vector);
      }),
    )();
    threaded.warm();
    const probe = randomUnit();
    const expected = threaded.nearest(probe, 10);
    const scanning = threaded.nearestAsync(probe, 10);
    // Kill the thread behind the index's back, as a crash would.
    const worker = (threaded as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread.worker;
    await worker.terminate();
    threaded.helpScan(); // the blocks the dead thread left are scanned here; the answer still comes from this thread
    expect(await scanning).toEqual(expected);
    expect(await threaded.nearestAsync(probe, 10)).toEqual(expected);
    await threaded.close();
    expect(await threaded.nearestAsync(probe, 10)).toEqual(expected);
  });
});

describe("CodeVectorIndex that cannot be built", () => {
  it("stays cold, so searches keep using the store, when the dimensions do not fit the kernel", () => {
    const oddStore = new VectorStore(db, "odd-embedder", 24);
    const repository = new FullTextRepository(db);
    const cold = new CodeVectorIndex(oddStore, () => repository.dataVersion(), true);
    const vector = normalize(Float32Array.from({ length: 24 }, (_, i) => i + 1));
    oddStore.insertChunk(1, vector);
    expect(() => cold.warm()).not.toThrow();
    expect(cold.isWarm).toBe(false);
    expect(oddStore.nearestChunks(vector, 1)[0]?.id).toBe(1);
    expect(() => cold.nearest(vector, 1)).toThrow(/unavailable: .*multiple of 16/);
  });
});

describe("CodeVectorIndex loaded on another thread", () => {
  it("searches the store until loaded, then answers as a load on this thread does, the scan on its thread too", async () => {
    // Past sqlite-vec's blocks of 1,024, and past the scanner's first tile.
    const vectors = Array.from({ length: 2_500 }, () => randomUnit());
    db.transaction(() =>
      vectors.forEach((vector, i) => {
        store.insertChunk(i + 1, vector);
      }),
    )();
    const repository = new FullTextRepository(db);
    const background = new CodeVectorIndex(store, () => repository.dataVersion(), true);
    try {
      const loading = background.warmInBackground();
      expect(background.isWarm).toBe(false);
      expect(background.warm()).toBe(0); // a load on this thread would race the other's: it waits for that one
      await loading;
      expect(background.isWarm).toBe(true);
      expect(background.size).toBe(2_500);
      index.warm();
      for (let query = 0; query < 5; query++) {
        const probe = randomUnit();
        expect(background.nearest(probe, 30)).toEqual(index.nearest(probe, 30));
        expect(await background.nearestAsync(probe, 30)).toEqual(index.nearest(probe, 30));
      }
    } finally {
      await background.close();
    }
  });

  it("keeps this process's changes committed while it loads, and another connection's", async () => {
    for (let id = 1; id <= 1_500; id++) store.insertChunk(id, randomUnit());
    const repository = new FullTextRepository(db);
    const background = new CodeVectorIndex(store, () => repository.dataVersion());
    const loading = background.warmInBackground();
    const added = randomUnit();
    store.insertChunk(5_000, added);
    store.deleteChunks([1, 2]);
    background.apply([1, 2], [{ id: 5_000, vector: added }]);
    await loading;
    expect(background.isWarm).toBe(true);
    expect(background.nearest(added, 1)[0]?.id).toBe(5_000);
    const other = openDatabase(`${project.sylkHome}/v.db`);
    try {
      new VectorStore(other, "test-embedder", DIMENSIONS).deleteChunks([3]);
    } finally {
      other.close();
    }
    const everything = background.nearest(randomUnit(), 5_000).map((hit) => hit.id);
    expect(everything).toHaveLength(1_500 - 3 + 1);
    expect(everything.filter((id) => id <= 3)).toEqual([]);
  });

  it("loads again on its thread when another process added many vectors, the store answering meanwhile", async () => {
    for (let id = 1; id <= 200; id++) store.insertChunk(id, randomUnit());
    const repository = new FullTextRepository(db);
    const background = new CodeVectorIndex(store, () => repository.dataVersion());
    await background.warmInBackground();
    const many = Array.from({ length: 1_200 }, () => randomUnit());
    const other = openDatabase(`${project.sylkHome}/v.db`);
    try {
      const otherStore = new VectorStore(other, "test-embedder", DIMENSIONS);
      // A few: reconciled in place.
      const few = randomUnit();
      otherStore.insertChunk(300, few);
      expect(background.nearest(few, 1)[0]?.id).toBe(300);
      expect(background.isWarm).toBe(true);
      // Many: the copy is dropped and loaded again on the thread; the store answers this search.
      other.transaction(() =>
        many.forEach((vector, i) => {
          otherStore.insertChunk(1_000 + i, vector);
        }),
      )();
    } finally {
      other.close();
    }
    const probe = randomUnit();
    expect(background.nearest(probe, 10)).toEqual(store.nearestChunks(probe, 10));
    expect(background.isWarm).toBe(false);
    await background.warmInBackground();
    expect(background.isWarm).toBe(true);
    expect(background.size).toBe(1_401);
    expect(background.nearest(many[5] as Float32Array, 1)[0]?.id).toBe(1_005);
  });
});
