import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { FileRepository } from "../../src/store/file-repository.js";
import { VectorStore } from "../../src/store/vector-store.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const DIMENSIONS = 8;
let project: TempProject;
let db: SqliteDatabase;
let store: VectorStore;
let files: FileRepository;

const unit = (index: number) => {
  const vector = new Float32Array(DIMENSIONS);
  vector[index % DIMENSIONS] = 1;
  return vector;
};

/** A file with `count` chunks; returns their ids. */
function fileWithChunks(path: string, count: number): number[] {
  const fileId = files.upsertFile({
    path,
    size: 1,
    mtimeMs: 1,
    contentHash: path,
    language: "text",
    status: "indexed",
    reason: null,
    lineCount: count,
    description: null,
    priority: 0,
  });
  const chunks = Array.from({ length: count }, (_, ordinal) => ({
    ordinal,
    startLine: ordinal + 1,
    endLine: ordinal + 1,
    kind: "lines",
    symbols: [],
    content: `line ${ordinal}`,
    tokenCount: 2,
    terms: "line",
    termCount: 1,
  }));
  return files.replaceChunks(fileId, chunks);
}

beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/v.db`);
  store = new VectorStore(db, "test-embedder", DIMENSIONS);
  files = new FileRepository(db);
});
afterEach(() => {
  db.close();
  project.cleanup();
});

describe("VectorStore counts", () => {
  it("counts what the vec0 table holds through inserts, replacements and deletes", () => {
    // More than one of sqlite-vec's chunks of 1,024 vectors, so deletes land in several.
    const ids = fileWithChunks("a.txt", 2_500);
    db.transaction(() => {
      for (const id of ids) store.insertChunk(id, unit(id));
    })();
    const vec0Count = () => (db.prepare("SELECT count(*) AS n FROM chunk_vectors").get() as { n: number }).n;
    expect(store.count("chunk_vectors")).toBe(2_500);

    store.upsertChunk(ids[10] as number, unit(3));
    store.deleteChunks(ids.filter((_, index) => index % 7 === 0));
    store.deleteChunks([ids[1] as number]);
    expect(store.count("chunk_vectors")).toBe(vec0Count());
    expect(store.count("chunk_vectors")).toBe(2_500 - Math.ceil(2_500 / 7) - 1);

    store.upsertEntry(1, unit(1), { sessionId: "s", contentType: "message" });
    store.upsertEntry(1, unit(2), { sessionId: "s", contentType: "message" });
    store.upsertEntry(2, unit(2), { sessionId: "s", contentType: "message" });
    store.deleteEntries([2]);
    expect(store.count("entry_vectors")).toBe(1);
  });

  it("finds the chunks left without a vector, and none once each has one", () => {
    const ids = fileWithChunks("a.txt", 30);
    db.transaction(() => {
      for (const id of ids.slice(0, 20)) store.insertChunk(id, unit(id));
    })();
    expect(store.countMissing("chunk_vectors")).toBe(10);
    expect(store.chunksWithoutVectors(100)).toEqual(ids.slice(20));

    for (const id of ids.slice(20)) store.insertChunk(id, unit(id));
    expect(store.countMissing("chunk_vectors")).toBe(0);

    store.deleteChunks([ids[5] as number]);
    expect(store.countMissing("chunk_vectors")).toBe(1);
  });
});

describe("VectorStore.nearestChunks at a tie", () => {
  it("keeps every chunk as near as the k-th, however many, and drops chunks of no similarity at the cut", () => {
    const query = unit(0);
    const between = Float32Array.from(unit(0), (value, index) => (index === 1 ? Math.SQRT1_2 : value * Math.SQRT1_2));
    db.transaction(() => {
      for (let id = 1; id <= 3; id++) store.insertChunk(id, query);
      // More tied chunks than the first query's margin and its first doubling: asked again until the tie ends.
      for (let id = 101; id <= 140; id++) store.insertChunk(id, between);
      for (let id = 201; id <= 220; id++) store.insertChunk(id, unit(2 + (id % 6)));
    })();
    const nearest = store.nearestChunks(query, 5);
    const ids = (hits: ReadonlyArray<{ id: number }>) => hits.map((hit) => hit.id).sort((a, b) => a - b);
    expect(ids(nearest.slice(0, 3))).toEqual([1, 2, 3]);
    expect(ids(nearest.slice(3))).toEqual(Array.from({ length: 40 }, (_, index) => 101 + index));
    expect(new Set(nearest.slice(3).map((hit) => hit.similarity)).size).toBe(1);
    // The k-th tied with the first three: all three, no more.
    expect(ids(store.nearestChunks(query, 2))).toEqual([1, 2, 3]);
    // A cut among the orthogonal chunks (similarity 0) leaves them all out rather than keep twenty ties.
    expect(store.nearestChunks(query, 50)).toHaveLength(43);
  });
});
