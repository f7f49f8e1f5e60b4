// The first paint: the launch frame's prompt drawn by bin/sylk.js itself,
// before the CLI's bundle, React and Ink load (some 250 ms here), and the
// keys typed meanwhile kept in order for the launch frame to take over
// (docs/DESIGN-NOTES.md, "The first paint: the prompt before Ink").
// Plain JavaScript that runs before the bundle loads.

/** What the launch frame's prompt says while it is empty (`src/tui/components/launch-prompt.tsx`). */
export const LAUNCH_PLACEHOLDER = "Ask anything · /help for commands";
/** The launch frame's line under the prompt. */
export const OPENING_LINE = "opening the project…";

const ESC = "\u001b";
const PASTE_MODE_ON = `${ESC}[?2004h`;
const PASTE_MODE_OFF = `${ESC}[?2004l`;
const HIDE_CURSOR = `${ESC}[?25l`;
const SHOW_CURSOR = `${ESC}[?25h`;
const ERASE_LINE = `${ESC}[2K`;
/** The box's border and padding, and the prompt mark: what a line of text has around it. */
const BOX_CHROME = 4;
const PROMPT_MARK = "❯ ";
/** The placeholder fits on one line from here, as Ink lays it out (`❯ `, the cursor cell, the placeholder). */
export const FIRST_PAINT_MIN_COLUMNS = BOX_CHROME + PROMPT_MARK.length + 1 + LAUNCH_PLACEHOLDER.length + 2;

/** A plain `sylk`, or `sylk -c`/`--continue`: the interactive session, with nothing commander could reject. */
export function launchesSession(args) {
  return args.length === 0 || (args.length === 1 && (args[0] === "-c" || args[0] === "--continue"));
}

/**
 * Whether the launch frame is certain to come next: a plain `sylk` (or
 * `-c`/`--continue`), nothing commander could reject or that names another
 * command, in a terminal wide enough for the prompt's one line.
 */
export function paintsFirst(args, stdin, stdout, env) {
  return (
    launchesSession(args) &&
    stdin.isTTY === true &&
    stdout.isTTY === true &&
    typeof stdin.setRawMode === "function" &&
    env.TERM !== "dumb" &&
    // Ink draws only the last frame in CI (is-in-ci): nothing would take the paint's place until the end.
    !inContinuousIntegration(env) &&
    (stdout.columns ?? 0) >= FIRST_PAINT_MIN_COLUMNS
  );
}

/** As Ink's is-in-ci decides it. */
function inContinuousIntegration(env) {
  const set = (name) => name in env && env[name] !== "0" && env[name] !== "false";
  return set("CI") || set("CONTINUOUS_INTEGRATION");
}

/** SGR styling, or none under NO_COLOR for colours (attributes stay, as the theme does). */
function styles(env) {
  const colour = env.NO_COLOR === undefined || env.NO_COLOR === "";
  const sgr = (on, off) => (text) => `${ESC}[${on}m${text}${ESC}[${off}m`;
  const none = (text) => text;
  return {
    muted: colour ? sgr(90, 39) : none,
    accent: colour ? sgr(36, 39) : none,
    dim: sgr(2, 22),
    inverse: sgr(7, 27),
  };
}

/**
 * The launch frame's lines for a prompt holding `text` (printable ASCII
 * that fits on one line), as Ink draws them at `columns`: the rounded box,
 * the prompt, and the line under it.
 */
export function launchFrameLines(text, columns, env) {
  const style = styles(env);
  const inner = columns - BOX_CHROME;
  const shown = text === "" ? `${PROMPT_MARK} ${LAUNCH_PLACEHOLDER}` : `${PROMPT_MARK}${text} `;
  const content =
    text === ""
      ? `${style.accent(PROMPT_MARK)}${style.inverse(" ")}${style.dim(LAUNCH_PLACEHOLDER)}`
      : `${style.accent(PROMPT_MARK)}${text}${style.inverse(" ")}`;
  const padding = " ".repeat(Math.max(0, inner - [...shown].length));
  return [
    style.muted(`╭${"─".repeat(columns - 2)}╮`),
    `${style.muted("│")} ${content}${padding} ${style.muted("│")}`,
    style.muted(`╰${"─".repeat(columns - 2)}╯`),
    ` ${style.dim(OPENING_LINE)}`,
  ];
}

