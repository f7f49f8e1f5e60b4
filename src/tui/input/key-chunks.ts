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
 * Control characters that are keys of their own (Backspace, Ctrl-U, Ctrl-W,
 * Ctrl-C…). Tab and the line breaks are not among them: a paste without
 * bracketed-paste support brings those, and they stay in its text.
 */
const KEY_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const KEY_CHARACTERS = /([\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f])/;

/**
 * Ink splits what one read brings only at escape sequences: `abcd⌫⌫X`, typed
 * faster than the event loop reads (a busy loop, SSH, a script), reaches a
 * handler as one input of seven characters. This splits such an input into
 * the keys it holds, in order, each as Ink reports it when it arrives alone;
 * typed text between them stays one piece. The content of a bracketed paste
 * is not split: what it brings is text, whatever its characters.
 */
export class KeySplitter {
  private pasting = false;

  split(input: string, key: Key): KeyPress[] {
    if (input === PASTE_START) this.pasting = true;
    else if (input === PASTE_END) this.pasting = false;
    else if (!this.pasting) return splitKeys(input, key);
    return [{ input, key }];
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
