import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/database.js";
import {
  DirectoryStateRepository,
  type StoredDirectoryState,
  type StoredDirectorySnapshot,
  withJoinedNames,
} from "../../src/store/directory-state-repository.js";
import { collectGarbage } from "../helpers/garbage-collection.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function fieldsOf(snapshot: StoredDirectorySnapshot | undefined): object | undefined {
  if (!snapshot) return undefined;
  const { files, directories, ino, mtimeMs, ctimeMs, recordedAtMs } = snapshot;
  return { files: [...files], directories: [...directories], ino, mtimeMs, ctimeMs, recordedAtMs };
}

function walkedState(index: number): StoredDirectoryState {
  return {
    listing: `listing-${index}`,
    rules: `rules-${index}`,
    leftOut: index % 2 === 0 ? [] : ["x.log", "é ü.tmp"],
    snapshot: {
      files: Array.from({ length: index % 5 }, (_, file) => `file ${file}.ts`),
      directories: index % 3 === 0 ? [] : ["sub", "other dir"],
      ino: 1000 + index,
      mtimeMs: 1_700_000_000_123.456 + index,
      ctimeMs: 1_700_000_001_000.5 + index,
      recordedAtMs: 1_700_000_009_000,
    },
  };
}

describe("withJoinedNames", () => {
  it("keeps none of the walk's arrays of names, and stores the same rows as the state it was made from", async () => {
    const names: Array<WeakRef<readonly string[]>> = [];
    const joined = (() => {
      const states = Array.from({ length: 12 }, (_, index) => walkedState(index));
      for (const state of states)
        if (state.snapshot) names.push(new WeakRef(state.snapshot.files), new WeakRef(state.snapshot.directories));
      return states.map((state, index) => ({ path: `dir-${index}`, state: withJoinedNames(state) }));
    })();
    await collectGarbage();
    expect(names.filter((reference) => reference.deref() !== undefined)).toHaveLength(0);

    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "sylk-states-")), "vector.db"));
    directories.push(join(db.name, ".."));
    const repository = new DirectoryStateRepository(db);
    repository.save(joined, []);
    const rows = () => db.prepare("SELECT * FROM directory_states ORDER BY path").raw().all();
    const fromJoined = rows();
    repository.clear();
    repository.save(
      Array.from({ length: 12 }, (_, index) => ({ path: `dir-${index}`, state: walkedState(index) })),
      [],
    );
    expect(fromJoined).toEqual(rows());
    for (const [index, { state }] of joined.entries()) {
      const walked = walkedState(index);
      expect({ ...state, snapshot: fieldsOf(state.snapshot) }).toEqual({ ...walked, snapshot: fieldsOf(walked.snapshot) });
    }
    db.close();
  });
});
