import type { ShellWord } from "./shell-words.js";
import type { SimpleCommand } from "./simple-command.js";

/** Where one command may end and another begin, read without a parser. */
const SEPARATORS = /\$\(|<\(|>\(|[;&|\n(){}`]/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const REDIRECTION = /^\d*(?:[<>]|&>)/;
/** Words that open or close a construct rather than name a command: `if rm x` runs `rm x`. */
const RESERVED: ReadonlySet<string> = new Set([
  "!",
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "while",
  "until",
  "do",
  "done",
  "time",
  "coproc",
  "{",
  "}",
]);

/**
 * The pieces of a command line that could not be parsed, each read as a
 * simple command: split at every character that may separate commands,
 * quotes dropped. Crude on purpose, and only for deny rules and the
 * blocklist, which should rather see a command that is not one than miss
 * one that is.
 */
export function textFragments(source: string): SimpleCommand[] {
  return source
    .replace(/\\\n/g, " ")
    .split(SEPARATORS)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "")
    .map(fragmentCommand);
}

function fragmentCommand(text: string): SimpleCommand {
  const tokens = text.split(/\s+/).filter((token) => !REDIRECTION.test(token));
  while (tokens[0] !== undefined && RESERVED.has(tokens[0])) tokens.shift();
  const assignments: ShellWord[] = [];
  while (tokens[0] !== undefined && ASSIGNMENT.test(tokens[0])) assignments.push(fragmentWord(tokens.shift() as string));
  return { text, assignments, words: tokens.map(fragmentWord), redirections: [] };
}

function fragmentWord(token: string): ShellWord {
  const unquoted = token.replace(/["']/g, "");
  const unknown = /[$*?[~]/.test(unquoted);
  return { text: token, value: unknown ? undefined : unquoted.replace(/\\(.)/g, "$1"), splits: unknown };
}
