import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { ProjectIndexer } from "../../src/indexer/project-indexer.js";
import { IndexWriter } from "../../src/indexer/index-writer.js";
import { fileWorkerPath, FileWorkerPool } from "../../src/indexer/worker-pool.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;
const pools: FileWorkerPool[] = [];

/** An indexer over the project's real store whose pool creations are counted. */
function countingIndexer(): { indexer: ProjectIndexer; created: () => number } {
  let created = 0;
  const config = services.loadedConfig.config;
  const indexer = new ProjectIndexer({
    root: project.root,
    config: config.index,
    db: services.db,
    files: services.files,
    writer: new IndexWriter(services.db, services.files, services.vectors, services.codeFullText, services.codeVectorIndex),
    fullText: services.codeFullText,
    createPool: () => {
      created++;
      const pool = new FileWorkerPool({ threads: 1 });
      pools.push(pool);
      return pool;
    },
    embeddingDimensions: services.embedder.dimensions,
  });
  return { indexer, created: () => created };
}

async function drain(indexer: ProjectIndexer) {
  const run = indexer.run();
  let step = await run.next();
  while (!step.done) step = await run.next();
  return step.value;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
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
    const task = { root: project.root, files: [{ path: "src/a.ts", size: 24, mtimeMs: 0, priority: 0 }], chunkLines: 45, embeddingDimensions: null };
    const [processed] = await pool.run(task);
    expect(processed).toMatchObject({ path: "src/a.ts", status: "indexed" });
  });
});
