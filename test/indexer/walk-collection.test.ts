import { constants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
let services: ProjectServices | undefined;

afterEach(async () => {
  await services?.close();
  project?.cleanup();
});

/** When each forced full collection of this thread's heap started, and when the first file's work began, during a first index. */
async function forcedCollectionsAndFirstWork(
  segmentedFullTextAboveFiles: number,
): Promise<{ forced: number[]; walked: number; working: number }> {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n", "README.md": "# Readme\n" });
  services = openProject({ root: project.root, env: project.env, segmentedFullTextAboveFiles });
  const collections: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  let walked = Number.NaN;
  let working = Number.NaN;
  await drain(services.indexer.run(), (progress) => {
    if (progress.phase === "scanning") walked = performance.now();
    if (progress.phase === "indexing" && Number.isNaN(working)) working = performance.now();
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  const forced = collections.filter((entry) => {
    // A gc entry's detail (Node's types leave it out of PerformanceEntry).
    const { detail } = entry as unknown as { detail: { kind: number; flags: number } };
    return detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR && (detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
  });
  return { forced: forced.map((entry) => entry.startTime), walked, working };
}

describe("a large first index's heap after its walk", () => {
  it("is collected once, after the walk and before the first file's work", async () => {
    const { forced, walked, working } = await forcedCollectionsAndFirstWork(2);
    expect(forced).toHaveLength(1);
    expect(forced[0]).toBeGreaterThan(walked);
    expect(forced[0]).toBeLessThan(working);
  });

  it("is left to V8 on a first index small enough to stay in memory", async () => {
    const { forced } = await forcedCollectionsAndFirstWork(1000);
    expect(forced).toEqual([]);
  });
});
