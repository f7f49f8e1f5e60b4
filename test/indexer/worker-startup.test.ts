import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { ProjectIndexer } from "../../src/indexer/project-indexer.js";
import { fileWorkerPath, FileWorkerPool } from "../../src/indexer/worker-pool.js";
import { DirectoryStateRepository } from "../../src/store/directory-state-repository.js";
import { drainIndex } from "../helpers/drain.js";
import { codeIndexStores, openProjectDatabase } from "../helpers/project-database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;
const pools: FileWorkerPool[] = [];
const connections: Database.Database[] = [];

/**
 * An indexer over the project's real database, on a connection and store of
 * its own (as another process's would be), whose pool creations are counted.
 */
function countingIndexer(options: { workerLingerMs?: number } = {}): { indexer: ProjectIndexer; created: () => number } {
  let created = 0;
  const config = services.loadedConfig.config;
  const db = openProjectDatabase(services.paths);
  connections.push(db);
  const { files, fullText, writer } = codeIndexStores(db, services.embedder);
  const indexer = new ProjectIndexer({
    root: project.root,
    config: config.index,
    db,
    files,
    directories: new DirectoryStateRepository(db),
    writer: writer(),
    fullText,
    createPool: () => {
      created++;
      const pool = new FileWorkerPool({ threads: 1 });
      pools.push(pool);
      return pool;
    },
    embeddingDimensions: services.embedder.dimensions,
    workerLingerMs: options.workerLingerMs,
  });
  return { indexer, created: () => created };
}

async function drain(indexer: ProjectIndexer) {
  return drainIndex({ indexer });
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  for (const db of connections.splice(0)) db.close();
  await services.close();
  project.cleanup();
});

describe("worker threads", () => {
  it("start for a first index, and not at all when the index is fresh", async () => {
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n", "src/b.py": "def beta():\n    pass\n" });
    services = openProject({ root: project.root, env: project.env });

    const first = countingIndexer();
    expect(await drain(first.indexer)).toMatchObject({ before: "missing", indexed: 2 });
    expect(first.created()).toBe(1);

    const again = countingIndexer();
    expect(await drain(again.indexer)).toMatchObject({ before: "fresh", indexed: 0 });
    expect(await again.indexer.refreshPaths(["src/a.ts"])).toMatchObject({ indexed: 0 });
    expect(again.created()).toBe(0);

    project.write("src/a.ts", "export const alpha = 2;\n");
    expect(await drain(again.indexer)).toMatchObject({ before: "stale", indexed: 1 });
    expect(again.created()).toBe(1);
  });
});

describe("worker threads for a session's first index", () => {
  it("start while the tree is walked when the work stays in this process, and never when it is handed off", async () => {
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n", "src/b.py": "def beta():\n    pass\n" });
    services = openProject({ root: project.root, env: project.env });

    const kept = countingIndexer();
    const run = kept.indexer.run(undefined, { handOffAbove: 5 });
    let step = await run.next();
    while (!step.done && step.value.phase !== "indexing") step = await run.next();
    // No file has been handed to a thread yet: they were started for the walk, not by the first batch.
    expect(kept.created()).toBe(1);
    while (!step.done) step = await run.next();
    expect(step.value).toMatchObject({ before: "missing", indexed: 2 });

    await services.close();
    project.cleanup();
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n", "src/b.py": "def beta():\n    pass\n" });
    services = openProject({ root: project.root, env: project.env });
    const handedOff = countingIndexer();
    const elsewhere = handedOff.indexer.run(undefined, { handOffAbove: 1 });
    let last = await elsewhere.next();
    while (!last.done) last = await elsewhere.next();
    expect(last.value).toMatchObject({ before: "missing", handedOff: true, indexed: 0 });
    expect(handedOff.created()).toBe(0);
  });
});

