import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createGrepTool } from "../../../src/agent/tools/grep.js";
import { Ripgrep } from "../../../src/agent/tools/grep-ripgrep.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { ForegroundWork } from "../../../src/indexer/foreground-work.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const ripgrep = Ripgrep.onPath(process.env);
let registry: ToolRegistry;
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

/**
 * Every case twice: with the files listed by the built-in walk, and by
 * ripgrep (where it is installed): the same files, the same answers.
 */
describe.each([
  { lister: "the built-in walk", ripgrep: undefined },
  { lister: "ripgrep", ripgrep },
])("grep, listing with $lister", ({ lister, ripgrep: listing }) => {
  beforeEach((context) => {
    if (lister === "ripgrep" && !listing) context.skip("rg is not on the PATH");
    registry = new ToolRegistry([createGrepTool(listing ? { ripgrep: listing } : {})], new PermissionPolicy("bypass"));
  });

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
    expect(result.output.split("\n")).toEqual([
      "src/jwt.ts:1: export function verify(user: User) {",
      "src/notes.md:1: Login flow: call login() then VERIFY.",
    ]);
    expect((await grep({ pattern: "= 2;$", path: "src/crlf.ts" })).output).toBe("src/crlf.ts:2: const verifyCrlf = 2;");
  });

  it("filters by glob on the file name at any depth, or by path glob", async () => {
    expect((await grep({ pattern: "login", glob: "*.md", ignore_case: true })).output).toBe(
      "src/notes.md:1: Login flow: call login() then VERIFY.",
    );
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

  it("stops a pattern that backtracks for ever after the budget on one file, keeping what it found before", async () => {
    project.write("slow/a-first.txt", "aaaa\n");
    project.write("slow/b-catastrophic.txt", `${"a".repeat(40)}!\n`);
    project.write("slow/c-after.txt", "aaa\n");
    const started = performance.now();
    const result = await grep({ pattern: "(a+)+$", path: "slow" });
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      "slow/a-first.txt:1: aaaa\n\n" +
        "[grep stopped: the pattern /(a+)+$/ took longer than 3 s on slow/b-catastrophic.txt; simplify it " +
        "(nested quantifiers such as (a+)+ or (.*)* can backtrack for ever on a line that almost matches), or narrow path or glob. " +
        "slow/b-catastrophic.txt and the files after it were not searched; the matches above were found before it.]",
    );
    expect(result.display).toBe("Stopped: /(a+)+$/ took too long on slow/b-catastrophic.txt");
    // The stopped thread is replaced: the next search works.
    expect((await grep({ pattern: "aaa", path: "slow/c-after.txt" })).output).toBe("slow/c-after.txt:1: aaa");
  });

  it("is cancelled at once by its signal (Esc), even in the middle of a backtrack", async () => {
    project.write("catastrophic.txt", `${"a".repeat(40)}!\n`);
    const controller = new AbortController();
    const running = registry.run(
      { id: "1", name: "grep", input: { pattern: "(a+)+$" } },
      { root: project.root, signal: controller.signal, extraDirectories: [] },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const aborted = performance.now();
    controller.abort();
    const result = await running;
    expect(performance.now() - aborted).toBeLessThan(400);
    expect(result).toMatchObject({ isError: true, output: "grep was cancelled." });
  });

  it("matches what the model may see: a secret's value finds nothing, and the masked marker is what a match shows", async () => {
    project.write("aws.ts", 'const awsKey = "AKIAIOSFODNN7EXAMPLE";\n');
    const none = "No matches for /AKIAIOSFODNN7EXAMPLE/ in aws.ts.";
    expect((await grep({ pattern: "AKIAIOSFODNN7EXAMPLE", path: "aws.ts" })).output).toBe(none);
    expect((await grep({ pattern: "AKIAIOSFODNN7EXAMPLX", path: "aws.ts" })).output).toBe(none.replace("EXAMPLE/", "EXAMPLX/"));
    expect((await grep({ pattern: "AKIA", path: "aws.ts" })).output).toBe("No matches for /AKIA/ in aws.ts.");
    const shown = 'aws.ts:1: const awsKey = "[REDACTED:aws-access-key-id]";';
    expect((await grep({ pattern: "awsKey", path: "aws.ts" })).output).toBe(shown);
    // A guess about the value cannot be told right from wrong by what comes back.
    for (const guess of ["AKIAIOSF", "AKIAXXXX"]) {
      expect((await grep({ pattern: `awsKey(?!.*${guess})`, path: "aws.ts" })).output, guess).toBe(shown);
      expect((await grep({ pattern: `${guess}|REDACTED`, path: "aws.ts" })).output, guess).toBe(shown);
    }
  });

  it("masks a file again once it changes, after a search that found it clean", async () => {
    project.write("later.ts", "const awsKey = process.env.AWS_KEY;\n");
    expect((await grep({ pattern: "awsKey", path: "later.ts" })).output).toBe("later.ts:1: const awsKey = process.env.AWS_KEY;");
    project.write("later.ts", 'const awsKey = "AKIAIOSFODNN7EXAMPLE";\n');
    expect((await grep({ pattern: "AKIAIOSFODNN7EXAMPLE" })).output).toBe("No matches for /AKIAIOSFODNN7EXAMPLE/.");
    expect((await grep({ pattern: "awsKey", path: "later.ts" })).output).toBe('later.ts:1: const awsKey = "[REDACTED:aws-access-key-id]";');
  });

  it("skips a named pipe instead of waiting on it, refuses one named outright, and serves two searches at once", async () => {
    execFileSync("mkfifo", [`${project.root}/src/pipe`]);
    const started = performance.now();
    const [everything, named] = await Promise.all([
      grep({ pattern: "verify", path: "src" }),
      grep({ pattern: "verify", path: "src/pipe" }),
    ]);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(everything.output.split("\n")).toHaveLength(4);
    expect(named.isError).toBe(true);
    expect(named.output).toBe("src/pipe is a FIFO (named pipe), not a file or directory; grep reads only regular files.");
  });
});

describe("grep as work the user waits on", () => {
  it("runs each search, listing and matching both, as foreground work (a first index in its own process pauses meanwhile)", async () => {
    const foreground = new ForegroundWork();
    const told: boolean[] = [];
    foreground.onChange((busy) => told.push(busy));
    let busyWhileListing = false;
    const registryWithForeground = new ToolRegistry(
      [
        createGrepTool({
          foreground,
          index: {
            files: async () => {
              busyWhileListing = foreground.busy;
              return undefined; // the walk lists the files then
            },
          },
        }),
      ],
      new PermissionPolicy("bypass"),
    );
    const result = await registryWithForeground.run(
      { id: "1", name: "grep", input: { pattern: "verify", path: "src/jwt.ts" } },
      { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
    );
    expect(result.output).toBe("src/jwt.ts:1: export function verify(user: User) {");
    const whole = await registryWithForeground.run(
      { id: "2", name: "grep", input: { pattern: "Boolean" } },
      { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
    );
    expect(whole.output).toBe("src/jwt.ts:2:   return Boolean(user);");
    expect(busyWhileListing).toBe(true);
    expect(told).toEqual([true, false, true, false]);
    expect(foreground.busy).toBe(false);
  });
});
