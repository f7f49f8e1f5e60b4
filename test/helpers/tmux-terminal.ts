import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { SYLK_BIN } from "./run-cli.js";

/** Why a real terminal cannot be had here, or undefined when tmux works. */
export function tmuxUnavailableReason(): string | undefined {
  const probe = spawnSync("tmux", ["-V"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return "tmux is not installed (apt-get install tmux; .ci/run installs it)";
  return undefined;
}

export interface TmuxTerminal {
  /** The pane and its scrollback. */
  screen(): string;
  /** Only what the pane shows now, as the user sees it. */
  visibleScreen(): string;
  /** Resizes the terminal, as a user dragging its window's edge does. */
  resize(columns: number, rows: number): void;
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** tmux key names (`Enter`, `C-c`) or literal text with `literal`. */
  send(keys: string, options?: { literal?: boolean }): void;
  /**
   * Several keys in one `send-keys`, which tmux writes to the terminal at
   * once: text (`abc`) and key names (`BSpace`, `C-u`) mixed, as a fast typist's
   * keys reach a busy program in one read.
   */
  sendBurst(keys: readonly string[]): void;
  /**
   * Pastes text as the terminal does, its line feeds sent as carriage
   * returns: marked as a bracketed paste when `bracketed` (and the program
   * asked for it), or as plain typing, as a terminal without bracketed paste.
   */
  paste(text: string, options: { bracketed: boolean }): void;
  /** The pane's title, as the program in it may set it (OSC 0 and 2). */
  paneTitle(): string;
  /** The exit status once `sylk` has ended, or undefined while it runs. */
  exitStatus(): number | undefined;
  /** Ends the terminal and what runs in it; a second call does nothing. */
  close(): void;
}

/**
 * The real `bin/sylk.js` in a real terminal: a detached tmux session of its
 * own server (a private socket), so tests drive what a user would see.
 */
export function startSylkInTmux(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; columns?: number; rows?: number },
): TmuxTerminal {
  const socket = `sylk-test-${randomUUID().slice(0, 8)}`;
  const tmux = (...tmuxArgs: string[]) => execFileSync("tmux", ["-L", socket, ...tmuxArgs], { encoding: "utf8" });
  const assignments = Object.entries(options.env)
    .filter(([name, value]) => value !== undefined && name !== "CI" && /^[A-Z_][A-Z0-9_]*$/i.test(name))
    .map(([name, value]) => `${name}=${shellQuote(value as string)}`);
  // CI must be unset: Ink draws only the final frame when it thinks it runs in CI.
  const command = `cd ${shellQuote(options.cwd)} && env -u CI ${assignments.join(" ")} ${shellQuote(process.execPath)} ${shellQuote(SYLK_BIN)} ${args.map(shellQuote).join(" ")}; echo "sylk exited $?"; sleep 600`;
  tmux("new-session", "-d", "-s", "main", "-x", String(options.columns ?? 120), "-y", String(options.rows ?? 40), command);
  const screen = () => tmux("capture-pane", "-p", "-t", "main", "-S", "-300");
  let closed = false;
  return {
    screen,
    visibleScreen: () => tmux("capture-pane", "-p", "-t", "main"),
    resize(columns, rows) {
      tmux("resize-window", "-t", "main", "-x", String(columns), "-y", String(rows));
    },
    async waitFor(text, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const matches = () => (typeof text === "string" ? screen().includes(text) : text.test(screen()));
      while (!matches()) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${String(text)}. Screen:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    send(keys, sendOptions = {}) {
      tmux("send-keys", "-t", "main", ...(sendOptions.literal ? ["-l"] : []), keys);
    },
    sendBurst(keys) {
      tmux("send-keys", "-t", "main", ...keys);
    },
    paste(text, pasteOptions) {
      tmux("set-buffer", "-b", "test-paste", "--", text);
      tmux("paste-buffer", "-d", "-b", "test-paste", "-t", "main", ...(pasteOptions.bracketed ? ["-p"] : []));
    },
    paneTitle() {
      return tmux("display-message", "-p", "-t", "main", "#{pane_title}").trimEnd();
    },
    exitStatus() {
      const match = /sylk exited (\d+)/.exec(screen());
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
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
