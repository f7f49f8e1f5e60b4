import { readdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const FILES = 600;
let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject();
  for (let index = 0; index < FILES; index++)
    project.write(`src/m${index % 7}/module${index}.ts`, `export const value${index} = ${index};\n`);
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

/** The walk's scratch files beside the project's database. */
function scratchFiles(): string[] {
  return readdirSync(services.paths.dataDir).filter((name) => name.startsWith("walk-work-"));
}

describe("a full walk's work in a scratch file", () => {
  it("is held beside the database while the run indexes, and removed when it ends", async () => {
    const during: string[][] = [];
    const { result } = await drain(services.indexer.run(), (progress) => {
      if (progress.phase === "indexing") during.push(scratchFiles());
    });

    expect(result.indexed).toBe(FILES);
    expect(during[0]).toEqual([expect.stringMatching(/^walk-work-\d+-\d+\.db$/)]);
    expect(scratchFiles()).toEqual([]);
  });

  it("is removed by a run stopped part way, and the next run indexes the rest", async () => {
    const controller = new AbortController();
    const { result: stopped } = await drain(services.indexer.run(controller.signal), (progress) => {
      if (progress.phase === "indexing" && progress.indexed > 0) controller.abort();
    });
    expect(stopped.interrupted).toBe(true);
    expect(stopped.indexed).toBeLessThan(FILES);
    expect(scratchFiles()).toEqual([]);

    const { result: resumed } = await drain(services.indexer.run());
    expect(resumed.interrupted).toBe(false);
    expect(stopped.indexed + resumed.indexed).toBe(FILES);
    expect(scratchFiles()).toEqual([]);
  });
});
