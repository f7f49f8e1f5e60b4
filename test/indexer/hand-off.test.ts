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

function open(files: Record<string, string>): ProjectServices {
  project = createTempProject(files);
  services = openProject({ root: project.root, env: project.env });
  return services;
}

describe("a run that hands large work off", () => {
  it("changes nothing and says it handed off when there are more files to index than allowed", async () => {
    const opened = open({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n", "c.ts": "export const c = 3;\n" });
    const { events, result } = await drain(opened.indexer.run(undefined, { handOffAbove: 2 }));
    expect(result).toMatchObject({ handedOff: true, before: "missing", added: 3, indexed: 0, interrupted: false });
    expect(events.map((event) => event.phase)).toEqual(["scanning"]);
    expect(opened.files.isEmpty()).toBe(true);
    // Nothing was remembered of the walk either: the next run (the other process) sees the same work.
    const again = await drain(opened.indexer.run(undefined, { handOffAbove: 2 }));
    expect(again.result).toMatchObject({ handedOff: true, added: 3 });
  });

  it("runs as usual when the work is within the limit", async () => {
    const opened = open({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n" });
    const { result } = await drain(opened.indexer.run(undefined, { handOffAbove: 2 }));
    expect(result.handedOff).toBeUndefined();
    expect(result.indexed).toBe(2);
    expect(opened.files.has("b.ts")).toBe(true);
  });

  it("on a missing index, counts files only as far as the limit and hands off without walking the rest of the tree", async () => {
    const files: Record<string, string> = {};
    for (let directory = 0; directory < 20; directory++) {
      for (let file = 0; file < 10; file++) files[`pkg${directory}/f${file}.ts`] = `export const f${directory}_${file} = 1;\n`;
    }
    const opened = open(files);
    const { result } = await drain(opened.indexer.run(undefined, { handOffAbove: 15 }));
    expect(result).toMatchObject({ handedOff: true, before: "missing", indexed: 0, interrupted: false });
    // The walk stopped in the second package directory of twenty.
    expect(result.added).toBeGreaterThan(15);
    expect(result.added).toBeLessThanOrEqual(20);
    expect(opened.files.isEmpty()).toBe(true);
  });

  it("on an existing index, compares the whole tree and hands off a large change", async () => {
    const files: Record<string, string> = { "keep.ts": "export const keep = 1;\n" };
    const opened = open(files);
    await drain(opened.indexer.run());
    for (let file = 0; file < 5; file++) project?.write(`more/f${file}.ts`, `export const f${file} = 1;\n`);
    const { result } = await drain(opened.indexer.run(undefined, { handOffAbove: 3 }));
    expect(result).toMatchObject({ handedOff: true, before: "stale", scanned: 6, added: 5, indexed: 0 });
    expect(opened.files.has("more/f0.ts")).toBe(false);
  });

  it("a missing index within the limit is indexed here, every file of it", async () => {
    const files: Record<string, string> = {};
    for (let directory = 0; directory < 3; directory++) files[`pkg${directory}/f.ts`] = `export const f${directory} = 1;\n`;
    const opened = open(files);
    const { result } = await drain(opened.indexer.run(undefined, { handOffAbove: 3 }));
    expect(result).toMatchObject({ before: "missing", scanned: 3, indexed: 3 });
    expect(result.handedOff).toBeUndefined();
  });
});
