import { mkdirSync, statSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject } from "../../src/app/project-services.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject({ "a.ts": "export const a = 1;\n" });
});
afterEach(() => project.cleanup());

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the project's data directory", () => {
  it("is the user's alone: it holds the code, every conversation and the warm-index socket", async () => {
    const services = openProject({ root: project.root, env: project.env });
    await services.close();
    const paths = resolveProjectPaths(project.root, project.env);
    expect(modeOf(paths.dataDir)).toBe(0o700);
    expect(modeOf(`${paths.sylkHome}/projects`)).toBe(0o700);
  });

  it("is narrowed when an older version made it readable by others", async () => {
    const paths = resolveProjectPaths(project.root, project.env);
    mkdirSync(paths.dataDir, { recursive: true, mode: 0o755 });
    expect(modeOf(paths.dataDir)).toBe(0o755);
    const services = openProject({ root: project.root, env: project.env });
    await services.close();
    expect(modeOf(paths.dataDir)).toBe(0o700);
  });
});
