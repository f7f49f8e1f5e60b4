import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { ProcessedChunk, ProcessedFile } from "../../src/indexer/file-processor.js";
import { codeIndexStores, openProjectDatabase } from "../helpers/project-database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;
let db: Database.Database;

beforeEach(() => {
  project = createTempProject({});
  services = openProject({ root: project.root, env: project.env });
  db = openProjectDatabase(services.paths);
});
afterEach(async () => {
  db.close();
  await services.close();
  project.cleanup();
});

const chunk = (ordinal: number, word: string): ProcessedChunk => ({
  ordinal,
  startLine: ordinal * 10 + 1,
  endLine: ordinal * 10 + 10,
  kind: "block",
  symbols: [word],
  content: `function ${word}() {}`,
  tokenCount: 5,
  terms: `function ${word}`,
  termCount: 2,
  vector: null,
});

function processed(path: string, hash: string, words: string[]): ProcessedFile {
  return {
    path,
    size: 10,
    mtimeMs: 1,
    priority: 0,
    status: "indexed",
    reason: null,
    contentHash: hash,
    language: "typescript",
    lineCount: words.length * 10,
    description: null,
    chunks: words.map((word, ordinal) => chunk(ordinal, word)),
    symbols: words.map((word, ordinal) => ({ name: word, kind: "function", startLine: ordinal * 10 + 1, endLine: ordinal * 10 + 10 })),
    secretsMasked: 0,
    sketch: new Uint8Array([1, 2, 3]),
  };
}

const count = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;

describe("files the manifest does not know", () => {
  it("are inserted with their rows, without looking up or replacing rows a new file cannot have", async () => {
    const stores = codeIndexStores(db, services.embedder);
    const lookups = [
      vi.spyOn(stores.files, "upsertFile"),
      vi.spyOn(stores.files, "chunkIdsOf"),
      vi.spyOn(stores.files, "replaceChunks"),
      vi.spyOn(stores.files, "replaceSymbols"),
    ];
    const batch = [processed("src/a.ts", "a1", ["alpha", "beta"]), processed("src/b.ts", "b1", ["gamma"])];
    const outcome = await stores.writer().commitBatch(batch, new Map());

    expect(outcome).toMatchObject({ indexed: 2, chunks: 3 });
    for (const lookup of lookups) expect(lookup).not.toHaveBeenCalled();
    expect(count("SELECT count(*) AS n FROM chunks")).toBe(3);
    expect(count("SELECT count(*) AS n FROM symbols")).toBe(3);
    expect(count("SELECT count(*) AS n FROM file_sketches")).toBe(2);
    expect(stores.fullText.search(["gamma"], 5)).toHaveLength(1);
  });

  it("replace what another writer recorded for the path since the manifest was read, leaving no old row", async () => {
    const stores = codeIndexStores(db, services.embedder);
    await stores.writer().commitBatch([processed("src/a.ts", "a1", ["alpha", "beta"])], new Map());
    // The same path again with a manifest read before that commit: it has no row for it.
    const outcome = await stores.writer().commitBatch([processed("src/a.ts", "a2", ["delta"])], new Map());

    expect(outcome).toMatchObject({ indexed: 1, chunks: 1 });
    expect(count("SELECT count(*) AS n FROM files")).toBe(1);
    expect(db.prepare("SELECT content FROM chunks").pluck().all()).toEqual(["function delta() {}"]);
    expect(db.prepare("SELECT name FROM symbols").pluck().all()).toEqual(["delta"]);
    expect(stores.fullText.search(["alpha"], 5)).toHaveLength(0);
    expect(stores.fullText.search(["delta"], 5)).toHaveLength(1);
  });
});
