import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { DamagedSnapshotError, FullTextRepository, type StoredSnapshot } from "../../src/store/full-text-repository.js";
import { bucketOf } from "../../src/store/postings-codec.js";
import { postingsChecksum } from "../../src/store/snapshot-checksum.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { errorMessage } from "../../src/errors.js";

let project: TempProject;
let db: SqliteDatabase;
let repository: FullTextRepository;

/** 200 terms over ids 1–4 (four buckets), as a save writes them. */
const TERMS = Array.from({ length: 200 }, (_, index) => [`term${index}`, [[1 + (index % 4)], index % 3 === 0 ? [2] : undefined]] as const);

beforeEach(() => {
  project = createTempProject();
  db = openDatabase(`${project.sylkHome}/test.db`);
  repository = new FullTextRepository(db);
  const live = Uint8Array.from([0, 1, 1, 1, 1]);
  const lengths = Float32Array.from([0, 50, 60, 70, 80]);
  repository.saveSnapshot("code", { live, lengths, count: 4, totalLength: 260 }, TERMS);
});
afterEach(() => {
  db.close();
  project.cleanup();
});

const postingsRow = (bucket: number) =>
  db.prepare("SELECT data FROM fts_postings WHERE index_name = 'code' AND bucket = ?").pluck().get(bucket) as Buffer;
const setPostingsRow = (bucket: number, data: Uint8Array) =>
  db.prepare("UPDATE fts_postings SET data = ? WHERE index_name = 'code' AND bucket = ?").run(data, bucket);
const documentsBlob = () => db.prepare("SELECT documents FROM fts_documents WHERE index_name = 'code'").pluck().get() as Buffer;

/** The damage a full read of the snapshot reports, as a load would meet it. */
function damageOnLoad(): unknown {
  try {
    const snapshot = repository.loadSnapshot("code") as StoredSnapshot;
    repository.loadPostings("code", snapshot);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("a full-text snapshot's checksums", () => {
  it("read back what was saved, all of it or a term's rows only", () => {
    const snapshot = repository.loadSnapshot("code") as StoredSnapshot;
    expect(snapshot).toMatchObject({ maxId: 4, buckets: 4, rows: 4 });
    expect(repository.loadPostings("code", snapshot)).toHaveLength(200);
    expect(repository.loadPostings("code", snapshot, ["term7"]).map(([term]) => term)).toEqual(["term7"]);
    expect(repository.verifySnapshot("code")).toBeUndefined();
  });

  it.each([
    [
      "a byte flipped in the documents",
      () => setDocuments(flipped(documentsBlob(), 6)),
      { part: "documents", problem: "its checksum does not match" },
    ],
    [
      "the documents cut short",
      () => setDocuments(documentsBlob().subarray(0, 20)),
      { part: "documents", problem: "its checksum does not match" },
    ],
    [
      "a number beside the documents changed",
      () => db.exec("UPDATE fts_documents SET document_count = 3"),
      { part: "documents", problem: "its checksum does not match" },
    ],
    [
      "a byte flipped in a postings row",
      () => setPostingsRow(2, flipped(postingsRow(2), postingsRow(2).length - 3)),
      { part: "postings bucket 2", problem: "its checksum does not match" },
    ],
    [
      "a postings row cut short",
      () => setPostingsRow(1, postingsRow(1).subarray(0, 10)),
      { part: "postings bucket 1", problem: "its checksum does not match" },
    ],
    [
      "two postings rows swapped",
      () =>
        db.exec(
          "UPDATE fts_postings SET bucket = 99 WHERE bucket = 0; UPDATE fts_postings SET bucket = 0 WHERE bucket = 3; UPDATE fts_postings SET bucket = 3 WHERE bucket = 99",
        ),
      { part: "postings bucket 0", problem: "its checksum does not match" },
    ],
    [
      "a postings row gone",
      () => db.exec("DELETE FROM fts_postings WHERE bucket = 0"),
      { part: "postings", problem: "it has 3 rows where 4 were written" },
    ],
  ])("find %s, and name the part", (_, damage, expected) => {
    damage();
    const error = damageOnLoad();
    expect(error).toBeInstanceOf(DamagedSnapshotError);
    expect((error as DamagedSnapshotError).damage).toEqual(expected);
    expect(errorMessage(error)).toBe(`the code full-text snapshot is damaged (${expected.part}: ${expected.problem})`);
    expect(repository.verifySnapshot("code")).toEqual(expected);
  });

  it("find a row a search reads gone, where every bucket had one", () => {
    const bucket = bucketOf("term7", 4);
    db.prepare("DELETE FROM fts_postings WHERE bucket = ?").run(bucket);
    const snapshot = repository.loadSnapshot("code") as StoredSnapshot;
    expect(() => repository.loadPostings("code", snapshot, ["term7"])).toThrow("(postings: 1 of the rows searched are missing)");
  });

  it("leave bytes that match their checksum to the decoder, which names what is wrong with them", () => {
    const data = Uint8Array.from(postingsRow(0));
    // The header's length (the second varint), now 16,383 bytes: past the end of the row.
    data.set([0xff, 0x7f], 1);
    setPostingsRow(0, data);
    db.prepare("UPDATE fts_postings SET checksum = ? WHERE index_name = 'code' AND bucket = 0").run(postingsChecksum(0, data));
    expect(repository.verifySnapshot("code")).toEqual({ part: "postings bucket 0", problem: "its terms run past the end of the row" });
  });

  it("note damage found by a reader until the next save clears it", () => {
    expect(repository.recordedDamage("code")).toBeUndefined();
    repository.recordDamage("code", { part: "postings bucket 2", problem: "its checksum does not match" });
    expect(repository.recordedDamage("code")).toEqual({ part: "postings bucket 2", problem: "its checksum does not match" });
    expect(repository.recordedDamage("history")).toBeUndefined();
    repository.saveSnapshot("code", { live: Uint8Array.from([0, 1]), lengths: Float32Array.from([0, 2]), count: 1, totalLength: 2 }, [
      ["alpha", [[1]]],
    ]);
    expect(repository.recordedDamage("code")).toBeUndefined();
  });
});

function setDocuments(data: Uint8Array): void {
  db.prepare("UPDATE fts_documents SET documents = ? WHERE index_name = 'code'").run(data);
}

function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[at] = (copy[at] as number) ^ 0x5a;
  return copy;
}
