import { afterEach, describe, expect, it, vi } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** When each collection of the dropped walk was asked for (the real one runs too). */
const asked = vi.hoisted(() => [] as number[]);

vi.mock("../../src/indexer/walk-collection.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/indexer/walk-collection.js")>();
  return {
    ...original,
    collectTheDroppedWalk: () => {
      asked.push(performance.now());
      original.collectTheDroppedWalk();
    },
  };
});

let project: TempProject | undefined;
let services: ProjectServices | undefined;

afterEach(async () => {
  await services?.close();
  project?.cleanup();
  asked.length = 0;
});

/**
 * When the walk's collection was asked for, and when the first file's work
 * began, during a first index. (V8's memory-reducing collection, which it
 * is, carries no flag in Node's gc performance entries, so the call is
 * what is timed; test/indexer/walk-collection-pages.test.ts shows what it
 * gives back.)
 */
async function collectionsAndFirstWork(
  segmentedFullTextAboveFiles: number,
): Promise<{ forced: number[]; walked: number; working: number }> {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n", "README.md": "# Readme\n" });
  services = openProject({ root: project.root, env: project.env, segmentedFullTextAboveFiles });
  let walked = Number.NaN;
  let working = Number.NaN;
  await drain(services.indexer.run(), (progress) => {
    if (progress.phase === "scanning") walked = performance.now();
    if (progress.phase === "indexing" && Number.isNaN(working)) working = performance.now();
  });
  return { forced: [...asked], walked, working };
}

describe("a large first index's heap after its walk", () => {
  it("is collected once, after the walk and before the first file's work", async () => {
    const { forced, walked, working } = await collectionsAndFirstWork(2);
    expect(forced).toHaveLength(1);
    expect(forced[0]).toBeGreaterThan(walked);
    expect(forced[0]).toBeLessThan(working);
  });

  it("is left to V8 on a first index small enough to stay in memory", async () => {
    const { forced } = await collectionsAndFirstWork(1000);
    expect(forced).toEqual([]);
  });
});
