import { afterEach, describe, expect, it } from "vitest";
import { runIndexProcess } from "../../src/app/index-process.js";
import { ForegroundWork } from "../../src/indexer/foreground-work.js";
import { createModulesProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const FILES = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a first index in its own process, while the session runs a search its user waits on", () => {
  it("pauses between files while the search runs, and finishes every file once it ends", async () => {
    project = createModulesProject(FILES);
    // Small batches: a running index reports progress every few files, so a stop shows within the windows below
    // however loaded the machine is.
    const env = { ...project.env, SYLK_INDEX_BATCH_SIZE: "10" };
    const foreground = new ForegroundWork();
    const progress: Array<{ at: number; indexed: number }> = [];
    let summaryAt: number | undefined;
    let failure: unknown;
    const run = runIndexProcess({ root: project.root, env, foreground }, new AbortController().signal, (event) => {
      if (event.type === "progress") progress.push({ at: performance.now(), indexed: event.progress.indexed });
    }).then(
      (summary) => {
        summaryAt = performance.now();
        return summary;
      },
      (error: unknown) => {
        failure = error;
        throw error;
      },
    );
    while (!progress.some((step) => step.indexed > 0)) {
      if (failure !== undefined) throw failure;
      if (summaryAt !== undefined) throw new Error("the index finished before the search started");
      await sleep(10);
    }
    let endSearch = () => {};
    const search = foreground.run(() => new Promise<void>((resolve) => (endSearch = resolve)));
    // What the workers finished before they were told is still committed; then the progress stops. All of it
    // within MAX_PAUSE_MS (10 s), after which the process would resume on its own.
    const deadline = performance.now() + 6_000;
    while (performance.now() - (progress.at(-1)?.at ?? 0) < 2_000) {
      expect(performance.now(), "progress never stopped while the search ran").toBeLessThan(deadline);
      if (failure !== undefined) throw failure;
      expect(summaryAt, "the index finished while the search ran").toBeUndefined();
      await sleep(50);
    }
    const indexedWhilePaused = progress.at(-1)?.indexed ?? 0;
    await sleep(1_500);
    expect(progress.at(-1)?.indexed).toBe(indexedWhilePaused);
    expect(indexedWhilePaused).toBeLessThan(FILES);
    expect(summaryAt).toBeUndefined();
    endSearch();
    await search;
    const summary = await run;
    expect(summary).toMatchObject({ indexed: FILES, failed: 0, interrupted: false });
  }, 120_000);
});
