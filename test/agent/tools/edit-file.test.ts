import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { editFileTool } from "../../../src/agent/tools/edit-file.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const registry = new ToolRegistry([editFileTool], new PermissionPolicy("bypass"));
const edit = (input: Record<string, unknown>) =>
  registry.run({ id: "1", name: "edit_file", input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });
const contentOf = (path: string) => readFileSync(join(project.root, path), "utf8");

const SOURCE =
  "import x from 'x';\n\nexport function add(a, b) {\n  return a + b;\n}\n\nconst total = add(1, 2);\nconst again = add(3, 4);\n";

beforeEach(() => {
  project = createTempProject({ "src/math.ts": SOURCE, "win.txt": "alpha\r\nbeta\r\ngamma\r\n", ".env": "A=1\n" });
});
afterEach(() => project.cleanup());

describe("edit_file", () => {
  it("replaces one exact occurrence and returns a unified diff", async () => {
    const result = await edit({ path: "src/math.ts", old_string: "  return a + b;", new_string: "  const sum = a + b;\n  return sum;" });
    expect(result.isError).toBeFalsy();
    expect(contentOf("src/math.ts")).toBe(SOURCE.replace("  return a + b;", "  const sum = a + b;\n  return sum;"));
    expect(result.display).toBe("Edited src/math.ts (+2 −1)");
    expect(result.diff).toBe(
      "--- a/src/math.ts\n+++ b/src/math.ts\n@@ -1,7 +1,8 @@\n import x from 'x';\n \n export function add(a, b) {\n" +
        "-  return a + b;\n+  const sum = a + b;\n+  return sum;\n }\n \n const total = add(1, 2);\n",
    );
    expect(result.output).toBe(`Edited src/math.ts (+2 −1).\n\n${result.diff}`);
    expect(result.relatedFiles).toEqual(["src/math.ts"]);
  });

  it("masks the file's secrets in the result's diff, context lines inside a key block included, and writes the real bytes", async () => {
    const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";
    const keyLines = Array.from({ length: 8 }, (_, index) => `MIIEkeyMaterialLine${index}AbCdEfGhIjKlMnOp`);
    const file = [
      "const a = 1;",
      "const key = `-----BEGIN RSA PRIVATE KEY-----",
      ...keyLines,
      "-----END RSA PRIVATE KEY-----`;",
      `const token = "${token}";`,
      "const target = 1;",
      "const after = 2;",
      "",
    ].join("\n");
    project.write("src/keys.ts", file);
    const result = await edit({ path: "src/keys.ts", old_string: "const target = 1;", new_string: "const target = 2;" });
    expect(result.isError).toBeFalsy();
    expect(contentOf("src/keys.ts")).toBe(file.replace("const target = 1;", "const target = 2;"));
    expect(result.display).toBe("Edited src/keys.ts (+1 −1)");
    // The hunk starts inside the key block: its first line is not in the diff, yet the key's lines are masked.
    expect(result.diff).toBe(
      "--- a/src/keys.ts\n+++ b/src/keys.ts\n@@ -10,5 +10,5 @@\n [REDACTED:private-key]\n [REDACTED:private-key]`;\n" +
        ' const token = "[REDACTED:github-token]";\n-const target = 1;\n+const target = 2;\n const after = 2;\n',
    );
    expect(result.output).toBe(`Edited src/keys.ts (+1 −1).\n\n${result.diff}`);
  });

  it("shows a secret replaced by another as a change, though both read masked", async () => {
    project.write("src/token.ts", 'const token = "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";\n');
    const result = await edit({ path: "src/token.ts", old_string: "Zx9Yw8", new_string: "Ab1Cd2" });
    expect(result.display).toBe("Edited src/token.ts (+1 −1)");
    expect(result.diff).toContain('-const token = "[REDACTED:github-token]";\n+const token = "[REDACTED:github-token]";');
    expect(result.output).not.toMatch(/ghp_\w/);
  });

  it("tells the model to read the file first when old_string is not found", async () => {
    const result = await edit({ path: "src/math.ts", old_string: "return a+b;", new_string: "return b + a;" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("Read the file with read_file first and copy the text exactly, including whitespace");
    expect(contentOf("src/math.ts")).toBe(SOURCE);
  });

  it("refuses an ambiguous old_string with the count, unless replace_all", async () => {
    const ambiguous = await edit({ path: "src/math.ts", old_string: "add(", new_string: "sum(" });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.output).toContain("occurs 3 times");
    expect(ambiguous.output).toContain("replace_all");
    expect(contentOf("src/math.ts")).toBe(SOURCE);

    const all = await edit({ path: "src/math.ts", old_string: "add(", new_string: "sum(", replace_all: true });
    expect(all.isError).toBeFalsy();
    expect(all.output).toContain("Replaced 3 occurrences.");
    expect(contentOf("src/math.ts")).toBe(SOURCE.replaceAll("add(", "sum("));
  });

  it("refuses identical strings", async () => {
    const result = await edit({ path: "src/math.ts", old_string: "add", new_string: "add", replace_all: true });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("identical");
  });

  it("inserts replacement text literally", async () => {
    await edit({ path: "src/math.ts", old_string: "import x from 'x';", new_string: "const pattern = '$&$1';" });
    expect(contentOf("src/math.ts").startsWith("const pattern = '$&$1';\n")).toBe(true);
  });

  it("keeps CRLF line endings, whether the strings use LF or CRLF", async () => {
    const result = await edit({ path: "win.txt", old_string: "beta\ngamma", new_string: "BETA\nnew\ngamma" });
    expect(result.isError).toBeFalsy();
    expect(contentOf("win.txt")).toBe("alpha\r\nBETA\r\nnew\r\ngamma\r\n");
    expect(result.diff).not.toContain("\r");
    await edit({ path: "win.txt", old_string: "alpha\r\nBETA", new_string: "ALPHA\r\nBETA" });
    expect(contentOf("win.txt")).toBe("ALPHA\r\nBETA\r\nnew\r\ngamma\r\n");
  });

  it("refuses missing files, secret files and paths outside the project", async () => {
    const missing = await edit({ path: "src/nope.ts", old_string: "a", new_string: "b" });
    expect(missing.output).toContain("write_file");
    const secret = await edit({ path: ".env", old_string: "A=1", new_string: "A=2" });
    expect(secret.isError).toBe(true);
    expect(secret.output).toContain("secrets");
    expect(contentOf(".env")).toBe("A=1\n");
    const outside = join(dirname(project.root), "outside.txt");
    writeFileSync(outside, "hello\n");
    for (const path of ["../outside.txt", outside]) {
      const result = await edit({ path, old_string: "hello", new_string: "bye" });
      expect(result.isError).toBe(true);
      expect(result.output).toContain("outside the project");
    }
    expect(readFileSync(outside, "utf8")).toBe("hello\n");
  });
});
