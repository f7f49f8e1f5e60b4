import { mkdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KEPT_MANIFEST_IDLE_MS, KeptManifest } from "../../src/app/kept-manifest.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import { FileRepository } from "../../src/store/file-repository.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let db: SqliteDatabase;
let files: FileRepository;
let reads: string[];

const row = (path: string) => ({
  path,
  size: 1,
  mtimeMs: 1,
  contentHash: path,
  language: "typescript",
  status: "indexed" as const,
  reason: null,
  lineCount: 1,
  description: null,
  priority: 0,
});

/** The manifest's rows as grep keeps them, with every read of the database noted. */
function keptManifest(): KeptManifest {
  return new KeptManifest({
    manifestVersion: () => files.manifestVersion(),
    manifestUnder: (directory) => {
      reads.push(directory);
      return files.manifestUnder(directory);
    },
  });
}

const pathsOf = (rows: readonly { path: string }[]) => rows.map((entry) => entry.path).sort();

beforeEach(() => {
  project = createTempProject();
  mkdirSync(project.sylkHome, { recursive: true });
  db = openDatabase(`${project.sylkHome}/index.db`);
  files = new FileRepository(db);
  reads = [];
  for (const path of ["src/a.ts", "src/b.ts", "docs/c.md"]) files.upsertFile(row(path));
});

afterEach(() => {
  vi.useRealTimers();
  db.close();
  project.cleanup();
});

describe("KeptManifest: the manifest's rows kept between searches while the manifest is unchanged", () => {
  it("reads the rows once, and a directory's from the whole project's once those are kept", () => {
    const kept = keptManifest();
    expect(pathsOf(kept.under(""))).toEqual(["docs/c.md", "src/a.ts", "src/b.ts"]);
    expect(pathsOf(kept.under(""))).toEqual(["docs/c.md", "src/a.ts", "src/b.ts"]);
    expect(pathsOf(kept.under("src"))).toEqual(["src/a.ts", "src/b.ts"]);
    expect(reads).toEqual([""]);
  });

  it("reads a directory's rows alone when the whole project's are not kept, and keeps them", () => {
    const kept = keptManifest();
    expect(pathsOf(kept.under("docs"))).toEqual(["docs/c.md"]);
    expect(pathsOf(kept.under("docs"))).toEqual(["docs/c.md"]);
    expect(reads).toEqual(["docs"]);
  });

  it("reads them again after a row is written or deleted through the repository", () => {
    const kept = keptManifest();
    kept.under("");
    files.upsertFile(row("src/new.ts"));
    expect(pathsOf(kept.under(""))).toContain("src/new.ts");
    files.deleteFile("src/a.ts");
    expect(pathsOf(kept.under(""))).not.toContain("src/a.ts");
    expect(reads).toEqual(["", "", ""]);
  });

  it("reads them again after another connection commits (the session's indexing process)", () => {
    const kept = keptManifest();
    kept.under("");
    const other = openDatabase(`${project.sylkHome}/index.db`);
    new FileRepository(other).upsertFile(row("src/from-elsewhere.ts"));
    other.close();
    expect(pathsOf(kept.under(""))).toContain("src/from-elsewhere.ts");
    expect(reads).toEqual(["", ""]);
  });

  it("lets the rows go once no search has read them for a while", () => {
    vi.useFakeTimers();
    const kept = keptManifest();
    kept.under("");
    vi.advanceTimersByTime(KEPT_MANIFEST_IDLE_MS - 1);
    kept.under("");
    vi.advanceTimersByTime(KEPT_MANIFEST_IDLE_MS);
    kept.under("");
    expect(reads).toEqual(["", ""]);
  });
});
