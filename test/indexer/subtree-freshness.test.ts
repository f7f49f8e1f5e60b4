import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { listSubtree } from "../../src/indexer/subtree-freshness.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let services: ProjectServices;

beforeEach(async () => {
  project = createTempProject({
    ".gitignore": "packages/a/build/\n",
    "packages/a/src/one.ts": "export const one = 1;\n",
    "packages/a/src/deep/two.ts": "export const two = 2;\n",
    "packages/a/build/out.js": "built\n",
    "packages/b/three.ts": "export const three = 3;\n",
  });
  // The snapshots must be read after the directories' last change to be trusted (racy window 0 here).
  await new Promise((resolve) => setTimeout(resolve, 20));
  services = openProject({ root: project.root, env: project.env, racyWindowMs: 0 });
  await drainIndex(services);
});
/** Indexes what changed, then once more a moment later: a directory's snapshot recorded in the millisecond it changed is not trusted (racy window 0 here). */
async function indexSettled(): Promise<void> {
  await drainIndex(services);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await drainIndex(services);
}

afterEach(async () => {
  await services.close();
  project.cleanup();
});

const list = (prefix: string) =>
  listSubtree(project.root, services.loadedConfig.config.index, prefix, services.indexer.storedDirectoryStates() ?? new Map(), 0);

describe("listing one part of the tree, or all of it, by the stored directory states", () => {
  it("counts the files the walk takes in an untouched part by name, as many as the manifest's rows there, and finds an ignored one left out", () => {
    expect(list("packages/a")).toEqual({ state: "listed", files: 2 });
    expect(services.files.manifestUnder("packages/a")).toHaveLength(2);
    expect(list("packages/a/build")).toEqual({ state: "left-out" });
    // .gitignore, one.ts, two.ts, three.ts: not build/out.js, which the walk leaves out.
    expect(list("")).toEqual({ state: "listed", files: 4 });
    expect(services.files.manifestUnder("")).toHaveLength(4);
  });

  it("still lists a part where a file changed in place, and cannot tell once a file was added or an ignore file above changed", async () => {
    project.write("packages/a/src/deep/two.ts", "export const two = 22;\n");
    expect(list("packages/a")).toMatchObject({ state: "listed" });
    expect(list("packages/b")).toEqual({ state: "listed", files: 1 });
    project.write("packages/b/four.ts", "export const four = 4;\n");
    expect(list("packages/b")).toBeUndefined();
    expect(list("")).toBeUndefined();
    await indexSettled();
    expect(list("packages/b")).toMatchObject({ state: "listed" });
    project.write(".gitignore", "packages/a/build/\npackages/b/three.ts\n");
    expect(list("packages/b")).toBeUndefined();
  });
});
