import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { EARLY_TASK_FILES, EarlyFileTasks } from "../../src/indexer/early-file-tasks.js";
import type { FileTaskItem, ProcessedFile } from "../../src/indexer/file-processor.js";
import { TASK_MAX_BYTES, TASK_MAX_FILES } from "../../src/indexer/file-work-queue.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

function file(index: number, size = 100): FileTaskItem {
  return { path: `f${index}.ts`, size, mtimeMs: 0, priority: 0 };
}

/** Early tasks whose `run` records each task's files and resolves to nothing. */
function recorded(limit?: number): { early: EarlyFileTasks; given: FileTaskItem[][] } {
  const given: FileTaskItem[][] = [];
  const run = (files: FileTaskItem[]): Promise<ProcessedFile[]> => {
    given.push(files);
    return Promise.resolve([]);
  };
  return { early: new EarlyFileTasks(run, limit), given };
}

describe("EarlyFileTasks", () => {
  it("packs files into tasks as a queue's take would, and gives each out once full", () => {
    const { early, given } = recorded(100);
    for (let index = 0; index < TASK_MAX_FILES; index++) expect(early.offer(file(index))).toBe(true);
    // A full task goes out with the next file, not before: the walk may still add one.
    expect(given).toHaveLength(0);
    early.offer(file(TASK_MAX_FILES));
    expect(given.map((task) => task.length)).toEqual([TASK_MAX_FILES]);
    // Bytes bound a task too: a file that would pass TASK_MAX_BYTES starts the next.
    early.offer(file(100, TASK_MAX_BYTES - 50));
    expect(given.map((task) => task.length)).toEqual([TASK_MAX_FILES, 1]);
    early.finish();
    expect(given.map((task) => task.length)).toEqual([TASK_MAX_FILES, 1, 1]);
    expect(early.tasks).toHaveLength(3);
    expect(early.taken).toBe(TASK_MAX_FILES + 2);
    expect(given.flat().map((item) => item.path)).toEqual([
      ...Array.from({ length: TASK_MAX_FILES + 1 }, (_, index) => `f${index}.ts`),
      "f100.ts",
    ]);
  });

  it("takes no more than its budget, gives the last task out when the budget is spent, and nothing after the walk", () => {
    const { early, given } = recorded(40);
    const taken = Array.from({ length: 50 }, (_, index) => early.offer(file(index)));
    expect(taken.filter(Boolean)).toHaveLength(40);
    expect(taken.slice(40).every((took) => !took)).toBe(true);
    expect(given.map((task) => task.length)).toEqual([TASK_MAX_FILES, 8]);
    early.finish();
    expect(given).toHaveLength(2);

    const after = recorded(40);
    after.early.finish();
    expect(after.early.offer(file(0))).toBe(false);
    expect(after.given).toHaveLength(0);
    expect(EARLY_TASK_FILES).toBeGreaterThan(TASK_MAX_FILES);
  });
});

describe("a first index's first tasks, given out during its walk", () => {
  let project: TempProject | undefined;
  let services: ProjectServices | undefined;
  afterEach(async () => {
    await services?.close();
    project?.cleanup();
  });

  it("commits the files the walk met first before any other, and every file once", async () => {
    // The walk meets `notes/` (plain text, the lowest priority) before `src/` (TypeScript, higher). By priority alone
    // the first tasks given out, more than run at once, would all be of `src/` files, and so would the first to end.
    const NOTES = EARLY_TASK_FILES + 88;
    const SOURCES = 600;
    project = createTempProject();
    for (let index = 0; index < NOTES; index++) project.write(`notes/n${String(index).padStart(4, "0")}.txt`, `note ${index}\n`);
    for (let index = 0; index < SOURCES; index++) project.write(`src/m${index}.ts`, `export const value${index} = ${index};\n`);
    services = openProject({ root: project.root, env: project.env });

    const totals: number[] = [];
    const { result } = await drain(services.indexer.run(), (progress) => {
      if (progress.phase === "indexing") totals.push(progress.total);
    });
    expect(result.indexed).toBe(NOTES + SOURCES);
    expect(result.interrupted).toBe(false);
    // The early files are counted in the run's total from its first progress on.
    expect(new Set(totals)).toEqual(new Set([NOTES + SOURCES]));

    const db = new Database(services.paths.database, { readonly: true });
    const committed = db.prepare("SELECT path FROM files ORDER BY id").pluck().all() as string[];
    db.close();
    expect(committed).toHaveLength(NOTES + SOURCES);
    expect(new Set(committed).size).toBe(NOTES + SOURCES);
    // The first task to end is one given out during the walk: of the first files it met. By priority alone the first
    // committed would be TypeScript files from `src/`.
    const walkedFirst = new Set(Array.from({ length: EARLY_TASK_FILES }, (_, index) => `notes/n${String(index).padStart(4, "0")}.txt`));
    expect(committed.slice(0, TASK_MAX_FILES).filter((path) => !walkedFirst.has(path))).toEqual([]);
  });

  it("is not used by a refresh: its new files go by priority alone", async () => {
    project = createTempProject({ "notes/a.txt": "a\n", "src/b.ts": "export const b = 1;\n" });
    services = openProject({ root: project.root, env: project.env });
    await drain(services.indexer.run());
    for (let index = 0; index < 40; index++) project.write(`notes/new${index}.txt`, `note ${index}\n`);
    for (let index = 0; index < 5; index++) project.write(`src/new${index}.ts`, `export const n${index} = ${index};\n`);
    const { result } = await drain(services.indexer.run());
    expect(result).toMatchObject({ added: 45, indexed: 45 });

    const db = new Database(services.paths.database, { readonly: true });
    const added = db.prepare("SELECT path FROM files WHERE path LIKE '%/new%' ORDER BY id").pluck().all() as string[];
    db.close();
    // The walk meets `notes/` first; a refresh gives no early task, so the TypeScript files (higher priority) come first.
    expect(added.slice(0, 5).every((path) => path.startsWith("src/"))).toBe(true);
  });
});
