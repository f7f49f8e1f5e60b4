import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/database.js";

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
});
