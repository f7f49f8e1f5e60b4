// The real `bin/sylk.js` in a real terminal: a detached tmux session on a server of its own (a
// private socket), so that probes see what a user would see (capture-pane shows the screen as the
// terminal drew it, escape sequences applied) and send keys as a user would.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { sleep } from "./harness.mjs";

const quote = (value) => `'${String(value).replace(/'/g, `'\\''`)}'`;

/** Starts `sylk args` in the laboratory's project, in a `columns`x`rows` terminal. */
export function startTui(lab, args = [], { env = {}, columns = 120, rows = 40 } = {}) {
  const socket = `sylk-probe-${randomBytes(4).toString("hex")}`;
  // The server carries the laboratory's mark too, so that closing the laboratory ends it even if kill-server fails.
  const tmuxEnv = { ...process.env, SYLK_PROBE_LAB: lab.base };
  const tmux = (...tmuxArgs) => execFileSync("tmux", ["-L", socket, ...tmuxArgs], { encoding: "utf8", timeout: 10_000, env: tmuxEnv });
  const assignments = Object.entries({ ...lab.env(), TERM: "xterm-256color", ...env })
    .filter(([name, value]) => value !== undefined && name !== "CI" && name !== "NO_COLOR" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `${name}=${quote(value)}`);
  // CI unset: Ink draws only the final frame when it thinks it runs in CI.
  const command = `cd ${quote(lab.root)} && env -u CI -u NO_COLOR ${assignments.join(" ")} ${quote(process.execPath)} ${quote(lab.sylkBin)} ${args.map(quote).join(" ")}; echo "sylk exited $?"; sleep 600`;
  tmux("new-session", "-d", "-s", "main", "-x", String(columns), "-y", String(rows), command);
  let closed = false;
  const terminal = {
    /** The screen and its scrollback as text; with `escapes`, with the attributes as SGR sequences. */
    screen: ({ escapes = false } = {}) => tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", "main", "-S", "-300"),
    /** The pane's title, as the program in it may set it. */
    title: () => tmux("display-message", "-p", "-t", "main", "#{pane_title}").trim(),
    async waitFor(text, timeoutMs = 30_000) {
      const deadline = performance.now() + timeoutMs;
      const matches = () => (typeof text === "string" ? terminal.screen().includes(text) : text.test(terminal.screen()));
      while (!matches()) {
        if (performance.now() > deadline)
          throw new Error(
            `timed out waiting for ${String(text)} on the screen: ${terminal.screen().trim().split("\n").slice(-6).join(" / ")}`,
          );
        await sleep(100);
      }
    },
    /** tmux key names (`Enter`, `C-c`, `Escape`) or, with `literal`, text typed as it is. */
    send: (keys, { literal = false } = {}) => tmux("send-keys", "-t", "main", ...(literal ? ["-l"] : []), keys),
    /** The exit status once `sylk` has ended, or undefined while it runs. */
    exitStatus() {
      const match = /sylk exited (\d+)/.exec(terminal.screen());
      return match ? Number(match[1]) : undefined;
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
  lab.defer(() => terminal.close());
  return terminal;
}

/**
 * The approval dialog on a plain capture: from its last title line (`Run a command?`, `Write a
 * file?`) to its question. Earlier lines (the call as the transcript shows it) are not the dialog.
 */
export function dialogOf(screen, title) {
  const start = screen.lastIndexOf(title);
  if (start === -1) return undefined;
  const end = screen.indexOf("Do you want to proceed", start);
  return screen.slice(start, end === -1 ? undefined : end);
}

/**
 * The SGR attributes in force at `index` of a capture taken with escapes (`capture-pane -e`):
 * { concealed, background } — what the terminal does to the text there.
 */
export function attributesAt(escaped, index) {
  const state = { concealed: false, background: undefined };
  const sgr = /\u001b\[([0-9;:]*)m/g;
  for (let match = sgr.exec(escaped); match && match.index < index; match = sgr.exec(escaped)) {
    const params = match[1] === "" ? [0] : match[1].split(/[;:]/).map(Number);
    for (let at = 0; at < params.length; at++) {
      const code = params[at];
      if (code === 0) Object.assign(state, { concealed: false, background: undefined });
      else if (code === 8) state.concealed = true;
      else if (code === 28) state.concealed = false;
      else if (code === 49) state.background = undefined;
      else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) state.background = code;
      else if (code === 38 || code === 48) {
        // An extended colour: 5;n or 2;r;g;b follow.
        if (code === 48) state.background = params.slice(at, at + (params[at + 1] === 5 ? 3 : 5)).join(";");
        at += params[at + 1] === 5 ? 2 : 4;
      }
    }
  }
  return state;
}
