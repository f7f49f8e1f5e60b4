import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { FileWorkerPool } from "../../src/indexer/worker-pool.js";
import { FILE_WORKER_NICE_STEP, lowerThisThreadsPriority } from "../../src/indexer/worker-priority.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { workerThreadNices } from "../helpers/process-state.js";

let project: TempProject | undefined;
let pool: FileWorkerPool | undefined;

afterEach(async () => {
  await pool?.close();
  pool = undefined;
  project?.cleanup();
  project = undefined;
});

describe("the file workers' priority", () => {
  it("changes nothing where a nice value is the whole process's", () => {
    const before = getPriority();
    expect(lowerThisThreadsPriority(FILE_WORKER_NICE_STEP, "darwin")).toBeUndefined();
    expect(lowerThisThreadsPriority(FILE_WORKER_NICE_STEP, "win32")).toBeUndefined();
    expect(getPriority()).toBe(before);
  });

  it.runIf(process.platform === "linux")("puts each file worker below the thread that feeds it, and only the workers", async () => {
    project = createTempProject({ "src/a.ts": "export const alpha = 1;\n" });
    const main = getPriority();
    // The test runner's own worker threads, if any, keep their priority.
    const others = workerThreadNices("self");
    const poolsNice = () => [...workerThreadNices("self")].filter(([tid]) => !others.has(tid)).map(([, nice]) => nice);
    // One task a thread, so that each of the two loads the worker's module (piscina loads it with the first task).
    pool = new FileWorkerPool({ threads: 2, tasksPerThread: 1 });
    const task = {
      root: project.root,
      files: [{ path: "src/a.ts", size: 24, mtimeMs: 0, priority: 0 }],
      chunkLines: 100,
      embeddingDimensions: null,
    };
    const results = await Promise.all([pool.run(task), pool.run(task)]);
    expect(results.flat()).toMatchObject([
      { path: "src/a.ts", status: "indexed" },
      { path: "src/a.ts", status: "indexed" },
    ]);
    await expect.poll(poolsNice, { timeout: 10_000 }).toEqual([main + FILE_WORKER_NICE_STEP, main + FILE_WORKER_NICE_STEP]);
    expect(getPriority()).toBe(main);
    expect([...others.values()].every((nice) => nice === main)).toBe(true);
  });
});
