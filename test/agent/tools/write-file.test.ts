import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { writeFileTool } from "../../../src/agent/tools/write-file.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const registry = new ToolRegistry([writeFileTool], new PermissionPolicy("bypass"));
const write = (input: Record<string, unknown>) =>
  registry.run({ id: "1", name: "write_file", input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });
const contentOf = (path: string) => readFileSync(join(project.root, path), "utf8");

beforeEach(() => {
  project = createTempProject({ "notes.txt": "one\ntwo\nthree\n" });
});
afterEach(() => project.cleanup());

describe("write_file", () => {
  it("creates a file and its parent directories", async () => {
    const result = await write({ path: "src/deep/new.ts", content: "export const a = 1;\nexport const b = 2;\n" });
    expect(result.isError).toBeFalsy();
    expect(contentOf("src/deep/new.ts")).toBe("export const a = 1;\nexport const b = 2;\n");
    expect(result.output).toBe("Created src/deep/new.ts (2 lines)");
    expect(result.display).toBe("Created src/deep/new.ts (2 lines)");
    expect(result.diff).toContain("+export const b = 2;");
    expect(result.relatedFiles).toEqual(["src/deep/new.ts"]);
  });

  it("overwrites a file and returns the diff against its previous content", async () => {
    const result = await write({ path: "notes.txt", content: "one\n2\nthree\n" });
    expect(contentOf("notes.txt")).toBe("one\n2\nthree\n");
    expect(result.display).toBe("Wrote notes.txt (+1 −1)");
    expect(result.diff).toBe("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    expect(result.output).toBe(`Wrote notes.txt (+1 −1)\n\n${result.diff}`);
  });

  it("writes the real bytes, and masks the secrets of both versions in the result's diff", async () => {
    const before = 'const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";\n';
    const after = 'const token = "ghp_Ab1Cd2Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";\nconst url = "postgres://admin:s3cretpass@db/app";\n';
    project.write("src/config.ts", before);
    const overwrite = await write({ path: "src/config.ts", content: after });
    expect(contentOf("src/config.ts")).toBe(after);
    expect(overwrite.display).toBe("Wrote src/config.ts (+2 −1)");
    expect(overwrite.output).not.toMatch(/ghp_\w|s3cretpass/);
    expect(overwrite.diff).toContain('+const url = "postgres://admin:[REDACTED:url-credentials]@db/app";');
    const created = await write({ path: "src/new.ts", content: after });
    expect(contentOf("src/new.ts")).toBe(after);
    expect(created.diff).toContain('+const token = "[REDACTED:github-token]";');
    expect(created.diff).not.toMatch(/ghp_\w|s3cretpass/);
  });

  it("says when the content is unchanged", async () => {
    const result = await write({ path: "notes.txt", content: "one\ntwo\nthree\n" });
    expect(result.output).toContain("nothing was written");
  });

  it("refuses a directory, secret files and paths outside the project", async () => {
    mkdirSync(join(project.root, "dir"));
    expect((await write({ path: "dir", content: "x" })).output).toContain("not a regular file");
    const secret = await write({ path: "config/.env.local", content: "A=1" });
    expect(secret.isError).toBe(true);
    expect(existsSync(join(project.root, "config/.env.local"))).toBe(false);
    const outsideDirectory = join(dirname(project.root), "outside");
    mkdirSync(outsideDirectory);
    symlinkSync(outsideDirectory, join(project.root, "link"));
    for (const path of ["../evil.txt", join(outsideDirectory, "abs.txt"), "link/evil.txt"]) {
      const result = await write({ path, content: "x" });
      expect(result.isError, path).toBe(true);
      expect(result.output).toContain("outside the project");
    }
    expect(existsSync(join(dirname(project.root), "evil.txt"))).toBe(false);
    expect(existsSync(join(outsideDirectory, "evil.txt"))).toBe(false);
    expect(existsSync(join(outsideDirectory, "abs.txt"))).toBe(false);
  });
});
