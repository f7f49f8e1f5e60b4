import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { listFilesTool } from "../../../src/agent/tools/list-files.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const registry = new ToolRegistry([listFilesTool], new PermissionPolicy("bypass"));
const list = (input: Record<string, unknown>) =>
  registry.run({ id: "1", name: "list_files", input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });

beforeEach(() => {
  project = createTempProject({
    ".gitignore": "dist/\n*.log\n",
    "README.md": "# readme\n",
    "src/a.ts": "export const a = 1;\n",
    "src/b.js": "exports.b = 2;\n",
    "src/deep/c.ts": "export const c = 3;\n",
    "src/.gitignore": "generated/\n",
    "src/generated/g.ts": "export const g = 0;\n",
    ".github/workflows/ci.yml": "on: push\n",
    "node_modules/x/index.js": "module.exports = 1;\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    "dist/out.js": "built\n",
    "debug.log": "log\n",
    ".env": "A=1\n",
    "keys/id_rsa": "key\n",
  });
});
afterEach(() => project.cleanup());

describe("list_files", () => {
  it("lists every file, sorted, honouring .gitignore files and leaving out secrets", async () => {
    const result = await list({});
    expect(result.isError).toBeFalsy();
    expect(result.output.split("\n")).toEqual([
      ".github/workflows/ci.yml",
      ".gitignore",
      "README.md",
      "src/.gitignore",
      "src/a.ts",
      "src/b.js",
      "src/deep/c.ts",
    ]);
    expect(result.display).toBe("Listed 7 files matching **/* in the project root");
  });

  it("filters by glob, relative to the directory, and answers with root-relative paths", async () => {
    expect((await list({ pattern: "**/*.ts" })).output).toBe("src/a.ts\nsrc/deep/c.ts");
    expect((await list({ pattern: "*.md" })).output).toBe("README.md");
    expect((await list({ pattern: "*.ts", path: "src" })).output).toBe("src/a.ts");
    expect((await list({ pattern: "**/*.ts", path: "./src/deep" })).output).toBe("src/deep/c.ts");
  });

  it("says when nothing matches and hints at **", async () => {
    const result = await list({ pattern: "*.py" });
    expect(result.isError).toBeFalsy();
    expect(result.output).toContain('No files match "*.py"');
    expect(result.output).toContain("**/*.py");
  });

  it("caps the answer at 1000 paths with a note", async () => {
    for (let index = 0; index < 1005; index++) project.write(`many/f${String(index).padStart(4, "0")}.txt`, "x");
    const result = await list({ pattern: "many/**" });
    const lines = result.output.split("\n");
    expect(lines.slice(0, 1000)).toHaveLength(1000);
    expect(lines[999]).toBe("many/f0999.txt");
    expect(result.output).toContain("[Showing the first 1000 of 1005 files.");
  });

  it("refuses directories outside the project and files", async () => {
    for (const path of ["..", "/etc"]) {
      const result = await list({ path });
      expect(result.isError, path).toBe(true);
      expect(result.output).toContain("outside the project");
    }
    const file = await list({ path: "README.md" });
    expect(file.isError).toBe(true);
    expect(file.output).toContain("read_file");
  });

  it("does not follow a symbolic link out of the project", async () => {
    const outside = join(dirname(project.root), "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "leak.txt"), "x");
    symlinkSync(outside, join(project.root, "link"));
    expect((await list({})).output).not.toContain("leak.txt");
    expect((await list({ path: "link" })).output).toContain("outside the project");
  });
});
