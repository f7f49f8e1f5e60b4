import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createRunCommandTool } from "../../../src/agent/tools/run-command.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { isRunning } from "../../helpers/process-state.js";
import { unsandboxedCommands } from "../../helpers/unsandboxed-commands.js";

const runCommandTool = createRunCommandTool(unsandboxedCommands);

let project: TempProject;
const registry = new ToolRegistry([runCommandTool], new PermissionPolicy("bypass"));
const run = (input: Record<string, unknown>, signal = new AbortController().signal) =>
  registry.run({ id: "1", name: "run_command", input }, { root: project.root, signal, extraDirectories: [] });

beforeAll(() => {
  project = createTempProject({ "a.txt": "hello\n" });
});
afterAll(() => project.cleanup());
afterEach(() => {
  delete process.env.SYLK_TEST_API_TOKEN;
  delete process.env.SYLK_TEST_PLAIN;
});

describe("run_command", () => {
  it("runs in the project root and ends with the exit code", async () => {
    const result = await run({ command: "cat a.txt && pwd", description: "Show a file" });
    expect(result.isError).toBe(false);
    expect(result.output).toBe(`hello\n${realpathSync(project.root)}\n\nexit code: 0`);
    expect(result.display).toBe("Show a file (exit 0)");
  });

  it("marks a non-zero exit code as an error", async () => {
    const result = await run({ command: "echo failing >&2; exit 3" });
    expect(result.isError).toBe(true);
    expect(result.output).toBe("failing\n\nexit code: 3");
  });

  it("interleaves stdout and stderr in arrival order and closes stdin", async () => {
    const result = await run({ command: "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three; cat" });
    expect(result.output).toBe("one\ntwo\nthree\n\nexit code: 0");
  });

  it("says when there is no output", async () => {
    expect((await run({ command: "true" })).output).toBe("(no output)\n\nexit code: 0");
  });

  it("kills the process group on timeout", async () => {
    const started = Date.now();
    const result = await run({ command: "sleep 30 & echo $! > child.pid; sleep 5", timeout_ms: 200 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("timed out after 200 ms");
    const child = Number(readFileSync(join(project.root, "child.pid"), "utf8"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isRunning(child)).toBe(false);
  });

  it("kills the command when the signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await run({ command: "sleep 5" }, controller.signal);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("aborted");
    const already = await run({ command: "echo never" }, controller.signal);
    expect(already.isError).toBe(true);
    expect(already.output).toBe("The user interrupted before this call ran.");
  });

  it("does not wait for background jobs that keep the output open", async () => {
    const started = Date.now();
    const result = await run({ command: "sleep 3 & echo started" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.output).toBe("started\n\nexit code: 0");
  });

  it("keeps the head and the tail of long output", async () => {
    const result = await run({ command: "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END" });
    const marker = "\n[… 70005 characters omitted …]\n";
    expect(result.output.indexOf(marker)).toBe(10_000);
    expect(result.output.startsWith("a".repeat(10_000))).toBe(true);
    expect(result.output.endsWith("a\nEND\n\nexit code: 0")).toBe(true);
    expect(result.output.length).toBeLessThan(30_100);
  });

  it("does not pass secret environment variables and masks secrets in the output", async () => {
    process.env.SYLK_TEST_API_TOKEN = "super-secret-value";
    process.env.SYLK_TEST_PLAIN = "visible";
    const result = await run({ command: 'echo "[$SYLK_TEST_API_TOKEN][$SYLK_TEST_PLAIN]"' });
    expect(result.output).toBe("[][visible]\n\nexit code: 0");
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    const masked = await run({ command: `echo ${token}` });
    expect(masked.output).toBe("[REDACTED:github-token]\n\nexit code: 0");
  });
});
