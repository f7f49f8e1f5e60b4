import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compileCacheDirectory } from "../../bin/compile-cache.js";
import { homedir } from "node:os";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

describe("the compile cache", () => {
  it("lives in the user's cache directory, never in a shared one", () => {
    expect(compileCacheDirectory({ XDG_CACHE_HOME: "/data/cache", HOME: "/home/u" })).toBe("/data/cache/sylk/compile-cache");
    expect(compileCacheDirectory({ XDG_CACHE_HOME: " ", HOME: "/home/u" })).toBe("/home/u/.cache/sylk/compile-cache");
    expect(compileCacheDirectory({ HOME: "/home/u", SYLK_HOME: "/home/u/project/.sylk" })).toBe("/home/u/.cache/sylk/compile-cache");
    expect(compileCacheDirectory({ HOME: "" })).toBe(join(homedir(), ".cache", "sylk", "compile-cache"));
  });

  it("is written by a launch, in a directory only the user can read", async () => {
    project = createTempProject({ "a.ts": "export const a = 1;\n" });
    const env: NodeJS.ProcessEnv = { ...project.env, XDG_CACHE_HOME: "" };
    const result = await runCli(["--version"], { cwd: project.root, env });
    expect(result.code).toBe(0);
    const directory = compileCacheDirectory(env);
    expect(directory.startsWith(`${env.HOME ?? "?"}/`)).toBe(true);
    expect(existsSync(directory)).toBe(true);
    expect(statSync(directory).mode & 0o077).toBe(0);
    expect(readdirSync(directory).length).toBeGreaterThan(0);
  });
});
