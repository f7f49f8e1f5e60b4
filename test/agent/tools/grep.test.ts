import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { grepTool } from "../../../src/agent/tools/grep.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const registry = new ToolRegistry([grepTool], new PermissionPolicy("bypass"));
const grep = (input: Record<string, unknown>) =>
  registry.run({ id: "1", name: "grep", input }, { root: project.root, signal: new AbortController().signal, extraDirectories: [] });

const KEY = `sk-ant-${"abcdEFGH1234".repeat(3)}`;

beforeEach(() => {
  project = createTempProject({
    ".gitignore": "ignored/\n",
    "src/auth.ts": "import { verify } from './jwt';\nexport function login(user: User) {\n  return verify(user);\n}\n",
    "src/jwt.ts": "export function verify(user: User) {\n  return Boolean(user);\n}\n",
    "src/notes.md": "Login flow: call login() then VERIFY.\n",
    "src/crlf.ts": "const a = 1;\r\nconst verifyCrlf = 2;\r\n",
    "ignored/copy.ts": "export function verify() {}\n",
    "node_modules/lib/index.js": "function verify() {}\n",
    ".env": "VERIFY_TOKEN=verify\n",
    "config.ts": `const apiKey = "${KEY}"; // verify\n`,
  });
  project.write("blob.bin", new Uint8Array([118, 101, 114, 105, 102, 121, 0, 1, 2]));
});
afterEach(() => project.cleanup());

describe("grep", () => {
  it("returns path:line: text for each match, skipping ignored, secret and binary files", async () => {
    const result = await grep({ pattern: "verify" });
    expect(result.isError).toBeFalsy();
    expect(result.output.split("\n")).toEqual([
      `config.ts:1: const apiKey = "[REDACTED:assigned-secret]"; // verify`,
      "src/auth.ts:1: import { verify } from './jwt';",
      "src/auth.ts:3:   return verify(user);",
      "src/crlf.ts:2: const verifyCrlf = 2;",
      "src/jwt.ts:1: export function verify(user: User) {",
    ]);
    expect(result.output).not.toContain(KEY);
    expect(result.display).toBe("Found 5 matches in 4 files");
    expect(result.relatedFiles).toEqual(["config.ts", "src/auth.ts", "src/crlf.ts", "src/jwt.ts"]);
  });

  it("matches case-insensitively and anchors at line ends in CRLF files", async () => {
    const result = await grep({ pattern: "^export function verify|verify\\.$", ignore_case: true, path: "src" });
    expect(result.output.split("\n")).toEqual(["src/jwt.ts:1: export function verify(user: User) {", "src/notes.md:1: Login flow: call login() then VERIFY."]);
    expect((await grep({ pattern: "= 2;$", path: "src/crlf.ts" })).output).toBe("src/crlf.ts:2: const verifyCrlf = 2;");
  });

  it("filters by glob on the file name at any depth, or by path glob", async () => {
    expect((await grep({ pattern: "login", glob: "*.md", ignore_case: true })).output).toBe("src/notes.md:1: Login flow: call login() then VERIFY.");
    expect((await grep({ pattern: "verify\\(", glob: "src/j*.ts" })).output).toBe("src/jwt.ts:1: export function verify(user: User) {");
  });

  it("searches a file named in path even when the scanner would skip it", async () => {
    expect((await grep({ pattern: "verify", path: "ignored/copy.ts" })).output).toBe("ignored/copy.ts:1: export function verify() {}");
  });

  it("explains an invalid regular expression", async () => {
    const result = await grep({ pattern: "verify(" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain('Invalid regular expression "verify("');
    expect(result.output).toContain("escape");
  });

  it("says when nothing matches", async () => {
    const result = await grep({ pattern: "nothing-here" });
    expect(result.isError).toBeFalsy();
    expect(result.output).toBe("No matches for /nothing-here/.");
  });

  it("cuts long lines at 300 characters and caps the number of results", async () => {
    project.write("long.txt", `needle ${"x".repeat(1000)}\n`);
    const [line] = (await grep({ pattern: "needle", path: "long.txt" })).output.split("\n");
    expect(line).toBe(`long.txt:1: needle ${"x".repeat(293)}…`);
    project.write("many.txt", "hit\n".repeat(50));
    const capped = await grep({ pattern: "hit", path: "many.txt", max_results: 10 });
    expect(capped.output.split("\n").slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, index) => `many.txt:${index + 1}: hit`));
    expect(capped.output).toContain("[Stopped at 10 matches; there are more.");
    expect(capped.display).toBe("Found 10+ matches in 1 file");
  });

  it("refuses paths outside the project and secret files", async () => {
    writeFileSync(join(dirname(project.root), "outside.ts"), "verify\n");
    for (const path of ["../outside.ts", "/etc/passwd"]) {
      const result = await grep({ pattern: "verify", path });
      expect(result.isError, path).toBe(true);
      expect(result.output).toContain("outside the project");
    }
    const secret = await grep({ pattern: "verify", path: ".env" });
    expect(secret.isError).toBe(true);
    expect(secret.output).toContain("secrets");
  });
});