describe("worker threads after a run", () => {
  it("end once the run is over, and start again for the next one", async () => {
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n", "src/b.py": "def beta():\n    pass\n" });
    services = openProject({ root: project.root, env: project.env });
    const { indexer, created } = countingIndexer({ workerLingerMs: 50 });

    expect(await drain(indexer)).toMatchObject({ before: "missing", indexed: 2 });
    const first = pools[0] as FileWorkerPool;
    expect(first.threadCount).toBeGreaterThan(0);
    await expect.poll(() => first.threadCount, { timeout: 10_000 }).toBe(0);

    project.write("src/a.ts", "export const alpha = 2;\n");
    expect(await drain(indexer)).toMatchObject({ before: "stale", indexed: 1 });
    expect(created()).toBe(2);
    const second = pools[1] as FileWorkerPool;
    await expect.poll(() => second.threadCount, { timeout: 10_000 }).toBe(0);

    // A watcher's refresh of one path starts them too, and they end after it as well.
    project.write("src/b.py", "def beta():\n    return 2\n");
    expect(await indexer.refreshPaths(["src/b.py"])).toMatchObject({ indexed: 1 });
    expect(created()).toBe(3);
    await expect.poll(() => (pools[2] as FileWorkerPool).threadCount, { timeout: 10_000 }).toBe(0);
  });

  it("stay for a run that starts within the linger", async () => {
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n" });
    services = openProject({ root: project.root, env: project.env });
    const { indexer, created } = countingIndexer({ workerLingerMs: 60_000 });
    await drain(indexer);
    project.write("src/a.ts", "export const alpha = 2;\n");
    expect(await indexer.refreshPaths(["src/a.ts"])).toMatchObject({ indexed: 1 });
    expect(created()).toBe(1);
    expect((pools[0] as FileWorkerPool).threadCount).toBeGreaterThan(0);
    await indexer.close();
    expect((pools[0] as FileWorkerPool).threadCount).toBe(0);
  });
});

describe("a file worker pool closed while its threads start", () => {
  it("closes without aborting the process, at whatever stage the threads are", async () => {
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n" });
    services = openProject({ root: project.root, env: project.env });
    // Piscina loads its entry with require(); require() of an ES module on Node
    // >= 20.19 instantiates it synchronously, and a thread terminated then took
    // the whole process down with a V8 fatal error (seen when a session closed
    // its pool right after an index). The entry is CommonJS and imports the rest.
    expect(fileWorkerPath()).toMatch(/\.cjs$/);
    for (let attempt = 0; attempt < 80; attempt++) {
      const pool = new FileWorkerPool({ threads: 2 });
      await new Promise((resolve) => setTimeout(resolve, attempt));
      await pool.close();
    }
    const pool = new FileWorkerPool({ threads: 1 });
    pools.push(pool);
    const task = {
      root: project.root,
      files: [{ path: "src/a.ts", size: 24, mtimeMs: 0, priority: 0 }],
      chunkLines: 45,
      embeddingDimensions: null,
    };
    const [processed] = await pool.run(task);
    expect(processed).toMatchObject({ path: "src/a.ts", status: "indexed" });
  });
});

describe("a file worker pool closed with tasks in flight", () => {
  it("drops the answers that cross the close instead of crashing on them", async () => {
    // An indexing run that fails (SQLITE_FULL on a full disk, in scripts/bench-faults.mjs)
    // closes the pool while workers still answer: piscina then emits 'error' ("Unexpected
    // message from Worker"), which without a listener ended the process with a stack trace.
    project = createTempProject(
      Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`src/m${index}.ts`, `export const value${index} = ${index};\n`])),
    );
    services = openProject({ root: project.root, env: project.env });
    const files = Array.from({ length: 40 }, (_, index) => ({ path: `src/m${index}.ts`, size: 24, mtimeMs: 0, priority: 0 }));
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const pool = new FileWorkerPool({ threads: 2 });
        const running = Array.from({ length: 16 }, (_, index) =>
          pool.run({
            root: project.root,
            files: files.slice((index * 5) % 40, ((index * 5) % 40) + 5),
            chunkLines: 45,
            embeddingDimensions: 256,
          }),
        );
        await Promise.race(running);
        // The main thread busy (committing a batch) while workers answer: their answers queue
        // up, and the close comes before they are read.
        const busyUntil = performance.now() + 150;
        while (performance.now() < busyUntil);
        await pool.close();
        await Promise.allSettled(running);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.off("uncaughtException", onUncaught);
    }
    expect(uncaught).toEqual([]);
  });
});
