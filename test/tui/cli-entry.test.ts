import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject({ "a.ts": "export const a = 1;\n" });
});
afterEach(() => project.cleanup());

describe("`sylk` with no command", () => {
  it("needs a terminal: piped, it says to use sylk ask and exits 42", async () => {
    const run = await runCli([], { cwd: project.root, env: project.env });
    expect(run.code).toBe(42);
    expect(run.stderr).toContain('sylk ask "…"');
    expect(run.stdout).toBe("");
  });

  it("rejects an unknown command word instead of starting a session", async () => {
    const run = await runCli(["serach", "x"], { cwd: project.root, env: project.env });
    expect(run.code).toBe(42);
    expect(run.stderr).toContain('Unknown command "serach"');
  });

  it("is listed in --help, with its options, and other commands keep theirs", async () => {
    const help = await runCli(["--help"], { cwd: project.root, env: project.env });
    expect(help.stdout).toMatch(/chat \[options\]/);
    const chat = await runCli(["chat", "--help"], { cwd: project.root, env: project.env });
    for (const option of ["--model", "--provider", "--permission-mode", "--continue", "--resume"]) expect(chat.stdout).toContain(option);
    const ask = await runCli(["ask", "--provider", "none", "--yes", "--model", "x", "where is a?"], {
      cwd: project.root,
      env: project.env,
    });
    expect(ask.code, ask.stderr).toBe(0);
    expect(ask.stdout).toContain("a.ts");
  });
});
