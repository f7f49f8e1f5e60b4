import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { IndexProgress } from "../../src/indexer/project-indexer.js";
import { unsyncedMarkPath } from "../../src/store/unsynced-writes.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const services: ProjectServices[] = [];
const projects: TempProject[] = [];
afterEach(async () => {
  for (const opened of services.splice(0)) await opened.close();
  for (const project of projects.splice(0)) project.cleanup();
});

function newProject(): TempProject {
  const files: Record<string, string> = {};
  for (let module = 0; module < 40; module++)
    files[`src/m${module}.ts`] = `export function step${module}(value: number) {\n  return value + ${module};\n}\n`;
  const project = createTempProject(files);
  projects.push(project);
  return project;
}

function open(project: TempProject, segmentedFullTextAboveFiles: number): ProjectServices {
  const opened = openProject({ root: project.root, env: project.env, segmentedFullTextAboveFiles });
  services.push(opened);
  return opened;
}

/** Whether the unsynced writes' mark is there at each progress event of a run with work done, and after it (the connection's `synchronous` goes with it: test/store/unsynced-writes.test.ts). */
async function watchRun(opened: ProjectServices) {
  const mark = unsyncedMarkPath(opened.paths.database);
  const during: boolean[] = [];
  const { result } = await drain(opened.indexer.run(), (progress: IndexProgress) => {
    if (progress.phase === "indexing" && progress.indexed > 0) during.push(existsSync(mark));
  });
  return { result, during, after: existsSync(mark) };
}

describe("a large first index's writes", () => {
  it("run behind the unsynced writes' mark, removed when the run ends", async () => {
    const opened = open(newProject(), 10);
    const { result, during, after } = await watchRun(opened);
    expect(result).toMatchObject({ before: "missing", indexed: 40, failed: 0 });
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((marked) => marked)).toBe(true);
    expect(after).toBe(false);
  });

  it("of a smaller first index, and of a refresh, leave no mark", async () => {
    const project = newProject();
    const small = open(project, 1_000);
    const first = await watchRun(small);
    expect(first.result).toMatchObject({ before: "missing", indexed: 40 });
    expect(first.during.length).toBeGreaterThan(0);
    expect([...first.during, first.after].some((marked) => marked)).toBe(false);

    project.write("src/m0.ts", "export const changed = 1;\n");
    const refresh = await watchRun(small);
    expect(refresh.result).toMatchObject({ indexed: 1 });
    expect([...refresh.during, refresh.after].some((marked) => marked)).toBe(false);
  });
});
