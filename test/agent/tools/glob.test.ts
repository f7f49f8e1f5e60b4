import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { MAX_GLOB_RESULTS, globTool } from "../../../src/agent/tools/glob.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { scanTree } from "../../../src/indexer/scanner.js";
import { defaultConfig } from "../../../src/config/schema.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const registry = new ToolRegistry([globTool], new PermissionPolicy("default"));
const glob = (input: Record<string, unknown>, signal = new AbortController().signal) =>
  registry.run({ id: "1", name: "glob", input }, { root: project.root, signal, extraDirectories: [] });

/** Sets a file's modification time to `secondsAgo` before now. */
function age(path: string, secondsAgo: number): void {
  const when = Date.now() / 1000 - secondsAgo;
  utimesSync(join(project.root, path), when, when);
}

beforeEach(() => {
  project = createTempProject({
    ".gitignore": "*.log\n",
    ".sylkignore": "fixtures/\n",
    "src/old.ts": "export const old = 1;\n",
    "src/new.ts": "export const fresh = 2;\n",
    "src/deep/mid.ts": "export const mid = 3;\n",
    "src/app.min.js": "minified\n",
    "fixtures/sample.ts": "ignored by .sylkignore\n",
    "node_modules/pkg/index.ts": "dependency\n",
    "dist/out.ts": "build output\n",
    "debug.log": "log\n",
    ".env.ts": "SECRET=1\n",
    "keys/server.pem": "key\n",
  });
  age("src/old.ts", 3000);
  age("src/deep/mid.ts", 2000);
  age("src/new.ts", 1000);
});
afterEach(() => project.cleanup());

describe("glob", () => {
  it("finds files by pattern, newest first", async () => {
    const result = await glob({ pattern: "**/*.ts" });
    expect(result.isError).toBeFalsy();
    expect(result.output.split("\n")).toEqual(["src/new.ts", "src/deep/mid.ts", "src/old.ts"]);
    expect(result.display).toBe("Found 3 files matching **/*.ts in the project root");
    expect((await glob({ pattern: "*.ts", path: "src" })).output).toBe("src/new.ts\nsrc/old.ts");
  });

  it("leaves out what the indexer leaves out: ignore files, excluded directories and patterns, secrets", async () => {
    const everything = (await glob({ pattern: "**" })).output.split("\n");
    expect(everything.sort()).toEqual([".gitignore", ".sylkignore", "src/deep/mid.ts", "src/new.ts", "src/old.ts"]);
  });

  it("finds files too large to index, by name", async () => {
    project.write("data/big.json", `"${"x".repeat(2 << 20)}"`);
    expect((await glob({ pattern: "data/*.json" })).output).toBe("data/big.json");
  });

  it("stays inside the project: no path outside it, no symbolic link followed", async () => {
    const outside = await glob({ pattern: "**", path: "../" });
    expect(outside.isError).toBe(true);
    expect(outside.output).toMatch(/outside the project/i);
    mkdirSync(join(project.root, "..", "elsewhere"), { recursive: true });
    writeFileSync(join(project.root, "..", "elsewhere", "secret.ts"), "outside\n");
    symlinkSync(join(project.root, "..", "elsewhere"), join(project.root, "linked"));
    expect((await glob({ pattern: "linked/**" })).output).toContain('No files match "linked/**"');
  });

  it("returns at most 100 paths and says how many more matched", async () => {
    for (let index = 0; index < MAX_GLOB_RESULTS + 30; index++) project.write(`many/file-${index}.txt`, "x\n");
    const result = await glob({ pattern: "many/*.txt" });
    const lines = result.output.split("\n");
    expect(lines.slice(0, MAX_GLOB_RESULTS).every((line) => line.startsWith("many/file-"))).toBe(true);
    expect(lines.at(-1)).toBe("[30 more files match, not shown: narrow the pattern or the path to see them.]");
    expect(result.display).toBe("Found 130 files matching many/*.txt in the project root");
  });

  it("says when nothing matches, hints at **, and names a missing directory", async () => {
    const none = await glob({ pattern: "*.ts" });
    expect(none.isError).toBeFalsy();
    expect(none.output).toBe(
      'No files match "*.ts" in the project root. A pattern without "/" matches only files directly in the directory; use "**/*.ts" for any depth.',
    );
    const missing = await glob({ pattern: "*.ts", path: "nowhere" });
    expect(missing.isError).toBe(true);
    expect(missing.output).toBe("Directory not found: nowhere. Call glob without a path to search the whole project.");
  });

  it("stops when the call is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await glob({ pattern: "**" }, controller.signal);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/interrupted/i);
  });

  it("the walk under it stops at its next yield once cancelled", async () => {
    for (let index = 0; index < 200; index++) project.write(`tree/d${index}/f.txt`, "x\n");
    const controller = new AbortController();
    const walk = scanTree(project.root, defaultConfig().index, { signal: controller.signal, sliceMs: 0 });
    controller.abort();
    await expect(walk).rejects.toThrow(/abort/i);
  });
});
