import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason, type TmuxTerminal } from "../helpers/tmux-terminal.js";

/**
 * Editing keys typed faster than `sylk` reads them, in a real terminal: each
 * burst is one `tmux send-keys`, which writes its keys to the terminal at once.
 */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping key bursts in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();

/** The prompt holding `text`, the cursor after it. */
const promptHolding = (text: string) => new RegExp(`❯ ${text.replace(/[/\\^$.*+?()[\]{}|]/g, "\\$&")}\\s*│`);

/** A prompt sent: the transcript shows it as the user's. */
const sentLine = (text: string) => new RegExp(`^ > ${text}\\s*$`, "m");

/** Bursts of text and keys, each with what the screen must show after it. */
const BURSTS: ReadonlyArray<{ keys: string[]; shows: RegExp }> = [
  { keys: ["/he", "Tab"], shows: promptHolding("/help") },
  { keys: ["C-u", "hello", "Enter"], shows: sentLine("hello") },
  { keys: ["C-u", "hello", "BSpace", "BSpace", "BSpace", "world"], shows: promptHolding("heworld") },
  { keys: ["C-u", "abc", "C-u", "xyz"], shows: promptHolding("xyz") },
  { keys: ["C-u", "hello world", "C-w", "there"], shows: promptHolding("hello there") },
  { keys: ["C-u", "world", "C-a", "hello "], shows: promptHolding("hello world") },
  { keys: ["C-e", "C-u", "abcd", "BSpace", "BSpace", "X"], shows: promptHolding("abX") },
];

/** Types the bursts; returns the screen as it was once each had been applied. */
async function typeBursts(term: TmuxTerminal): Promise<string[]> {
  const screens: string[] = [];
  for (const { keys, shows } of BURSTS) {
    term.sendBurst(keys);
    await term.waitFor(shows, 15_000);
    screens.push(term.screen());
  }
  return screens;
}

describe.skipIf(unavailable !== undefined)("keys arriving together, in a real terminal", () => {
  it("applies every key of a burst, in order, Tab and Enter among them", async () => {
    const project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const terminal = fixture.start([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    await terminal.waitFor("Ask anything", 60_000);
    await typeBursts(terminal);
    expect(terminal.exitStatus()).toBeUndefined();
  }, 120_000);

  it("reads Enter and Tab typed with other keys as keys, and a paste's line breaks as text", async () => {
    const project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const shown = fixture.start([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    await shown.waitFor("Ask anything", 60_000);
    shown.sendBurst(["hello", "Enter"]);
    await shown.waitFor(sentLine("hello"), 15_000);
    await shown.waitFor(/❯ \s*Ask anything/, 15_000);
    shown.sendBurst(["/he", "Tab"]);
    await shown.waitFor(promptHolding("/help"), 15_000);
    shown.send("C-u");
    await shown.waitFor(/❯ \s*Ask anything/, 15_000);

    // A paste from a terminal that does not mark it: its line breaks, the last one too, stay in the prompt.
    shown.paste("first line\nsecond line\n", { bracketed: false });
    await shown.waitFor(/❯ first line\s*│\n│\s+second line\s*│/, 15_000);
    shown.send("C-c");
    await shown.waitFor(/❯ \s*Ask anything/, 15_000);
    // A bracketed paste: one text in the prompt, not sent.
    shown.paste("pasted one\npasted two\n", { bracketed: true });
    await shown.waitFor(/❯ pasted one\s*│\n│\s+pasted two\s*│/, 15_000);
    shown.send("C-c");
    await shown.waitFor(/❯ \s*Ask anything/, 15_000);
    expect(shown.screen()).not.toMatch(sentLine("(first line|pasted one).*"));

    // The terminal marks its pastes: an Enter between typed words sends the first and keeps the rest.
    shown.sendBurst(["abc", "Enter", "def"]);
    await shown.waitFor(sentLine("abc"), 15_000);
    await shown.waitFor(promptHolding("def"), 15_000);
    expect(shown.exitStatus()).toBeUndefined();
  }, 120_000);

  it("reads keys typed as the screen appears as keys: Enter sends, nothing is echoed over the screen", async () => {
    const project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const terminal = fixture.start([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
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
    const project = fixture.project(files);
    const terminal = fixture.start([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    await terminal.waitFor("Index this project?", 60_000);
    terminal.send("y");
    await terminal.waitFor(/Indexing|Scanning/, 60_000);
    const [afterTab, afterEnter] = await typeBursts(terminal);
    // The keys were read while the index was being built, not after.
    expect(afterTab).toMatch(/Indexing|Scanning/);
    expect(afterEnter).toMatch(/Indexing|Scanning/);
  }, 180_000);
});