/** Whether the prompt with `text` is drawn as one plain line: printable ASCII, no slash menu, room for the cursor. */
function drawnAsOneLine(text, columns) {
  return /^[\x20-\x7e]*$/.test(text) && !text.startsWith("/") && PROMPT_MARK.length + text.length + 1 <= columns - BOX_CHROME;
}

/**
 * Paints the launch frame and starts keeping the keys typed; undefined
 * where `paintsFirst` says the frame might not come next (nothing is
 * written or read then).
 */
export function paintLaunchPrompt({ args, stdin, stdout, env }) {
  if (!paintsFirst(args, stdin, stdout, env)) return undefined;
  const columns = stdout.columns;
  const kept = [];
  let text = "";
  let echoing = true;
  let reading = true;
  let painted = true;
  let taken = false;

  const lines = launchFrameLines(text, columns, env);
  // Drawn from the start of the cursor's line, which holds at most the terminal's own echo of keys typed before
  // raw mode (those keys are read below, and shown in the prompt). The cursor is left on the frame's first line:
  // redraws and the erase start from there.
  stdout.write(`${HIDE_CURSOR}${PASTE_MODE_ON}\r${ERASE_LINE}${lines.join("\r\n")}\r${ESC}[${lines.length - 1}A`);
  stdin.setRawMode(true);

  const echo = (bytes) => {
    for (const byte of bytes) {
      if (!echoing) return;
      const next =
        byte === 0x7f || byte === 0x08 ? text.slice(0, -1) : byte >= 0x20 && byte < 0x7f ? text + String.fromCharCode(byte) : undefined;
      if (next === undefined || !drawnAsOneLine(next, columns)) {
        // A key the prompt would draw otherwise (Enter, an escape sequence, a menu): kept, and left for the frame.
        echoing = false;
        return;
      }
      text = next;
    }
    const promptLine = launchFrameLines(text, columns, env)[1];
    stdout.write(`${ESC}[1B\r${promptLine}\r${ESC}[1A`);
  };
  const onReadable = () => {
    let chunk = stdin.read();
    while (chunk !== null) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      kept.push(bytes);
      echo(bytes);
      chunk = stdin.read();
    }
  };
  stdin.on("readable", onReadable);

  const erase = () => {
    if (reading) {
      reading = false;
      stdin.removeListener("readable", onReadable);
    }
    if (painted) {
      painted = false;
      // Line by line, as Ink erases its frames: an erase to the end of the screen from its top-left corner is a
      // clear screen to some terminals (tmux), which keep the cleared lines in their scrollback.
      const lineCount = lines.length;
      stdout.write(`${`${ERASE_LINE}${ESC}[1B`.repeat(lineCount - 1)}${ERASE_LINE}${ESC}[${lineCount - 1}A\r`);
    }
  };
  let givenBack = false;
  const giveBackTerminal = () => {
    if (givenBack) return;
    givenBack = true;
    erase();
    if (stdin.isTTY) stdin.setRawMode(false);
    // Reading stopped, so the process can end: nothing else will read the terminal.
    stdin.pause?.();
    stdin.unref?.();
    stdout.write(`${PASTE_MODE_OFF}${SHOW_CURSOR}`);
    process.removeListener("exit", giveBackTerminal);
  };
  // The CLI failing before anything took the paint over: the terminal is left as it was found.
  process.once("exit", giveBackTerminal);

  return {
    async setAside() {
      // A turn of the event loop first: keys typed while the thread was busy loading are read, and kept, now.
      if (reading) await new Promise((resolve) => setImmediate(resolve));
      if (reading) onReadable();
      erase();
    },
    takeTyped() {
      taken = true;
      erase();
      process.removeListener("exit", giveBackTerminal);
      const bytes = Buffer.concat(kept);
      kept.length = 0;
      return bytes;
    },
    release() {
      // Once the launch frame has taken the terminal over, it is Ink's to give back.
      if (taken) return;
      kept.length = 0;
      giveBackTerminal();
    },
  };
}
