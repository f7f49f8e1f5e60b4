import { readdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { termsFromCounts } from "../../src/search/full-text-document.js";
import { FullTextIndex } from "../../src/search/full-text-index.js";
import { PersistentFullText } from "../../src/search/persistent-full-text.js";
import { SegmentedSnapshotBuild } from "../../src/search/segmented-snapshot-build.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { DamagedSnapshotError, FullTextRepository } from "../../src/store/full-text-repository.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let db: SqliteDatabase;
let repository: FullTextRepository;

beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/test.db`);
  repository = new FullTextRepository(db);
});
afterEach(() => {
  db.close();
  project.cleanup();
});

interface Row {
  id: number;
  terms: string;
  length: number;
}

/** Seeded documents of 3–40 words drawn from a vocabulary of `vocabulary` words, some repeated (frequency buckets). */
function randomTexts(count: number, vocabulary: number, seed: number): Array<Map<string, number>> {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    const counts = new Map<string, number>();
    const words = 3 + Math.floor(random() * 38);
    for (let index = 0; index < words; index++) {
      // Skewed: low word numbers are common, as in code.
      const word = `w${Math.floor(vocabulary * random() ** 3)}`;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
    return counts;
  });
}

/** Inserts a history entry with these term counts, as stored documents hold them, and returns its row. */
function insert(database: SqliteDatabase, counts: ReadonlyMap<string, number>): Row {
  const { distinct, count } = termsFromCounts(counts);
  const terms = distinct.join(" ");
  const termCount = count;
  const row = database
    .prepare(
      `INSERT INTO content_entries (id, content_hash, session_id, agent_id, agent_type, content_type, content, token_count,
         timestamp, turn_number, terms, term_count)
       VALUES (?, 'h', 's', 'a', 't', 'user_prompt', 'text', 1, 0, 1, ?, ?) RETURNING doc`,
    )
    .get(`${Math.random()}`, terms, termCount) as { doc: number };
  return { id: row.doc, terms, length: termCount };
}

/** A snapshot as its terms' postings (empty slots dropped) and its documents: what a load restores. */
function savedSnapshot(from: FullTextRepository) {
  const snapshot = from.loadSnapshot("history");
  if (!snapshot) throw new Error("no snapshot saved");
  const postings = new Map<string, number[][]>();
  for (const [term, slots] of from.loadPostings("history", snapshot)) {
    const lists = Array.from(slots, (ids) => (ids ? Array.from(ids) : []));
    while (lists.length > 0 && (lists.at(-1) as number[]).length === 0) lists.pop();
    postings.set(term, lists);
  }
  const { documents } = snapshot;
  return { postings, live: Array.from(documents.live), lengths: Array.from(documents.lengths), count: documents.count };
}

describe("SegmentedSnapshotBuild", () => {
  it("saves, from many spilled segments, the snapshot an index built in memory saves", () => {
    const rows = db.transaction(() => randomTexts(1_500, 3_000, 11).map((counts) => insert(db, counts)))();
    const removed = rows.filter((_, index) => index % 7 === 3).map((row) => row.id);
    for (const id of removed) db.prepare("DELETE FROM content_entries WHERE doc = ?").run(id);

    // In memory, as `PersistentFullText.save` does.
    const inMemory = new FullTextIndex();
    inMemory.addAll(rows);
    for (const id of removed) inMemory.remove(id);
    repository.saveSnapshot("history", inMemory.documents(), [...inMemory.liveTerms()]);
    const expected = savedSnapshot(repository);

    // Segmented, a few hundred postings a segment, into a second database.
    const otherDb = openDatabase(`${project.sylkHome}/other.db`);
    try {
      const other = new FullTextRepository(otherDb);
      const directory = `${project.sylkHome}/build`;
      const build = new SegmentedSnapshotBuild(directory, 2_000);
      build.add(rows.slice(0, 900));
      build.remove(removed.filter((id) => id <= (rows[899] as Row).id));
      build.add(rows.slice(900));
      build.remove(removed);
      expect(readdirSync(directory).length).toBeGreaterThan(20);
      // The other table holds exactly the documents left.
      const copy = otherDb.transaction(() => {
        for (const row of rows) {
          if (removed.includes(row.id)) continue;
          otherDb
            .prepare(
              `INSERT INTO content_entries (doc, id, content_hash, session_id, agent_id, agent_type, content_type, content, token_count,
               timestamp, turn_number, terms, term_count) VALUES (?, ?, 'h', 's', 'a', 't', 'user_prompt', 'text', 1, 0, 1, ?, ?)`,
            )
            .run(row.id, `${row.id}`, row.terms, row.length);
        }
      });
      copy();
      other.writeTransaction(() => build.finish(other, "history"));
      build.discard();
      expect(savedSnapshot(other)).toEqual(expected);
      expect(other.loadSnapshot("history")?.buckets).toBe(repository.loadSnapshot("history")?.buckets);
    } finally {
      otherDb.close();
    }
  });

  it("takes in, when it finishes, what the table gained and lost meanwhile", () => {
    const rows = db.transaction(() => randomTexts(300, 500, 5).map((counts) => insert(db, counts)))();
    const build = new SegmentedSnapshotBuild(`${project.sylkHome}/build`, 1_000);
    build.add(rows.slice(0, 200));
    // Another process: a row the build never saw, and one it saw removed.
    const late = insert(db, new Map([["late", 1]]));
    db.prepare("DELETE FROM content_entries WHERE doc = ?").run((rows[5] as Row).id);
    build.add(rows.slice(200));
    repository.writeTransaction(() => build.finish(repository, "history"));
    build.discard();

    const loaded = new PersistentFullText(repository, "history");
    expect(loaded.load()).toEqual({ added: 0, removed: 0 });
    expect(loaded.size).toBe(300);
    expect(loaded.search(["late"], 5).map((hit) => hit.id)).toEqual([late.id]);
    const fromTable = new FullTextIndex();
    fromTable.addAll(repository.documents("history"));
    for (const query of [["w0"], ["w1", "w7"], ["w3", "w40", "w2"]]) {
      expect(loaded.search(query, 10)).toEqual(fromTable.search(query, 10));
    }
  });
});

/** Texts over their own vocabulary (`n0`, `n1`, …), as new files bring new words. */
function newTexts(count: number, vocabulary: number, seed: number): Array<Map<string, number>> {
  return randomTexts(count, vocabulary, seed).map((counts) => new Map([...counts].map(([word, n]) => [`n${word.slice(1)}`, n])));
}

/** The snapshot an index built in memory of exactly these rows saves (in a database of its own). */
function snapshotBuiltInMemory(rows: readonly Row[]) {
  const otherDb = openDatabase(`${project.sylkHome}/expected-${Math.random()}.db`);
  try {
    const other = new FullTextRepository(otherDb);
    const inMemory = new FullTextIndex();
    inMemory.addAll(rows);
    other.saveSnapshot("history", inMemory.documents(), [...inMemory.liveTerms()]);
    return { ...savedSnapshot(other), buckets: other.loadSnapshot("history")?.buckets };
  } finally {
    otherDb.close();
  }
}

function postingsRows(): number {
  return db.prepare("SELECT count(*) FROM fts_postings WHERE index_name = 'history'").pluck().get() as number;
}

describe("SegmentedSnapshotBuild.mergeIntoSaved", () => {
  /** A saved snapshot of 1,200 rows, then a fifth of them removed (half noted, half not) and `added` new rows. */
  function savedThenChanged(added: Array<Map<string, number>>) {
    const rows = db.transaction(() => randomTexts(1_200, 2_500, 21).map((counts) => insert(db, counts)))();
    const saved = new FullTextIndex();
    saved.addAll(rows);
    repository.saveSnapshot("history", saved.documents(), [...saved.liveTerms()]);
    const removed = rows.filter((_, index) => index % 5 === 2).map((row) => row.id);
    for (const id of removed) db.prepare("DELETE FROM content_entries WHERE doc = ?").run(id);
    repository.addDeferredChanges(
      "history",
      removed.length,
      removed.filter((_, index) => index % 2 === 0),
    );
    const newRows = db.transaction(() => added.map((counts) => insert(db, counts)))();
    return [...rows.filter((row) => !removed.includes(row.id)), ...newRows];
  }

  it("saves the snapshot an index built in memory of the table saves, where the new terms need more buckets", () => {
    const table = savedThenChanged(newTexts(1_500, 12_000, 22));
    const before = repository.loadSnapshot("history")?.buckets as number;
    const expected = snapshotBuiltInMemory(table);
    expect(expected.buckets).toBeGreaterThan(before);

    expect(SegmentedSnapshotBuild.mergeIntoSaved(repository, "history")).toBe(true);
    const { buckets, ...merged } = { ...savedSnapshot(repository), buckets: repository.loadSnapshot("history")?.buckets };
    const { buckets: _, ...wanted } = expected;
    expect(merged).toEqual(wanted);
    expect(buckets).toBe(expected.buckets);
    // Every row is the new snapshot's: none of the saved one's is left over.
    expect(postingsRows()).toBe(repository.loadSnapshot("history")?.rows);
    expect(repository.deferredChanges("history")).toBe(0);
    expect(repository.removedSinceSnapshot("history")).toEqual([]);
    expect(readdirSync(project.sylkHome).filter((name) => name.startsWith("fts-build-"))).toEqual([]);
  });

  it("keeps the saved bucket count where the new terms need fewer, and loads as the table without reconciling", () => {
    const table = savedThenChanged(randomTexts(60, 2_500, 23));
    const before = repository.loadSnapshot("history")?.buckets;
    expect(SegmentedSnapshotBuild.mergeIntoSaved(repository, "history")).toBe(true);
    expect(repository.loadSnapshot("history")?.buckets).toBe(before);
    const { buckets: _, ...wanted } = snapshotBuiltInMemory(table);
    expect(savedSnapshot(repository)).toEqual(wanted);
    expect(postingsRows()).toBe(repository.loadSnapshot("history")?.rows);
    const loaded = new PersistentFullText(repository, "history");
    expect(loaded.load()).toEqual({ added: 0, removed: 0 });
    expect(loaded.size).toBe(table.length);
  });

  it("changes nothing where a saved row is damaged, and saves nothing where no snapshot was saved", () => {
    savedThenChanged(newTexts(200, 1_000, 24));
    const rowsBefore = db.prepare("SELECT bucket, data, checksum FROM fts_postings ORDER BY bucket").all() as Array<{ bucket: number }>;
    const damaged = rowsBefore[rowsBefore.length - 1] as { bucket: number };
    db.prepare("UPDATE fts_postings SET checksum = checksum + 1 WHERE bucket = ?").run(damaged.bucket);
    const deferred = repository.deferredChanges("history");
    expect(() => SegmentedSnapshotBuild.mergeIntoSaved(repository, "history")).toThrow(DamagedSnapshotError);
    expect(postingsRows()).toBe(rowsBefore.length);
    expect(repository.deferredChanges("history")).toBe(deferred);

    db.prepare("DELETE FROM fts_postings").run();
    db.prepare("DELETE FROM fts_documents").run();
    expect(SegmentedSnapshotBuild.mergeIntoSaved(repository, "history")).toBe(false);
    expect(repository.loadSnapshot("history")).toBeUndefined();
  });
});

describe("PersistentFullText's segmented build", () => {
  it("saves a first index's snapshot without loading the index, and searches it as one built in memory", async () => {
    const texts = randomTexts(400, 800, 3);
    const segmented = new PersistentFullText(repository, "history");
    expect(segmented.beginSegmentedBuild()).toBe(true);
    const rows = db.transaction(() => texts.map((counts) => insert(db, counts)))();
    segmented.apply([], rows.slice(0, 250));
    segmented.apply([(rows[3] as Row).id], []);
    db.prepare("DELETE FROM content_entries WHERE doc = ?").run((rows[3] as Row).id);
    segmented.apply([], rows.slice(250));
    await segmented.checkpoint();
    expect(segmented.isLoaded).toBe(false);
    expect(readdirSync(project.sylkHome).filter((name) => name.startsWith("fts-build-"))).toEqual([]);

    const inMemory = new FullTextIndex();
    inMemory.addAll(rows.filter((_, index) => index !== 3));
    for (const query of [["w0"], ["w2", "w9"], ["w5", "w30", "w1"]]) {
      expect(segmented.search(query, 10)).toEqual(inMemory.search(query, 10));
    }
    expect(segmented.load()).toEqual({ added: 0, removed: 0 });
  });

  it("folds many changes made without loading a large saved index into its snapshot on disk, leaving it unloaded", async () => {
    const rows = db.transaction(() => randomTexts(500, 900, 31).map((counts) => insert(db, counts)))();
    const first = new PersistentFullText(repository, "history");
    first.load();
    // Another process (`sylk index` after a branch switch): its changes are deferred, and past the limit merged on disk.
    const index = new PersistentFullText(repository, "history", { deferredChangesLimit: 100, mergeOnDiskAboveBytes: 0 });
    const gone = rows.slice(0, 80).map((row) => row.id);
    for (const id of gone) db.prepare("DELETE FROM content_entries WHERE doc = ?").run(id);
    const added = db.transaction(() => newTexts(120, 400, 32).map((counts) => insert(db, counts)))();
    index.apply(gone, added);
    await index.checkpoint();
    expect(index.isLoaded).toBe(false);
    expect(repository.deferredChanges("history")).toBe(0);

    const table = [...rows.slice(80), ...added];
    const inMemory = new FullTextIndex();
    inMemory.addAll(table);
    const reopened = new PersistentFullText(repository, "history");
    expect(reopened.load()).toEqual({ added: 0, removed: 0 });
    for (const query of [["w0"], ["n1", "w3"], ["n5", "n40", "w2"]]) {
      expect(reopened.search(query, 10)).toEqual(inMemory.search(query, 10));
    }
  });

  it("begins only while the index is not in memory, takes what the table held at its checkpoint, and a load during the build ends it", async () => {
    const index = new PersistentFullText(repository, "history");
    expect(index.beginSegmentedBuild()).toBe(true);
    const first = insert(db, new Map([["alpha", 1]]));
    index.apply([], [first]);
    // Something searches meanwhile: the index loads from the table, and changes go to it from then on.
    expect(index.search(["alpha"], 5).map((hit) => hit.id)).toEqual([first.id]);
    const second = insert(db, new Map([["beta", 1]]));
    index.apply([], [second]);
    expect(index.search(["beta"], 5).map((hit) => hit.id)).toEqual([second.id]);
    await index.checkpoint();
    expect(readdirSync(project.sylkHome).filter((name) => name.startsWith("fts-build-"))).toEqual([]);

    // A saved index not in memory (a first index resumed after an interrupt) builds again, and takes the documents
    // the table held before from it at the checkpoint.
    const resumed = new PersistentFullText(repository, "history");
    expect(resumed.beginSegmentedBuild()).toBe(true);
    const third = insert(db, new Map([["gamma", 1]]));
    resumed.apply([], [third]);
    await resumed.checkpoint();
    expect(resumed.isLoaded).toBe(false);
    expect(resumed.search(["alpha"], 5).map((hit) => hit.id)).toEqual([first.id]);
    expect(resumed.search(["beta"], 5).map((hit) => hit.id)).toEqual([second.id]);
    expect(resumed.search(["gamma"], 5).map((hit) => hit.id)).toEqual([third.id]);
    // In memory now: it does not begin.
    expect(resumed.beginSegmentedBuild()).toBe(false);
  });
});
