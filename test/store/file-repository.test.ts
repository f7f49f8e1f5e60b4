import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { type FileRecord, FileRepository } from "../../src/store/file-repository.js";

const opened: Array<{ db: SqliteDatabase; directory: string }> = [];
afterEach(() => {
  for (const { db, directory } of opened.splice(0)) {
    db.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

function repository(): { db: SqliteDatabase; files: FileRepository } {
  const directory = mkdtempSync(join(tmpdir(), "sylk-file-repository-"));
  const db = openDatabase(join(directory, "vector.db"));
  opened.push({ db, directory });
  return { db, files: new FileRepository(db) };
}

function record(path: string): FileRecord {
  return {
    path,
    size: 10,
    mtimeMs: 1,
    contentHash: "hash",
    language: "typescript",
    status: "indexed",
    reason: null,
    lineCount: 1,
    description: null,
    priority: 0,
  };
}

describe("FileRepository.insertNewFile", () => {
  it("returns the new row's id, and undefined for a path that has a row, whatever another statement inserted last", () => {
    const { db, files } = repository();
    const first = files.insertNewFile(record("src/a.ts"));
    const second = files.insertNewFile(record("src/b.ts"));
    const idOf = (path: string) => db.prepare<[string], { id: number }>("SELECT id FROM files WHERE path = ?").get(path)?.id;
    expect(first).toBe(idOf("src/a.ts"));
    expect(second).toBe(idOf("src/b.ts"));
    expect(second).not.toBe(first);

    // A chunk inserted since: the connection's last row id is the chunk's, which a conflicting insert must not return.
    files.insertChunks(second as number, [
      { ordinal: 0, startLine: 1, endLine: 1, kind: "code", symbols: [], content: "x", tokenCount: 1, terms: "x", termCount: 1 },
    ]);
    expect(files.insertNewFile(record("src/a.ts"))).toBeUndefined();
    expect(files.insertNewFile(record("src/b.ts"))).toBeUndefined();
    expect(db.prepare("SELECT count(*) AS n FROM files").get()).toEqual({ n: 2 });
  });
});
