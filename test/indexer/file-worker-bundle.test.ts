import { spawnSync } from "node:child_process";
import { Worker } from "node:worker_threads";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileWorkerPath } from "../../src/indexer/worker-pool.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

/** Runs one batch through a worker module on a thread of its own, as a pool's worker would (the vectors as plain arrays). */
async function processOnAThread(entry: string, task: unknown): Promise<unknown> {
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(workerData.entry).then((module) => module.default(workerData.task)).then(
      (files) => parentPort.postMessage({ files: files.map((file) => ({ ...file, chunks: file.chunks.map((chunk) => ({ ...chunk, vector: chunk.vector && Array.from(chunk.vector) })) })) }),
      (error) => parentPort.postMessage({ error: String(error) }),
    );`;
  const worker = new Worker(source, { eval: true, workerData: { entry, task } });
  try {
    const message = await new Promise<{ files?: unknown; error?: string }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    if (message.error) throw new Error(message.error);
    return message.files;
  } finally {
    await worker.terminate();
  }
}

describe("the file worker, bundled into one file", () => {
  it("is what the pool's workers load once built", () => {
    // In a process of its own: loading the worker lowers its thread's priority.
    const run = spawnSync(process.execPath, ["-e", `console.log(require(${JSON.stringify(fileWorkerPath())}).entry)`], {
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("./file-worker.bundle.js");
  });

  it("processes files as the module graph it bundles does: symbols, chunks, terms, vectors, sketches", async () => {
    project = createTempProject({
      "src/shapes.ts": "/** Shapes. */\nexport class Circle {\n  area(r: number): number {\n    return Math.PI * r * r;\n  }\n}\n",
      "lib/tool.py": 'def measure(x):\n    """Measure x."""\n    return x * 2\n',
      "README.md": "# Title\n\nSome words about circles.\n",
    });
    const task = {
      root: project.root,
      files: ["src/shapes.ts", "lib/tool.py", "README.md"].map((path, priority) => ({ path, size: 1, mtimeMs: 1, priority })),
      chunkLines: 40,
      embeddingDimensions: 256,
    };
    const workers = join(fileWorkerPath(), "..");
    const bundled = await processOnAThread(join(workers, "file-worker.bundle.js"), task);
    const modules = await processOnAThread(join(workers, "file-worker.js"), task);
    expect(bundled).toEqual(modules);
    expect(JSON.stringify(bundled)).toContain("Circle");
  }, 60_000);
});
