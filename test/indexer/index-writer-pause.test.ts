import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { ProcessedFile } from "../../src/indexer/file-processor.js";
import { IndexPause } from "../../src/indexer/index-pause.js";
import type { IndexWriter } from "../../src/indexer/index-writer.js";
import { FileRepository } from "../../src/store/file-repository.js";
import { codeIndexStores, openProjectDatabase } from "../helpers/project-database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;
let db: Database.Database;
let files: FileRepository;

beforeEach(() => {
  project = createTempProject({});
  services = openProject({ root: project.root, env: project.env });
  db = openProjectDatabase(services.paths);
  files = new FileRepository(db);
});
afterEach(async () => {
  db.close();
  await services.close();
  project.cleanup();
});

/** A writer whose slices hold one file each: as a slow batch does in `PAUSABLE_COMMIT_SLICE_MS`. */
function writer(): IndexWriter {
  return codeIndexStores(db, services.embedder).writer(0.001);
}

const processed = (count: number): ProcessedFile[] =>
  Array.from({ length: count }, (_, index) => ({
    path: `src/file${index}.ts`,
    size: 10,
    mtimeMs: 1,
    priority: 0,
    status: "indexed",
    reason: null,
    contentHash: `hash${index}`,
    language: "typescript",
    lineCount: 1,
    description: null,
    chunks: [],
    symbols: [],
    secretsMasked: 0,
    sketch: null,
  }));

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("a batch committed by a run that may be paused", () => {
  it("stops between two slices once paused, commits nothing more while paused, and finishes once resumed", async () => {
    const pause = new IndexPause();
    pause.pause();
    const committing = writer().commitBatch(processed(6), new Map(), { pause });
    await settle();
    // The slice under way when the word came is committed; nothing after it.
    expect(files.manifest().size).toBe(1);
    pause.resume();
    expect((await committing).indexed).toBe(6);
    expect(files.manifest().size).toBe(6);
  });

  it("finishes at once when its run is stopped while paused, keeping every file whole", async () => {
    const pause = new IndexPause();
    const stop = new AbortController();
    pause.pause();
    const committing = writer().commitBatch(processed(4), new Map(), { pause, signal: stop.signal });
    await settle();
    stop.abort();
    expect((await committing).indexed).toBe(4);
    pause.resume();
  });

  it("is not sliced or held without a pause", async () => {
    const pause = new IndexPause();
    pause.pause();
    // Paused, but not given to this batch: an ordinary run commits it all.
    expect((await writer().commitBatch(processed(3), new Map())).indexed).toBe(3);
    pause.resume();
  });
});
