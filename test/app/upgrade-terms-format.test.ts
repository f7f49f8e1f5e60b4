import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { upgradeTermsFormat } from "../../src/app/upgrade-terms-format.js";
import { getMeta, openDatabase, setMeta, type SqliteDatabase } from "../../src/store/database.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let db: SqliteDatabase;
beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/test.db`);
});
afterEach(() => {
  db.close();
  project.cleanup();
});

describe("upgradeTermsFormat", () => {
  it("drops the code index with its full-text snapshot and what was noted about it, damage included", () => {
    db.prepare("INSERT INTO files (path, size, mtime_ms, status, indexed_at) VALUES ('a.ts', 1, 1, 'indexed', 0)").run();
    const repository = new FullTextRepository(db);
    repository.saveSnapshot("code", { live: Uint8Array.from([0, 1]), lengths: Float32Array.from([0, 2]), count: 1, totalLength: 2 }, [
      ["alpha", [[1]]],
    ]);
    repository.recordDamage("code", { part: "postings bucket 0", problem: "its checksum does not match" });
    setMeta(db, "terms_format", "0");

    expect(upgradeTermsFormat(db)).toEqual({ upgraded: true });
    expect(db.prepare("SELECT count(*) FROM files").pluck().get()).toBe(0);
    expect(repository.loadSnapshot("code")).toBeUndefined();
    expect(repository.recordedDamage("code")).toBeUndefined();
    expect(getMeta(db, "fts_snapshot_bytes:code")).toBeUndefined();
  });
});
