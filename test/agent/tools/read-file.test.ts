import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { readFileTool } from "../../../src/agent/tools/read-file.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const registry = new ToolRegistry([readFileTool], new PermissionPolicy("bypass"));
const read = (input: Record<string, unknown>) =>
  registry.run({ id: "1", name: "read_file", input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });

const TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;

beforeEach(() => {
  project = createTempProject({
    "src/a.ts": "one\ntwo\nthree\n",
    "src/crlf.txt": "first\r\nsecond\r\n",
    "long.txt": Array.from({ length: 3000 }, (_, index) => `line ${index + 1}`).join("\n"),
    "config.ts": `export const token = "${TOKEN}";\n`,
    ".env": "API_KEY=abc\n",
    "empty.txt": "",
  });
});
afterEach(() => project.cleanup());

describe("read_file", () => {
  it("returns numbered lines in the cat -n style", async () => {
    const result = await read({ path: "src/a.ts" });
    expect(result.isError).toBeFalsy();
    expect(result.output).toBe("     1\tone\n     2\ttwo\n     3\tthree");
    expect(result.display).toBe("Read src/a.ts (3 lines)");
    expect(result.relatedFiles).toEqual(["src/a.ts"]);
  });

  it("shows CRLF lines without their carriage returns", async () => {
    expect((await read({ path: "src/crlf.txt" })).output).toBe("     1\tfirst\n     2\tsecond");
  });

  it("reads 2000 lines by default and says how to read more", async () => {
    const result = await read({ path: "long.txt" });
    const lines = result.output.split("\n");
    expect(lines[0]).toBe("     1\tline 1");
    expect(lines).toContain("  2000\tline 2000");
    expect(result.output).not.toContain("line 2001");
    expect(result.output).toContain("[Showing lines 1-2000 of 3000. Call read_file with offset 2001 to read more.]");
  });

  it("reads a window with offset and limit", async () => {
    const result = await read({ path: "long.txt", offset: 2990, limit: 3 });
    expect(result.output.split("\n").slice(0, 3)).toEqual(["  2990\tline 2990", "  2991\tline 2991", "  2992\tline 2992"]);
    expect(result.output).toContain("offset 2993");
    const end = await read({ path: "long.txt", offset: 2999 });
    expect(end.output).toBe("  2999\tline 2999\n  3000\tline 3000");
  });

  it("rejects a limit above 5000 and an offset past the end", async () => {
    const tooMany = await read({ path: "long.txt", limit: 6000 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.output).toContain("limit");
    const past = await read({ path: "src/a.ts", offset: 10 });
    expect(past.isError).toBe(true);
    expect(past.output).toContain("has 3 lines");
  });

  it("says so for an empty file", async () => {
    expect((await read({ path: "empty.txt" })).output).toBe("empty.txt is empty.");
  });

  it("masks secret values", async () => {
    const result = await read({ path: "config.ts" });
    expect(result.output).toContain("[REDACTED:github-token]");
    expect(result.output).not.toContain(TOKEN);
  });

  it("masks a megabyte built against the URL rule in well under its deadline", async () => {
    // A run that the scheme's pattern matches from every position: quadratic masking took 55 s on a quarter of it.
    const url = "postgres://admin:s3cretpass@db.example.com/app";
    project.write("adversarial.txt", `${"a.".repeat(500_000)}\n${url}\n`);
    const started = performance.now();
    const result = await read({ path: "adversarial.txt" });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.isError).toBeFalsy();
    expect(result.output.split("\n")[1]).toBe("     2\tpostgres://admin:[REDACTED:url-credentials]@db.example.com/app");
    expect(result.output).not.toContain("s3cretpass");
  }, 60_000);

  it("refuses secret files", async () => {
    const result = await read({ path: ".env" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("secrets");
    expect(result.output).not.toContain("abc");
  });

  it("refuses binary files and directories with a hint", async () => {
    project.write("image.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const binary = await read({ path: "image.png" });
    expect(binary.isError).toBe(true);
    expect(binary.output).toContain("binary");
    const directory = await read({ path: "src" });
    expect(directory.isError).toBe(true);
    expect(directory.output).toContain("list_files");
  });

  it("says when a file does not exist", async () => {
    const result = await read({ path: "missing.ts" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("File not found: missing.ts");
  });

  it("refuses paths outside the project, symbolic links included", async () => {
    const outside = join(dirname(project.root), "outside.txt");
    writeFileSync(outside, "outside secret\n");
    mkdirSync(join(project.root, "links"));
    symlinkSync(outside, join(project.root, "links", "link.txt"));
    for (const path of ["../outside.txt", "/etc/passwd", "links/link.txt"]) {
      const result = await read({ path });
      expect(result.isError, path).toBe(true);
      expect(result.output, path).toContain("outside the project");
    }
  });
});
