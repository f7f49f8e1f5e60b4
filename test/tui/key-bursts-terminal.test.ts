import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { startSylkInTmux, tmuxUnavailableReason, type TmuxTerminal } from "../helpers/tmux-terminal.js";

/**
 * Editing keys typed faster than `sylk` reads them, in a real terminal: each
 * burst is one `tmux send-keys`, which writes its keys to the terminal at once.
 */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping key bursts in a real terminal: ${unavailable}`);

let project: TempProject | undefined;
let terminal: TmuxTerminal | undefined;
afterEach(() => {
  terminal?.close();
  terminal = undefined;
  project?.cleanup();
  project = undefined;
});

/** Bursts of text and editing keys, each with what the prompt must hold after it. */
const BURSTS: ReadonlyArray<{ keys: string[]; prompt: string }> = [
  { keys: ["hello", "BSpace", "BSpace", "BSpace", "world"], prompt: "heworld" },
  { keys: ["C-u", "abc", "C-u", "xyz"], prompt: "xyz" },
  { keys: ["C-u", "hello world", "C-w", "there"], prompt: "hello there" },
  { keys: ["C-u", "world", "C-a", "hello "], prompt: "hello world" },
  { keys: ["C-e", "C-u", "abcd", "BSpace", "BSpace", "X"], prompt: "abX" },
];

/** Types the bursts; returns the screen as it was once the first had been applied. */
async function typeBursts(term: TmuxTerminal): Promise<string> {
  let firstScreen = "";
  for (const { keys, prompt } of BURSTS) {
    term.sendBurst(keys);
    await term.waitFor(new RegExp(`❯ ${prompt}\\s*│`), 15_000);
    firstScreen ||= term.screen();
  }
  return firstScreen;
}

describe.skipIf(unavailable !== undefined)("keys arriving together, in a real terminal", () => {
  it("applies every editing key of a burst, in order", async () => {
    project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    terminal = startSylkInTmux([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    await terminal.waitFor("Ask anything", 60_000);
    await typeBursts(terminal);
    expect(terminal.exitStatus()).toBeUndefined();
  }, 120_000);

  it("reads keys typed as the screen appears as keys: Enter sends, nothing is echoed over the screen", async () => {
    project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    terminal = startSylkInTmux([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    await terminal.waitFor("Ask anything", 60_000);
    terminal.sendBurst(["/help", "Enter"]);
    await terminal.waitFor("approvals", 15_000);
    expect(terminal.screen()).not.toMatch(/❯ \/help\s*│\n│\s+│/);
  }, 120_000);

  it("applies them while the project is being indexed", async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 5_000; index++) {
      files[`src/module-${Math.floor(index / 100)}/file-${index}.ts`] =
        `export function compute${index}(value: number) {\n  return value * ${index};\n}\n`;
    }
    project = createTempProject(files);
    terminal = startSylkInTmux([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    await terminal.waitFor("Index this project?", 60_000);
    terminal.send("y");
    await terminal.waitFor(/Indexing|Scanning/, 60_000);
    const whileIndexing = await typeBursts(terminal);
    // The keys were read while the index was being built, not after.
    expect(whileIndexing).toMatch(/Indexing|Scanning/);
  }, 180_000);
});
