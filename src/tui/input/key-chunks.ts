import type { Key } from "ink";

/** One key as a `useInput` handler receives it. */
export interface KeyPress {
  readonly input: string;
  readonly key: Key;
}

/** Bracketed paste markers, as Ink hands them over once it has stripped the escape. */
export const PASTE_START = "[200~";
export const PASTE_END = "[201~";

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Control characters that are keys of their own: Backspace, Ctrl-U, Ctrl-W,
 * Ctrl-C…, and Enter and Tab too. A CR LF pair is one Enter, as a line ends
 * on Windows.
 */
const KEY_CHARACTER = /[\u0000-\u001f\u007f]/;
const KEY_CHARACTERS = /(\r\n|[\u0000-\u001f\u007f])/;

/** A line break followed by more text: a block of several lines, as a paste brings it. */
const MULTI_LINE_BLOCK = /[\r\n][^\r\n]/;

/**
 * A read that comes this soon after an unbracketed multi-line block continues
 * it: a paste larger than the terminal's buffer reaches us in several reads,
 * each as soon as the one before has been handled (a few milliseconds, tens
 * on a busy loop), and its last read may hold a single line and its Enter.
 * No one presses the next key this soon after pasting: the paste has not
 * even been drawn yet.
 */
const PASTE_CONTINUES_MS = 100;

/**
 * Ink splits what one read brings only at escape sequences: `abcd⌫⌫X` or
 * `hello⏎`, typed faster than the event loop reads (a busy loop, SSH, a
 * script), reaches a handler as one input. This splits such an input into
 * the keys it holds, in order, each as Ink reports it when it arrives alone;
 * typed text between them stays one piece. So `hello⏎` sends `hello`,
 * `abc⏎def` sends `abc` and leaves `def` in the fresh prompt, and `/he⇥`
 * completes, as when typed slowly.
 *
 * The content of a bracketed paste is not split: what it brings is text,
 * whatever its characters. A terminal without bracketed paste brings a paste
 * as plain typing, and splitting its line breaks into Enters would send it
 * line by line, running half a prompt. So until this session has seen one
 * bracketed paste (after which the terminal is known to mark every paste),
 * an input holding a line break followed by more text, a multi-line block,
 * is kept whole as pasted text, with the reads that follow it at once. Text
 * ending in a single Enter is still typed text and Enter: that is what a
 * user typing fast or a script sends, and a shell runs such a one-line paste
 * too. The price, on a terminal not yet known to bracket pastes, is that a
 * fast `abc⏎def` stays in the prompt as two lines rather than sending `abc`.
 */
export class KeySplitter {
  private pasting = false;
  private terminalMarksPastes = false;
  private unbracketedPasteAt = Number.NEGATIVE_INFINITY;

  /** `now` in milliseconds; a test may give its own clock. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  split(input: string, key: Key): KeyPress[] {
    if (input === PASTE_START) {
      this.pasting = true;
      this.terminalMarksPastes = true;
    } else if (input === PASTE_END) this.pasting = false;
    else if (!this.pasting && !this.isUnbracketedPaste(input)) return splitKeys(input, key);
    return [{ input, key }];
  }

  private isUnbracketedPaste(input: string): boolean {
    if (this.terminalMarksPastes) return false;
    const now = this.now();
    if (!MULTI_LINE_BLOCK.test(input) && now - this.unbracketedPasteAt >= PASTE_CONTINUES_MS) return false;
    this.unbracketedPasteAt = now;
    return true;
  }
}

/** The keys an input event of Ink holds (see `KeySplitter`); one event that holds one key is returned as it is. */
export function splitKeys(input: string, key: Key): KeyPress[] {
  // An escape sequence (Ink has stripped its ESC) is one key, and so is any single character.
  if (input.length < 2 || key.meta || !KEY_CHARACTER.test(input)) return [{ input, key }];
  return input
    .split(KEY_CHARACTERS)
    .filter((piece) => piece !== "")
    .map(pressOf);
}

/** A piece of a split input as Ink would report it alone. */
function pressOf(piece: string): KeyPress {
  if (piece === "\r\n") return { input: "\r", key: { ...NO_KEY, return: true } };
  if (piece.length > 1) return { input: piece, key: NO_KEY };
  const code = piece.charCodeAt(0);
  switch (piece) {
    case "\r":
      return { input: piece, key: { ...NO_KEY, return: true } };
    case "\t":
      return { input: "", key: { ...NO_KEY, tab: true } };
    case "\b":
      return { input: "", key: { ...NO_KEY, backspace: true } };
    case "\u007f":
      return { input: "", key: { ...NO_KEY, delete: true } };
  }
  // Ctrl+letter (and Ctrl+Space, NUL, which Ink names after the character before "a").
  if (code <= 0x1a && piece !== "\n") return { input: String.fromCharCode(code + 0x60), key: { ...NO_KEY, ctrl: true } };
  return { input: piece, key: { ...NO_KEY, shift: /[A-Z]/.test(piece) } };
}
