import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ForegroundWork } from "../../src/indexer/foreground-work.js";
import { IndexPause, MAX_PAUSE_MS } from "../../src/indexer/index-pause.js";
import { processFile } from "../../src/indexer/file-processor.js";
import { TreeSitterExtractor } from "../../src/parsing/tree-sitter-extractor.js";
import { createTempProject } from "../helpers/temp-project.js";

afterEach(() => vi.useRealTimers());

describe("IndexPause: a background index that gives the cores to a search the user waits on", () => {
  it("holds a thread that waits between files until it is resumed", async () => {
    const pause = new IndexPause();
    pause.pause();
    // The worker stands for a file worker between two files: it reports once `waitWhilePaused` lets it go on.
    const worker = new Worker(
      `const { workerData, parentPort } = require("node:worker_threads");
       while (Atomics.load(workerData, 0) === 1) Atomics.wait(workerData, 0, 1, 1000);
       parentPort.postMessage("went on");`,
      { eval: true, workerData: pause.flag },
    );
    let wentOn = false;
    const done = new Promise<void>((resolve) =>
      worker.once("message", () => {
        wentOn = true;
        resolve();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(wentOn).toBe(false);
    pause.resume();
    await done;
    expect(pause.paused).toBe(false);
    await worker.terminate();
  });

  it("holds a file worker inside a file too, between its chunks", async () => {
    const project = createTempProject({ "notes.txt": Array.from({ length: 400 }, (_, line) => `line ${line}`).join("\n") });
    const pause = new IndexPause();
    pause.pause();
    // Another thread resumes the run: this one is held inside \`processFile\`, which waits on the flag itself.
    const resumer = new Worker(
      `const { workerData } = require("node:worker_threads");
       setTimeout(() => { Atomics.store(workerData, 0, 0); Atomics.notify(workerData, 0); }, 300);`,
      { eval: true, workerData: pause.flag },
    );
    try {
      const started = performance.now();
      const file = { path: "notes.txt", size: 0, mtimeMs: 0, priority: 0 };
      const processed = await processFile(
        { root: project.root, chunkLines: 45, embeddingDimensions: null, pause: pause.flag },
        file,
        new TreeSitterExtractor(),
      );
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      expect(processed.chunks.length).toBeGreaterThan(8);
    } finally {
      await resumer.terminate();
      project.cleanup();
    }
  });

  it("resumes on its own after MAX_PAUSE_MS, so a session that never says resume cannot stall its index", () => {
    vi.useFakeTimers();
    const pause = new IndexPause();
    pause.pause();
    vi.advanceTimersByTime(MAX_PAUSE_MS - 1);
    expect(pause.paused).toBe(true);
    pause.pause(); // a new search restarts the limit
    vi.advanceTimersByTime(MAX_PAUSE_MS - 1);
    expect(pause.paused).toBe(true);
    vi.advanceTimersByTime(1);
    expect(pause.paused).toBe(false);
  });
});

describe("ForegroundWork", () => {
  it("tells its listeners when the first search starts and when the last one ends, also when one fails", async () => {
    const foreground = new ForegroundWork();
    const told: boolean[] = [];
    const stop = foreground.onChange((busy) => told.push(busy));
    let releaseFirst = () => {};
    const first = foreground.run(() => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const second = foreground.run(async () => {
      throw new Error("no such file");
    });
    await expect(second).rejects.toThrow("no such file");
    expect(foreground.busy).toBe(true);
    releaseFirst();
    await first;
    expect(told).toEqual([true, false]);
    stop();
    await foreground.run(async () => undefined);
    expect(told).toEqual([true, false]);
  });
});

describe("IndexPause on the main thread", () => {
  it("holds a commit until resumed, or until the run is stopped, without blocking the thread", async () => {
    const pause = new IndexPause();
    await pause.whenRunning(); // not paused: at once
    pause.pause();
    let committed = false;
    const commit = pause.whenRunning().then(() => (committed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(committed).toBe(false);
    pause.resume();
    await commit;
    expect(committed).toBe(true);
    pause.pause();
    const stop = new AbortController();
    const stopped = pause.whenRunning(stop.signal);
    stop.abort();
    await stopped;
    expect(pause.paused).toBe(true);
    pause.resume();
  });
});
