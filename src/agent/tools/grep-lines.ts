import { requiredLiterals } from "./grep-literals.js";

/** A matching line: its 1-based number and its text, without its line break. */
export type NumberedLine = [number, string];

/**
 * The lines of a text that may match a pattern, found without cutting the
 * whole text into lines: the lines holding one of the literals every
 * matching line holds (`requiredLiterals`), found by searching the text
 * for them. A file read because it holds a literal is often large and
 * generated (a 1.6 MB file with 46,000 lines and 65 matches), and cutting
 * it into lines and running the pattern on each cost a hundred times
 * the search for the literal. The lines are those `splitLines` gives (cut
 * at each `\n`, a `\r` before it dropped), so a search finds the same ones
 * either way.
 */
export class LineCandidates {
  private constructor(
    /** One literal, matched case-sensitively: `indexOf`. */
    private readonly literal: string | undefined,
    /** Several literals, or any case: one global expression of them. */
    private readonly literals: RegExp | undefined,
  ) {}

  /** The candidates of a pattern (JavaScript syntax, its flags), or undefined when it promises no literal and every line must be tried. */
  static of(pattern: string, flags: string): LineCandidates | undefined {
    const literals = requiredLiterals(pattern);
    if (!literals) return undefined;
    const ignoreCase = flags.includes("i");
    if (literals.length === 1 && !ignoreCase) return new LineCandidates(literals[0], undefined);
    const alternation = literals.map((literal) => literal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|");
    return new LineCandidates(undefined, new RegExp(alternation, ignoreCase ? "gi" : "g"));
  }

  /** The lines of `text` holding a literal, in order, each once. */
  *lines(text: string): Generator<NumberedLine> {
    let counted = 0; // the text before this offset has been counted into `lineNumber`
    let lineNumber = 1;
    let from = 0;
    for (;;) {
      const found = this.next(text, from);
      if (found < 0) return;
      const start = text.lastIndexOf("\n", found - 1) + 1;
      for (let newline = text.indexOf("\n", counted); newline >= 0 && newline < start; newline = text.indexOf("\n", newline + 1))
        lineNumber++;
      counted = start;
      const newline = text.indexOf("\n", found);
      const end = newline < 0 ? text.length : newline;
      // `splitLines` cuts at /\r?\n/: a `\r` before the break is not the line's.
      yield [lineNumber, text.slice(start, newline > start && text.charCodeAt(newline - 1) === 13 ? end - 1 : end)];
      if (newline < 0) return;
      from = newline + 1;
    }
  }

  /** Where the next literal at or after `from` starts, or -1. */
  private next(text: string, from: number): number {
    if (this.literal !== undefined) return text.indexOf(this.literal, from);
    const literals = this.literals as RegExp;
    literals.lastIndex = from;
    return literals.exec(text)?.index ?? -1;
  }
}
