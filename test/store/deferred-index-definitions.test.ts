import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { DEFERRED_INDEXES, dropDeferredIndexes, ensureDeferredIndexes } from "../../src/store/deferred-indexes.js";

let db: SqliteDatabase | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

/** The definition SQLite keeps for an index, spaced and cased as one, without `IF NOT EXISTS`. */
function definitionOf(database: SqliteDatabase, name: string): string | undefined {
  const sql = database.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(name);
  return sql
    ?.replace(/\s+/g, " ")
    .replace(/ IF NOT EXISTS/i, "")
    .trim()
    .toLowerCase();
}

describe("the deferred indexes' definitions", () => {
  // A first index drops these and builds them again from DEFERRED_INDEXES: a migration that changed one
  // (a column, a WHERE, UNIQUE) without the list would leave every large project with the old definition.
  it("are the migrations' own, so that building them again makes what a migrated database has", () => {
    db = openDatabase(":memory:");
    const migrated = new Map(DEFERRED_INDEXES.map(({ name }) => [name, definitionOf(db as SqliteDatabase, name)]));
    for (const [name, definition] of migrated) expect(definition, name).toBeDefined();

    dropDeferredIndexes(db);
    for (const { name } of DEFERRED_INDEXES) expect(definitionOf(db, name), name).toBeUndefined();
    expect(ensureDeferredIndexes(db).sort()).toEqual(DEFERRED_INDEXES.map(({ name }) => name).sort());
    for (const [name, definition] of migrated) expect(definitionOf(db, name), name).toBe(definition);
  });

  it("cover every secondary index of the tables a first index fills except the unique ones their inserts need", () => {
    db = openDatabase(":memory:");
    const secondary = db
      .prepare<[], string>(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('files', 'chunks', 'symbols') AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'",
      )
      .pluck()
      .all()
      .sort();
    expect(secondary).toEqual(DEFERRED_INDEXES.map(({ name }) => name).sort());
  });
});
