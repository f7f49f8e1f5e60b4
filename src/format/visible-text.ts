import { createRequire } from "node:module";

/**
 * Text from a model, a tool, a file or a repository, made safe to draw on a
 * terminal. A terminal acts on control characters instead of showing them:
 * `\r` and `ESC [2K` rewrite a line, `ESC [8m` conceals what follows,
 * `ESC ]0;…BEL` sets the window title, and bidi or zero-width characters
 * make what is shown differ from what is there. So what the user approves
 * could differ from what runs. Here each such character becomes a visible
 * escape instead: `\e`, `\r`, `\x07`, `\x9b`, `\u202e`, `\u{e0041}`.
 *
 * Escaped: every C0 control (line feed and tab as the options say), DEL,
 * every C1 control (U+0080–U+009F, the 8-bit CSI U+009B among them), every
 * Unicode format character (bidi embeddings, overrides, isolates and marks,
 * zero-width space, joiners, word joiner, invisible operators, BOM, soft
 * hyphen, tag characters), the line and paragraph separators, and lone
 * surrogates. A zero-width joiner between two emoji is kept: it only joins
 * them into one picture (👩‍💻).
 *
 * Every escape is plain ASCII, so its width is its length and Ink, which
 * measures text with string-width (which counts a control character as
 * nothing), lays it out as the terminal draws it. Applying it twice changes
 * nothing more.
 */
export interface VisibleTextOptions {
  /** `\n` starts a new line (the default); false shows it as `\n`, for a one-line field such as a path or a title. */
  newlines?: boolean;
  /**
   * `\t`: "expand" (the default) to spaces up to the next stop every 4
   * columns of its line, since a tab under Ink's layout would move the cursor
   * where Ink does not expect it; "escape" as `\t`; "keep" for plain output
   * that no layout measures.
   */
  tabs?: "expand" | "escape" | "keep";
  /**
   * Colour and style sequences (`ESC [ … m`) removed rather than shown: for a
   * program's output, whose colours would be noise once shown as text.
   * Removed, they are not interpreted either.
   */
  dropColours?: boolean;
}

export interface VisibleText {
  text: string;
  /** Something was shown as an escape (expanded tabs, kept line breaks and dropped colours are not counted). */
  escaped: boolean;
}

const TAB_STOP = 4;
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;
const UNSAFE_ALL = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;
const COLOUR_SEQUENCE = /(?:\u001b\[|\u009b)[0-9;:]*m/g;
const NAMED: Readonly<Record<string, string>> = { "\u001b": "\\e", "\r": "\\r", "\n": "\\n", "\t": "\\t" };
const ZERO_WIDTH_JOINER = "\u200d";
/** An emoji, with the skin tone or presentation selector that may follow it, just before a joiner. */
const EMOJI_BEFORE = /\p{Extended_Pictographic}[\u{1f3fb}-\u{1f3ff}\ufe0f]*$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/** The text with every character a terminal would act on or hide shown as an escape, and whether there was any. */
export function visibleText(text: string, options: VisibleTextOptions = {}): VisibleText {
  const source = options.dropColours ? text.replace(COLOUR_SEQUENCE, "") : text;
  if (!UNSAFE.test(source)) return { text: source, escaped: false };
  const newlines = options.newlines ?? true;
  const tabs = options.tabs ?? "expand";
  const line = new LineColumn();
  let out = "";
  let escaped = false;
  let from = 0;
  for (const match of source.matchAll(UNSAFE_ALL)) {
    const character = match[0];
    const at = match.index;
    out += source.slice(from, at);
    from = at + character.length;
    if (character === "\n" && newlines) {
      out += character;
      line.startAt(out.length);
    } else if (character === "\t" && tabs === "keep") {
      out += character;
    } else if (character === "\t" && tabs === "expand") {
      out += " ".repeat(line.spacesToNextStop(out));
      line.measuredTo(out.length);
    } else if (character === ZERO_WIDTH_JOINER && joinsEmoji(source, at)) {
      out += character;
    } else {
      out += escapeOf(character);
      escaped = true;
    }
  }
  return { text: out + source.slice(from), escaped };
}

/** `visibleText(text, options).text`: for where only the text matters. */
export function visible(text: string, options: VisibleTextOptions = {}): string {
  return visibleText(text, options).text;
}

/** `\e`, `\r`, `\n`, `\t` by name; others by code point: `\x07`, `\x9b`, `\u202e`, `\u{e0041}`. */
function escapeOf(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

function joinsEmoji(text: string, at: number): boolean {
  return EMOJI_BEFORE.test(text.slice(Math.max(0, at - 8), at)) && EMOJI_AFTER.test(text.slice(at + 1, at + 3));
}

/**
 * The column the output has reached on its current line, measured with
 * string-width as Ink measures it. Each part is measured once, so a line of
 * many tabs costs no more than its length.
 */
class LineColumn {
  private column = 0;
  private measured = 0;

  startAt(offset: number): void {
    this.column = 0;
    this.measured = offset;
  }

  spacesToNextStop(out: string): number {
    this.column += columnsOf(out.slice(this.measured));
    this.measured = out.length;
    const spaces = TAB_STOP - (this.column % TAB_STOP);
    this.column += spaces;
    return spaces;
  }

  measuredTo(offset: number): void {
    this.measured = offset;
  }
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Columns the text takes: its length when it is plain ASCII (most code), else string-width's count, which costs far more. */
function columnsOf(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth()(text);
}

let loadedStringWidth: ((text: string) => number) | undefined;
/**
 * string-width, loaded the first time a tab follows other than ASCII text:
 * it builds an `Intl.Segmenter` as it loads (some 25 ms), which the
 * commands, whose output keeps or escapes its tabs, never need. Required
 * from node_modules (a dependency, so a global install has it), the version
 * Ink measures with.
 */
function stringWidth(): (text: string) => number {
  loadedStringWidth ??= (createRequire(import.meta.url)("string-width") as { default: (text: string) => number }).default;
  return loadedStringWidth;
}
