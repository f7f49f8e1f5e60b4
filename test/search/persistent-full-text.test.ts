import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DamagedFullTextError } from "../../src/search/damaged-full-text-error.js";
import { PersistentFullText } from "../../src/search/persistent-full-text.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let db: SqliteDatabase;
let repository: FullTextRepository;

/** Inserts a content entry row directly (the history collection's table) and returns its doc id. */
function insertEntry(database: SqliteDatabase, text: string): { id: number; terms: string; length: number } {
  const words = text.toLowerCase().split(" ");
  // Distinct, as documents store them (a repeat would count as a frequency bucket, see full-text-document.ts).
  const terms = [...new Set(words)].join(" ");
  const length = words.length;
  const row = database
    .prepare(
      `INSERT INTO content_entries (id, content_hash, session_id, agent_id, agent_type, content_type, content, token_count,
         timestamp, turn_number, terms, term_count)
       VALUES (?, 'h', 's', 'a', 't', 'user_prompt', ?, 1, 0, 1, ?, ?) RETURNING doc`,
    )
    .get(`${Math.random()}`, text, terms, length) as { doc: number };
  return { id: row.doc, terms, length };
}

beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/test.db`);
  repository = new FullTextRepository(db);
});
afterEach(() => {
  db.close();
  project.cleanup();
});

describe("PersistentFullText", () => {
  it("restores from its snapshot and reconciles what changed in the table meanwhile", async () => {
    const index = new PersistentFullText(repository, "history");
    const first = insertEntry(db, "alpha beta");
    const second = insertEntry(db, "gamma delta");
    index.apply([], [first, second]);
    await index.checkpoint();

    // Changed behind the snapshot's back (another process, or a crash before saving).
    db.prepare("DELETE FROM content_entries WHERE doc = ?").run(first.id);
    const third = insertEntry(db, "alpha epsilon");

    const restored = new PersistentFullText(repository, "history");
    expect(restored.load()).toEqual({ added: 1, removed: 1 });
    expect(restored.search(["alpha"], 10).map((hit) => hit.id)).toEqual([third.id]);
    expect(restored.search(["gamma"], 10).map((hit) => hit.id)).toEqual([second.id]);
  });

  it("notices another connection's commits through data_version", () => {
    const index = new PersistentFullText(repository, "history");
    index.load();
    const other = openDatabase(`${project.sylkHome}/test.db`);
    try {
      const added = insertEntry(other, "written elsewhere");
      expect(index.search(["elsewhere"], 10).map((hit) => hit.id)).toEqual([added.id]);
    } finally {
      other.close();
    }
  });

  it("defers changes to a large snapshot and folds them in once they add up", async () => {
    const seed = new PersistentFullText(repository, "history");
    seed.apply([], [insertEntry(db, "seed document")]);
    await seed.checkpoint();

    const limits = { eagerLoadSnapshotBytes: 0, deferredChangesLimit: 3 };
    const writer = new PersistentFullText(repository, "history", limits);
    writer.apply([], [insertEntry(db, "one more")]);
    expect(writer.isLoaded).toBe(false);
    expect(repository.deferredChanges("history")).toBe(1);
    await writer.checkpoint();
    expect(writer.isLoaded).toBe(false);

    writer.apply([], [insertEntry(db, "two more"), insertEntry(db, "three more")]);
    expect(repository.deferredChanges("history")).toBe(3);
    await writer.checkpoint();
    expect(writer.isLoaded).toBe(true);
    expect(repository.deferredChanges("history")).toBe(0);

    const reader = new PersistentFullText(repository, "history");
    expect(reader.load()).toEqual({ added: 0, removed: 0 });
    expect(reader.search(["more"], 10)).toHaveLength(3);
  });

  it("leaves a saved snapshot alone, however small, for a process that applies a few changes without loading it", async () => {
    const seed = new PersistentFullText(repository, "history");
    const kept = insertEntry(db, "kept document");
    const dropped = insertEntry(db, "dropped document");
    seed.apply([], [kept, dropped]);
    await seed.checkpoint();
    const savedBytes = repository.snapshotBytes("history");
    expect(savedBytes).toBeGreaterThan(0);

    // As `sylk index` after an edit: the index is never loaded, the snapshot never rewritten.
    const writer = new PersistentFullText(repository, "history");
    db.prepare("DELETE FROM content_entries WHERE doc = ?").run(dropped.id);
    const added = insertEntry(db, "added document");
    writer.apply([dropped.id], [added]);
    await writer.checkpoint();
    expect(writer.isLoaded).toBe(false);
    expect(repository.deferredChanges("history")).toBe(2);
    expect(repository.snapshotBytes("history")).toBe(savedBytes);

    const reader = new PersistentFullText(repository, "history");
    reader.load();
    expect(
      reader
        .search(["document"], 10)
        .map((hit) => hit.id)
        .sort(),
    ).toEqual([kept.id, added.id].sort());
  });

  it("searches alike before and after a checkpoint compacts what was added document by document", async () => {
    const index = new PersistentFullText(repository, "history");
    const entries = Array.from({ length: 60 }, (_, n) =>
      insertEntry(db, `shared topic${n % 7} ${n % 3 === 0 ? "parser parser" : "lexer"} entry${n}`),
    );
    index.apply([], entries);
    const queries = [["shared"], ["parser"], ["topic3", "lexer"], ["entry42", "shared"]];
    const before = queries.map((terms) => index.search(terms, 10));
    await index.checkpoint();
    expect(queries.map((terms) => index.search(terms, 10))).toEqual(before);

    // And keeps taking documents after it.
    const late = insertEntry(db, "shared parser latecomer");
    index.apply([], [late]);
    expect(index.search(["latecomer"], 10).map((hit) => hit.id)).toEqual([late.id]);
    expect(index.search(["shared"], 100)).toHaveLength(61);
    const loaded = new PersistentFullText(repository, "history");
    loaded.load();
    expect(queries.map((terms) => loaded.search(terms, 10))).toEqual(queries.map((terms) => index.search(terms, 10)));
  });

  it("ranks with BM25 using term frequency buckets", () => {
    const index = new PersistentFullText(repository, "history");
    const once = insertEntry(db, "cache other words here");
    const often = { ...insertEntry(db, "cache cache cache cache words"), terms: "cache cache#4 words" };
    db.prepare("UPDATE content_entries SET terms = ? WHERE doc = ?").run(often.terms, often.id);
    index.apply([], [once, often]);
    expect(index.search(["cache"], 10).map((hit) => hit.id)).toEqual([often.id, once.id]);
  });

  it("without a snapshot, builds the index from the stored terms and saves one for the next process", () => {
    const once = insertEntry(db, "cache other words here");
    const often = { ...insertEntry(db, "cache cache cache cache words"), terms: "cache cache#4 words" };
    db.prepare("UPDATE content_entries SET terms = ? WHERE doc = ?").run(often.terms, often.id);
    expect(repository.loadSnapshot("history")).toBeUndefined();

    const first = new PersistentFullText(repository, "history");
    expect(first.load()).toEqual({ added: 2, removed: 0 });
    expect(first.search(["cache"], 10).map((hit) => hit.id)).toEqual([often.id, once.id]);
    const documents = repository.loadSnapshot("history")?.documents;
    expect(documents?.count).toBe(2);
    expect([once.id, often.id].map((id) => documents?.live[id])).toEqual([1, 1]);

    const next = new PersistentFullText(repository, "history");
    expect(next.load()).toEqual({ added: 0, removed: 0 });
    expect(next.search(["cache"], 10)).toEqual(first.search(["cache"], 10));
  });

  it("searches without loading: reads only the query's terms, and still sees what changed since the snapshot", async () => {
    const saved = new PersistentFullText(repository, "history");
    const documents = ["alpha beta", "beta gamma", "gamma delta", "alpha alpha gamma"].map((text) => insertEntry(db, text));
    saved.apply([], documents);
    await saved.checkpoint();
    // After the save: one document removed, one added (as `sylk index` leaves them, deferred).
    db.prepare("DELETE FROM content_entries WHERE doc = ?").run(documents[1]?.id);
    insertEntry(db, "beta epsilon");

    const loaded = new PersistentFullText(repository, "history");
    loaded.load();
    for (const query of [["beta"], ["alpha", "gamma"], ["epsilon", "delta", "missing"], ["missing"]]) {
      const once = new PersistentFullText(repository, "history", { searchWithoutLoading: true });
      expect(once.searchWithIdealScore(query, 10)).toEqual(loaded.searchWithIdealScore(query, 10));
      expect(once.isLoaded).toBe(false);
    }
  });

  it("learns of removals deferred by another process from their note, without listing the table's ids", async () => {
    const saved = new PersistentFullText(repository, "history");
    const documents = ["alpha beta", "beta gamma", "gamma delta"].map((text) => insertEntry(db, text));
    saved.apply([], documents);
    await saved.checkpoint();
    // A refresh that leaves the (large) snapshot alone: the row goes, the change is noted.
    const refresh = new PersistentFullText(repository, "history", { eagerLoadSnapshotBytes: 0 });
    db.prepare("DELETE FROM content_entries WHERE doc = ?").run(documents[0]?.id);
    const added = insertEntry(db, "alpha epsilon");
    refresh.apply([documents[0]?.id as number], [added]);
    expect(refresh.isLoaded).toBe(false);
    expect(repository.removedSinceSnapshot("history")).toEqual([documents[0]?.id]);

    const listIds = vi.spyOn(repository, "ids");
    const once = new PersistentFullText(repository, "history", { searchWithoutLoading: true });
    const loaded = new PersistentFullText(repository, "history");
    expect(loaded.load()).toEqual({ added: 1, removed: 1 });
    for (const query of [["alpha"], ["beta", "gamma"]])
      expect(once.searchWithIdealScore(query, 10)).toEqual(loaded.searchWithIdealScore(query, 10));
    expect(listIds).not.toHaveBeenCalled();
    listIds.mockRestore();

    // Saving folds the note into the snapshot.
    loaded.save();
    expect(repository.removedSinceSnapshot("history")).toEqual([]);
  });
});

describe("PersistentFullText with a damaged snapshot", () => {
  /** A saved snapshot of three entries, and the entries. */
  async function saved() {
    const documents = ["alpha beta", "beta gamma", "gamma delta"].map((text) => insertEntry(db, text));
    const index = new PersistentFullText(repository, "history");
    index.apply([], documents);
    await index.checkpoint();
    return documents;
  }
  /** Flips a byte of the history snapshot's first blob in `table`'s `column`. */
  const flipByte = (table: string, column: string, at: number) => {
    const blob = db.prepare(`SELECT ${column} FROM ${table} WHERE index_name = 'history' LIMIT 1`).pluck().get() as Buffer;
    const bytes = Uint8Array.from(blob);
    bytes[at] = (bytes[at] as number) ^ 0x5a;
    db.prepare(`UPDATE ${table} SET ${column} = ? WHERE index_name = 'history' AND ${column} = ?`).run(bytes, blob);
  };
  const flipFirstPostingsByte = () => flipByte("fts_postings", "data", 0);
  const flipDocumentsByte = () => flipByte("fts_documents", "documents", 4);
  const ids = (hits: ReadonlyArray<{ id: number }>) => hits.map((hit) => hit.id).sort((a, b) => a - b);

  it("loads by rebuilding from the stored terms, saves a sound snapshot, and reports the repair once", async () => {
    const documents = await saved();
    flipFirstPostingsByte();

    const index = new PersistentFullText(repository, "history");
    expect(index.load()).toEqual({ added: 3, removed: 0 });
    expect(ids(index.search(["beta"], 10))).toEqual([documents[0]?.id, documents[1]?.id]);
    expect(index.takeRepairs()).toEqual([{ part: "postings bucket 0", problem: "its checksum does not match" }]);
    expect(index.takeRepairs()).toEqual([]);
    expect(repository.verifySnapshot("history")).toBeUndefined();
  });

  it("fails a search without loading with an error that names the damage, notes it, and fails later ones without reading again", async () => {
    await saved();
    flipDocumentsByte();

    const once = new PersistentFullText(repository, "history", { searchWithoutLoading: true });
    const message = "the history full-text snapshot is damaged (documents: its checksum does not match); run `sylk index` to rebuild it";
    expect(() => once.search(["beta"], 10)).toThrow(DamagedFullTextError);
    expect(() => once.search(["beta"], 10)).toThrow(message);
    expect(once.isLoaded).toBe(false);
    expect(once.damageNoted()).toEqual({ part: "documents", problem: "its checksum does not match" });

    const read = vi.spyOn(repository, "loadSnapshot");
    expect(() => once.searchWithIdealScore(["gamma"], 10)).toThrow(message);
    expect(read).not.toHaveBeenCalled();
    read.mockRestore();
  });

  it("is rebuilt by the next checkpoint once noted, though the changes since were left for a later load", async () => {
    const documents = await saved();
    flipFirstPostingsByte();
    expect(() => new PersistentFullText(repository, "history", { searchWithoutLoading: true }).search(["beta"], 10)).toThrow(
      DamagedFullTextError,
    );

    // A refresh of a few files leaves a large snapshot alone: only the checkpoint may read it.
    const refresh = new PersistentFullText(repository, "history", { eagerLoadSnapshotBytes: 0 });
    const added = insertEntry(db, "beta epsilon");
    refresh.apply([], [added]);
    expect(refresh.isLoaded).toBe(false);
    await refresh.checkpoint();
    expect(refresh.takeRepairs()).toEqual([{ part: "postings bucket 0", problem: "its checksum does not match" }]);
    expect(refresh.damageNoted()).toBeUndefined();
    expect(repository.verifySnapshot("history")).toBeUndefined();

    const once = new PersistentFullText(repository, "history", { searchWithoutLoading: true });
    expect(ids(once.search(["beta"], 10))).toEqual([documents[0]?.id, documents[1]?.id, added.id]);
  });

  it("is found by reading it whole without loading the index, and noted for the next checkpoint", async () => {
    await saved();
    flipDocumentsByte();
    const index = new PersistentFullText(repository, "history");
    expect(index.checkSnapshot()).toEqual({ part: "documents", problem: "its checksum does not match" });
    expect(index.isLoaded).toBe(false);
    expect(index.damageNoted()).toEqual({ part: "documents", problem: "its checksum does not match" });
  });
});
