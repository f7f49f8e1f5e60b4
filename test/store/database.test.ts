import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/database.js";
import { SCHEMA_VERSION } from "../../src/store/migrations.js";

const directories: string[] = [];
const scratch = () => {
  const directory = mkdtempSync(join(tmpdir(), "sylk-db-"));
  directories.push(directory);
  return directory;
};

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("openDatabase", () => {
  it("creates new files with 16 KiB pages in WAL mode", () => {
    const db = openDatabase(join(scratch(), "vector.db"));
    expect(db.pragma("page_size", { simple: true })).toBe(16_384);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("opens a file made with another page size as it is", () => {
    const path = join(scratch(), "vector.db");
    const old = new Database(path);
    old.pragma("page_size = 4096");
    old.pragma("journal_mode = WAL");
    old.exec("CREATE TABLE kept (value TEXT); INSERT INTO kept VALUES ('still here');");
    old.close();

    const db = openDatabase(path);
    expect(db.pragma("page_size", { simple: true })).toBe(4096);
    expect(db.prepare("SELECT value FROM kept").pluck().get()).toBe("still here");
    db.close();
  });

  it("upgrades an index whose full-text snapshot is FlexSearch's export (schema 5): the export goes, the tables by term come", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    // Back to schema 5 as it shipped: the export's table, its noted size, no tables by term.
    current.exec(`
      DROP TABLE fts_documents; DROP TABLE fts_postings; DROP TABLE fts_removed; DROP TABLE file_checkpoints;
      DROP TABLE agent_instances; DROP TABLE quality_observations; DROP TABLE degradation_firings;
      DROP TABLE handoff_profiles; DROP TABLE task_lists; DROP TABLE files_changed;
      CREATE TABLE fts_snapshot (index_name TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (index_name, key)) WITHOUT ROWID;
      INSERT INTO fts_snapshot VALUES ('code', '1.map', '[]');
      INSERT INTO meta VALUES ('fts_snapshot_bytes:code', '2'), ('fts_deferred:code', '5'), ('kept', 'yes');
      PRAGMA user_version = 5;
    `);
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'fts_%' AND type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(["fts_documents", "fts_postings", "fts_removed"]);
    expect(db.prepare("SELECT key FROM meta ORDER BY key").pluck().all()).toEqual(["kept"]);
    db.close();
  });
});
