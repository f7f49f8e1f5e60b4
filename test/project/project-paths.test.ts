import { mkdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject } from "../../src/app/project-services.js";
import { checkedSylkHome, resolveProjectPaths, sylkHome } from "../../src/project/project-paths.js";
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

describe("$SYLK_HOME", () => {
  it("empty or blank means unset: ~/.sylk, never the working directory", () => {
    for (const value of ["", "   ", "\t"]) expect(sylkHome({ SYLK_HOME: value, HOME: "/home/ada" })).toBe("/home/ada/.sylk");
    expect(sylkHome({ SYLK_HOME: "/data/sylk", HOME: "/home/ada" })).toBe("/data/sylk");
    expect(sylkHome({ HOME: "" })).not.toBe(join(process.cwd(), ".sylk"));
  });

  it("is refused inside the project, or as the project, naming the variable", () => {
    const root = realpathSync(project.root);
    for (const home of [join(root, "data"), root, join(root, "..", "project", "deep", "er")]) {
      expect(() => resolveProjectPaths(root, { ...project.env, SYLK_HOME: home })).toThrow(
        /^SYLK_HOME \(.*\) is inside the project .*Set SYLK_HOME to a directory outside the project/,
      );
    }
    expect(checkedSylkHome(root, { ...project.env, SYLK_HOME: join(root, "..", "project-data") })).toEqual({
      home: join(root, "..", "project-data"),
    });
  });

  it("is the default ~/.sylk inside a project at or above the home directory: allowed, and named for the index and the tools to leave out", () => {
    const home = realpathSync(join(project.root, ".."));
    const env = { HOME: home };
    expect(resolveProjectPaths(home, env)).toMatchObject({ sylkHome: join(home, ".sylk"), sylkHomeInProject: ".sylk" });
    expect(checkedSylkHome(join(home, ".."), env).inProject).toBe(`${home.split("/").at(-1)}/.sylk`);
    expect(resolveProjectPaths(project.root, env).sylkHomeInProject).toBeUndefined();
    // Chosen, not defaulted, it is refused like any other: the user can put it elsewhere.
    expect(() => resolveProjectPaths(home, { HOME: home, SYLK_HOME: join(home, "other") })).toThrow(/SYLK_HOME/);
  });
});
