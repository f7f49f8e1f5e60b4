import { writeFileSync } from "node:fs";
import { render } from "ink";
import type { ReactElement } from "react";
import { LaunchPrompt, type LaunchTyping } from "./components/launch-prompt.js";
import type { PromptDraft } from "./hooks/use-prompt-editor.js";
import type { PromptEntry } from "../app/prompt-history.js";
import { ScreenRoot } from "./screen-root.js";

export interface LaunchFrameOptions {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** A SIGINT from outside (raw mode turns the user's Ctrl-C into a key instead): the user leaves. */
  signal?: AbortSignal;
  /** The prompt `bin/sylk.js` painted before Ink loaded: the frame is drawn in its place, and its keys are read first. */
  firstPaint?: { takeTyped(): Buffer };
}

/** What was typed in the launch frame, for the session's screen to go on from. */
export interface TypedBeforeOpen {
  /** The prompt as it stands, with a paste still arriving. */
  draft: PromptDraft | undefined;
  /** Lines sent with Enter, in order. */
  sent: readonly string[];
  /** Prompts for the project's history. */
  history: readonly PromptEntry[];
}

/**
 * The terminal from the first frame to the last. It opens on the launch
 * frame, and the session's screen takes its place in the same Ink instance.
 */
export interface TerminalScreen {
  /** The user left before the session's screen replaced the frame (Ctrl-D, Ctrl-C twice, a stop signal). */
  readonly leaving: boolean;
  /** What was typed so far. Read it just before `replaceWith`, in the same tick, so no key falls between. */
  typed(): TypedBeforeOpen;
  /**
   * Draws `screen` (a child of the `ScreenRoot`) in the frame's place; resolves
   * once it exits. `onFrame` is called after each frame it draws.
   */
  replaceWith(screen: ReactElement, onFrame: () => void): Promise<void>;
  /** Ends the launch frame if nothing replaced it; `erase` takes it off the screen first (an error is printed next). Safe to call twice. */
  close(options?: { erase?: boolean }): void;
}

/** Bracketed paste: the terminal marks pasted text, so its line breaks are not taken for Enter. */
const PASTE_MODE_ON = "\u001b[?2004h";
const PASTE_MODE_OFF = "\u001b[?2004l";

/**
 * Draws the launch frame at once: the prompt, before any of the session's
 * modules load. Typing echoes from the first frame, and a burst of keys is
 * applied in order, as in the session (docs/DESIGN-NOTES.md, "The prompt
 * before the session").
 */
export function showLaunchFrame(options: LaunchFrameOptions): TerminalScreen {
  const { env, stdin, stdout } = options;
  const renderLog = env.SYLK_RENDER_LOG ? { file: env.SYLK_RENDER_LOG, frames: [] as string[] } : undefined;
  const typing: LaunchTyping = { editor: undefined, sent: [], history: [] };
  let onFrame: (() => void) | undefined;
  let leaving = false;
  let replaced = false;
  let ended = false;

  // Erased where it stands, the frame drawn in its place in the same tick.
  const typedIntoPaint = options.firstPaint?.takeTyped();
  stdout.write(PASTE_MODE_ON);
  // Raw before the first frame: Ink turns it on in an effect after the frame is drawn, and keys typed as the
  // screen appears went to the terminal's line editing meanwhile (Enter read as a line feed, echoed over the screen).
  if (stdin.isTTY) stdin.setRawMode(true);
  const leave = () => {
    if (leaving || replaced) return;
    leaving = true;
    end();
  };
  const instance = render(
    <ScreenRoot env={env}>
      <LaunchPrompt typing={typing} onLeave={leave} />
    </ScreenRoot>,
    {
      stdin,
      stdout,
      stderr: options.stderr,
      // Ctrl-C clears the prompt first; the screen decides when it means "quit".
      exitOnCtrlC: false,
      // Shift+Enter is only distinguishable from Enter with the kitty protocol; Ink enables it where the terminal has it.
      kittyKeyboard: { mode: "auto", flags: ["disambiguateEscapeCodes"] },
      onRender: ({ renderTime }: { renderTime: number }) => {
        // SYLK_RENDER_LOG=<file>: each frame's time and render time (ms), for scripts/bench-markdown-render.mjs.
        renderLog?.frames.push(`${Date.now()} ${renderTime.toFixed(3)}`);
        onFrame?.();
      },
    },
  );
  options.signal?.addEventListener("abort", leave, { once: true });
  // Put back in front of what came since, so the prompt's reader takes every key in the order typed.
  if (typedIntoPaint && typedIntoPaint.length > 0)
    stdin.unshift(stdin.readableEncoding ? typedIntoPaint.toString(stdin.readableEncoding) : typedIntoPaint);

  function end(erase = false): void {
    if (ended) return;
    ended = true;
    options.signal?.removeEventListener("abort", leave);
    if (erase) instance.clear();
    instance.unmount();
    finish();
  }
  function finish(): void {
    stdout.write(PASTE_MODE_OFF);
    // Written once at the end: a write per frame would be part of what is measured.
    if (renderLog) writeFileSync(renderLog.file, `${renderLog.frames.join("\n")}\n`);
  }

  return {
    get leaving() {
      return leaving;
    },
    typed: () => ({ draft: typing.editor, sent: [...typing.sent], history: [...typing.history] }),
    async replaceWith(screen, frameDrawn) {
      if (ended) throw new Error("The launch frame has already ended.");
      replaced = true;
      options.signal?.removeEventListener("abort", leave);
      onFrame = frameDrawn;
      instance.rerender(<ScreenRoot env={env}>{screen}</ScreenRoot>);
      try {
        await instance.waitUntilExit();
      } finally {
        ended = true;
        finish();
      }
    },
    close(closeOptions) {
      if (!replaced) end(closeOptions?.erase ?? false);
    },
  };
}
