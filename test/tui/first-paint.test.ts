import { EventEmitter } from "node:events";
import { stripVTControlCharacters } from "node:util";
import { render } from "ink";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FIRST_PAINT_MIN_COLUMNS, launchFrameLines, paintLaunchPrompt, paintsFirst } from "../../bin/first-paint.js";
import type { LaunchTyping } from "../../src/tui/components/launch-prompt.js";
import { launchPromptElement } from "./launch-prompt-element.js";

// Chalk decides on colour when it is first imported: on, so the frame's colours can be compared with the paint's.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "1";
});

/** The paint's four lines erased one by one from its first, where the cursor is left. */
const ERASED = "\u001b[2K\u001b[1B\u001b[2K\u001b[1B\u001b[2K\u001b[1B\u001b[2K\u001b[3A\r";

/** A terminal's input as Ink and the paint read it: bytes queued, `readable`, then `read()` until null. */
class TerminalInput extends EventEmitter {
  readonly isTTY = true;
  rawMode: boolean[] = [];
  private readonly queued: Buffer[] = [];
  setRawMode(mode: boolean) {
    this.rawMode.push(mode);
  }
  setEncoding() {}
  ref() {}
  unref() {}
  read(): Buffer | null {
    return this.queued.shift() ?? null;
  }
  type(text: string) {
    this.arrive(text);
    this.emit("readable");
  }
  /** Keys that reached the process while its thread was busy: buffered, not yet announced. */
  arrive(text: string) {
    this.queued.push(Buffer.from(text, "utf8"));
  }
}

class TerminalOutput extends EventEmitter {
  readonly isTTY = true;
  readonly rows = 40;
  written = "";
  frames: string[] = [];
  constructor(readonly columns: number) {
    super();
  }
  write(text: string) {
    this.written += text;
    this.frames.push(text);
    return true;
  }
}

const unmounts: (() => void)[] = [];
afterEach(() => {
  for (const unmount of unmounts.splice(0)) unmount();
});

