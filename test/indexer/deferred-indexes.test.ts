import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { IndexProgress } from "../../src/indexer/project-indexer.js";
import type { SqliteDatabase } from "../../src/store/database.js";
import { DEFERRED_INDEXES, missingDeferredIndexes } from "../../src/store/deferred-indexes.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const services: ProjectServices[] = [];
const projects: TempProject[] = [];
afterEach(async () => {
  for (const opened of services.splice(0)) await opened.close();
  for (const project of projects.splice(0)) project.cleanup();
});

/** Sixty modules with a few symbols each, so that every table the indexes cover has rows. */
function modules(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let module = 0; module < 60; module++) {
    files[`pkg${module % 6}/m${module}.ts`] =
      `export function parseToken${module}(source: string): number {\n  return source.length + ${module};\n}\n` +
      `export class Widget${module} {\n  size(): number {\n    return ${module};\n  }\n}\n`;
  }
  return files;
}

function open(project: TempProject, segmentedFullTextAboveFiles?: number): ProjectServices {
  const opened = openProject({ root: project.root, env: project.env, segmentedFullTextAboveFiles });
  services.push(opened);
  return opened;
}

function newProject(): TempProject {
  const project = createTempProject(modules());
  projects.push(project);
  return project;
}

/** Reads the project's database through a connection of its own, as another process would. */
function inspect<T>(opened: ProjectServices, read: (db: SqliteDatabase) => T): T {
  const db = new Database(opened.paths.database, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function missing(opened: ProjectServices): string[] {
  return inspect(opened, missingDeferredIndexes).sort();
}

const ALL = DEFERRED_INDEXES.map((index) => index.name).sort();

/** The indexes SQLite would use for the look-ups the indexes exist for. */
function plannedIndexes(db: SqliteDatabase): string {
  return [
    "SELECT id FROM chunks WHERE file_id = 1",
    "SELECT id FROM symbols WHERE file_id = 1",
    "SELECT id FROM symbols WHERE name = 'x'",
    "SELECT id FROM files WHERE directory = 'pkg1'",
    "SELECT id FROM files WHERE status = 'failed'",
  ]
    .map((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((row) => row.detail).join("; "))
    .join(" | ");
}

describe("a first index's secondary indexes", () => {
  it("are dropped while a first index above the limit writes its rows, and built when it ends", async () => {
    const project = newProject();
    const large = open(project, 10);
    const during: string[][] = [];
    const { result } = await drain(large.indexer.run(), (progress: IndexProgress) => {
      if (progress.phase === "indexing" && progress.indexed > 0) during.push(missing(large));
    });
    expect(result).toMatchObject({ before: "missing", indexed: 60, failed: 0 });
    expect(during.length).toBeGreaterThan(0);
    for (const missing of during) expect(missing).toEqual(ALL);
    expect(missing(large)).toEqual([]);
    for (const { name } of DEFERRED_INDEXES) expect(inspect(large, plannedIndexes)).toContain(name);
  });

  it("are kept by a first index within the limit", async () => {
    const small = open(newProject(), 100);
    const during: string[][] = [];
    await drain(small.indexer.run(), (progress: IndexProgress) => {
      if (progress.phase === "indexing" && progress.indexed > 0) during.push(missing(small));
    });
    expect(during.length).toBeGreaterThan(0);
    for (const missing of during) expect(missing).toEqual([]);
  });

  it("are built before anything else by the run after a first index killed before its end, which completes the index", async () => {
    const project = newProject();
    const killed = open(project, 10);
    const run = killed.indexer.run();
    // Stopped where a kill would stop it: rows committed, the run's end (and its `finally`) never reached.
    for (let step = await run.next(); !step.done; step = await run.next()) {
      if (step.value.phase === "indexing" && step.value.indexed > 0) break;
    }
    expect(missing(killed)).toEqual(ALL);
    await killed.close();
    services.splice(services.indexOf(killed), 1);

    const next = open(project, 10);
    const seen: string[][] = [];
    const { result } = await drain(next.indexer.run(), (progress: IndexProgress) => {
      if (progress.phase !== "scanning") seen.push(missing(next));
    });
    expect(result).toMatchObject({ failed: 0, interrupted: false });
    for (const missing of seen) expect(missing).toEqual([]);
    expect(next.files.indexedPaths()).toHaveLength(60);
    for (const { name } of DEFERRED_INDEXES) expect(inspect(next, plannedIndexes)).toContain(name);
    const hits = next.codeFullText.search(["widget42"], 5);
    expect(hits.length).toBeGreaterThan(0);
  });
});
