import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

/** The screen at small sizes and after a resize, in a real terminal (tmux reflows what was drawn, as most terminals do). */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping resizing in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(unavailable !== undefined)("resizing the terminal", () => {
  it("leaves one input box, with what was typed in it, at every width", async () => {
    const project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const terminal = fixture.start([], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" },
      columns: 120,
      rows: 30,
    });
    await terminal.waitFor("Ask anything", 60_000);
    terminal.send("/help", { literal: true });
    terminal.send("Enter");
    await terminal.waitFor("approvals");
    terminal.send("half typed", { literal: true });
    await terminal.waitFor("❯ half typed");
    for (const [columns, rows] of [
      [80, 24],
      [60, 24],
      [100, 30],
      [70, 20],
    ] as const) {
      terminal.resize(columns, rows);
      await sleep(1_000);
      const screen = terminal.visibleScreen();
      expect(count(screen, "❯ half typed"), `${columns}x${rows}:\n${screen}`).toBe(1);
      expect(count(screen, "no model — answers from the index"), `${columns}x${rows}:\n${screen}`).toBe(1);
      // Every border row of the box is whole: a copy cut by the terminal's reflow leaves pieces of one.
      const borders = screen.split("\n").filter((row) => /^[╭╰]/.test(row));
      for (const border of borders) expect(border.trimEnd().length, `${columns}x${rows}:\n${screen}`).toBe(columns);
    }
    expect(terminal.exitStatus()).toBeUndefined();
  }, 120_000);

  it("keeps the prompt, the slash menu and the status line on an 80x24 screen", async () => {
    const project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const terminal = fixture.start([], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" },
      columns: 80,
      rows: 24,
    });
    // The session's screen (its banner), not the launch frame that takes typing before the session opens.
    await terminal.waitFor("✻ Sylk", 60_000);
    await terminal.waitFor("Ask anything", 60_000);
    terminal.send("/");
    await terminal.waitFor("Tab for the next");
    const screen = terminal.visibleScreen();
    expect(screen).toContain("✻ Sylk");
    expect(screen).toContain("❯ /");
    // The status line (the index may be refreshing at launch).
    expect(screen).toMatch(/no model — answers from the index · index: /);
    expect(Math.max(...screen.split("\n").map((row) => row.trimEnd().length))).toBeLessThanOrEqual(80);
  }, 120_000);
});