/** The launch frame as Ink draws it at `columns` once `typed` has been typed into it. */
async function inkLaunchFrame(columns: number, typed: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const stdin = new TerminalInput();
  const stdout = new TerminalOutput(columns);
  const typing: LaunchTyping = { editor: undefined, sent: [], history: [] };
  const instance = render(launchPromptElement(env, typing), {
    // A terminal's streams, faked with what Ink calls on them.
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  unmounts.push(() => instance.unmount());
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (typed) stdin.type(typed);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return (stdout.frames.at(-1) ?? "").replace(/\n+$/, "").split("\n");
}

/** The SGR codes a line switches on, in order, without repeats: its colours and attributes. */
function stylesOf(line: string): string[] {
  const codes = [...line.matchAll(/\u001b\[([0-9;]+)m/g)].map((match) => match[1] ?? "");
  return [...new Set(codes.filter((code) => ["2", "7", "36", "90"].includes(code)))].sort();
}

describe("the first paint", () => {
  it("is painted only where the launch frame is certain to come next", () => {
    const stdin = new TerminalInput();
    const wide = new TerminalOutput(80);
    const env = { TERM: "xterm-256color" };
    expect(paintsFirst([], stdin, wide, env)).toBe(true);
    expect(paintsFirst(["-c"], stdin, wide, env)).toBe(true);
    expect(paintsFirst(["--continue"], stdin, wide, env)).toBe(true);
    // Another command, a prompt that may be a mistyped command, options commander checks: not certain.
    for (const args of [["ask", "x"], ["index"], ["where is x"], ["--agent", "x"], ["--permission-mode", "nope"], ["--help"]]) {
      expect(paintsFirst(args, stdin, wide, env)).toBe(false);
    }
    expect(paintsFirst([], { ...stdin, isTTY: false, read: () => null, on: () => 0, removeListener: () => 0 }, wide, env)).toBe(false);
    expect(paintsFirst([], stdin, { ...wide, isTTY: false, write: () => true }, env)).toBe(false);
    expect(paintsFirst([], stdin, wide, { TERM: "dumb" })).toBe(false);
    // Ink draws only the last frame in CI: nothing would replace the paint.
    expect(paintsFirst([], stdin, wide, { ...env, CI: "true" })).toBe(false);
    expect(paintsFirst([], stdin, wide, { ...env, CI: "false" })).toBe(true);
    expect(paintsFirst([], stdin, new TerminalOutput(FIRST_PAINT_MIN_COLUMNS - 1), env)).toBe(false);
    expect(paintsFirst([], stdin, new TerminalOutput(FIRST_PAINT_MIN_COLUMNS), env)).toBe(true);
  });

  it("draws the lines Ink draws for the launch frame, with its colours, at every width", async () => {
    const env = { TERM: "xterm-256color" };
    for (const columns of [FIRST_PAINT_MIN_COLUMNS, 80, 120, 200]) {
      for (const typed of ["", "hello there", "x".repeat(columns - 7)]) {
        const ink = await inkLaunchFrame(columns, typed, env);
        const painted = launchFrameLines(typed, columns, env);
        expect(
          painted.map((line) => stripVTControlCharacters(line)),
          `${columns} columns, "${typed}"`,
        ).toEqual(ink.map((line) => stripVTControlCharacters(line)));
        expect(painted.map(stylesOf), `${columns} columns, "${typed}"`).toEqual(ink.map(stylesOf));
      }
    }
  });

  it("has no colour under NO_COLOR, as the theme has none, and keeps dim and inverse", async () => {
    const env = { TERM: "xterm-256color", NO_COLOR: "1" };
    const ink = await inkLaunchFrame(80, "", env);
    const painted = launchFrameLines("", 80, env);
    expect(painted.map(stylesOf)).toEqual(ink.map(stylesOf));
    expect(painted.join("\n")).not.toMatch(/\u001b\[(36|90)m/);
    expect(painted[1]).toMatch(/\u001b\[7m/);
  });

  it("echoes plain typing, keeps every key in order, and hands them over once", () => {
    const stdin = new TerminalInput();
    const stdout = new TerminalOutput(80);
    const env = { TERM: "xterm-256color" };
    const paint = paintLaunchPrompt({ args: [], stdin, stdout, env });
    expect(paint).toBeDefined();
    expect(stdin.rawMode).toEqual([true]);
    expect(stripVTControlCharacters(stdout.written)).toContain("Ask anything · /help for commands");

    stdin.type("helo");
    stdin.type("\u007f");
    stdin.type("lo");
    expect(stripVTControlCharacters(stdout.frames.at(-1) ?? "")).toContain("❯ hello ");
    // Enter is the prompt's to act on: the echo stops there, and nothing after it is drawn by the paint.
    stdin.type("\r");
    stdin.type("more");
    expect(stripVTControlCharacters(stdout.written)).not.toContain("more");

    const written = stdout.written.length;
    expect(paint?.takeTyped().toString("utf8")).toBe("helo\u007flo\rmore");
    // Erased where it stood (from its first line down), and no longer reading.
    expect(stdout.written.slice(written)).toBe(ERASED);
    stdin.type("late");
    expect(paint?.takeTyped().length).toBe(0);
    // Taken over: the terminal is the launch frame's to give back, not the paint's.
    paint?.release();
    expect(stdin.rawMode).toEqual([true]);
  });

  it("stops echoing where the prompt would draw something else: a slash menu, an escape sequence, a full line", () => {
    for (const [typed, shown] of [
      ["/he", "Ask anything"],
      ["ab\u001b[Dc", "❯ ab "],
      ["é", "Ask anything"],
    ] as const) {
      const stdin = new TerminalInput();
      const stdout = new TerminalOutput(80);
      const paint = paintLaunchPrompt({ args: [], stdin, stdout, env: {} });
      for (const character of typed) stdin.type(character);
      expect(stripVTControlCharacters(stdout.frames.at(-1) ?? "")).toContain(shown);
      expect(paint?.takeTyped().toString("utf8")).toBe(typed);
    }
    const stdin = new TerminalInput();
    const stdout = new TerminalOutput(FIRST_PAINT_MIN_COLUMNS);
    paintLaunchPrompt({ args: [], stdin, stdout, env: {} });
    stdin.type("y".repeat(FIRST_PAINT_MIN_COLUMNS));
    expect(stripVTControlCharacters(stdout.written)).not.toContain("y".repeat(FIRST_PAINT_MIN_COLUMNS - 6));
  });

  it("sets the keys typed so far aside for the prompt before a question is asked, so none can answer it", async () => {
    const stdin = new TerminalInput();
    const stdout = new TerminalOutput(80);
    const paint = paintLaunchPrompt({ args: [], stdin, stdout, env: {} });
    stdin.type("ab");
    // Typed while the thread was loading the CLI: not read yet when the question is about to be drawn.
    stdin.arrive("y\r");
    await paint?.setAside();
    expect(stdin.listenerCount("readable")).toBe(0);
    // What comes next is the question's to read.
    stdin.arrive("n");
    expect(paint?.takeTyped().toString("utf8")).toBe("aby\r");
    expect(stdin.read()?.toString("utf8")).toBe("n");
  });

  it("gives the terminal back when nothing takes it over", () => {
    const stdin = new TerminalInput();
    const stdout = new TerminalOutput(80);
    const exitListeners = process.listenerCount("exit");
    const paint = paintLaunchPrompt({ args: [], stdin, stdout, env: {} });
    // Until something takes it over, the terminal is given back at exit too (the CLI failing to load).
    expect(process.listenerCount("exit")).toBe(exitListeners + 1);
    stdin.type("abc");
    const written = stdout.written.length;
    paint?.release();
    expect(stdin.rawMode).toEqual([true, false]);
    // Erased, bracketed paste off, the cursor shown again.
    expect(stdout.written.slice(written)).toBe(`${ERASED}\u001b[?2004l\u001b[?25h`);
    expect(stdin.listenerCount("readable")).toBe(0);
    expect(process.listenerCount("exit")).toBe(exitListeners);
    // Given back once: the CLI's error path and the launcher both release it.
    paint?.release();
    expect(stdin.rawMode).toEqual([true, false]);
  });
});
