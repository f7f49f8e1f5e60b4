import type { Node } from "web-tree-sitter";

/** One word of a simple command, as far as it is known before the command runs. */
export interface ShellWord {
  /** The word as written. */
  text: string;
  /**
   * What the shell passes once quotes and escapes are removed; undefined
   * when only the run decides it (a variable, a substitution, a glob, `~`).
   */
  value: string | undefined;
  /**
   * An unknown word that the shell may split into any number of words,
   * none included (`$ARGS`, `*.ts`), rather than exactly one (`"$ARGS"`).
   */
  splits: boolean;
}

/** A word's value, or why it cannot be judged at all. */
type Evaluation = { value: string | undefined; splits: boolean } | { problem: string };

const literal = (value: string): Evaluation => ({ value, splits: false });
const unknownWord: Evaluation = { value: undefined, splits: false };
const splittingWord: Evaluation = { value: undefined, splits: true };

/** Unquoted characters that make bash expand a word against the file system: `r?` may run `rm`. */
const GLOB = /(?<!\\)(?:\\\\)*[*?[]/;
/** Brace expansion turns one word into several: `{rm,x}`, `{1..3}`. */
const BRACE_EXPANSION = /\{[^{}]*(?:,|\.\.)[^{}]*\}/;

/**
 * The word a syntax node stands for. Throws `UnjudgeableWord` for node
 * types Sylk does not know: a command with such a word cannot be judged.
 */
export function shellWordOf(node: Node): ShellWord {
  const evaluation = evaluate(node);
  if ("problem" in evaluation) throw new UnjudgeableWord(evaluation.problem);
  return { text: node.text, ...evaluation };
}

/** A word whose meaning Sylk cannot tell from its syntax. */
export class UnjudgeableWord extends Error {}

function evaluate(node: Node): Evaluation {
  switch (node.type) {
    case "word":
      return unquotedWord(node.text);
    case "raw_string":
      return literal(node.text.slice(1, -1));
    case "string":
      return doubleQuoted(node);
    case "translated_string":
      return node.namedChildren[0] ? evaluate(node.namedChildren[0]) : literal("");
    case "ansi_c_string":
      // `$'\x72m'` is `rm`: escapes are left to the run rather than decoded here.
      return node.text.includes("\\") ? unknownWord : literal(node.text.slice(2, -1));
    case "number":
      return node.namedChildCount === 0 ? literal(node.text) : unknownWord;
    case "concatenation":
      return concatenation(node);
    case "simple_expansion":
    case "expansion":
    case "command_substitution":
    case "brace_expression":
      return splittingWord;
    case "process_substitution":
    case "arithmetic_expansion":
      return unknownWord;
    default:
      return { problem: `Sylk cannot judge the shell word ${JSON.stringify(node.text)} (${node.type})` };
  }
}

function unquotedWord(text: string): Evaluation {
  if (GLOB.test(text) || BRACE_EXPANSION.test(text)) return splittingWord;
  if (text.startsWith("~")) return unknownWord;
  if (text.includes("`") || /(?<!\\)\$/.test(text.replace(/\$$/, ""))) {
    return { problem: `Sylk cannot judge the shell word ${JSON.stringify(text)}` };
  }
  return literal(text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1"));
}

/** In double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
function doubleQuoted(node: Node): Evaluation {
  let value = "";
  let known = true;
  let splits = false;
  for (const child of node.children) {
    if (!child?.isNamed) continue;
    if (child.type === "string_content") {
      value += child.text.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
      continue;
    }
    const part = evaluate(child);
    if ("problem" in part) return part;
    known = false;
    // "$@" and "${list[@]}" are as many words as there are items; any other expansion in quotes is one word.
    splits ||= /[@*]/.test(child.text);
  }
  return known ? literal(value) : { value: undefined, splits };
}

function concatenation(node: Node): Evaluation {
  if (BRACE_EXPANSION.test(node.text)) return splittingWord;
  let value = "";
  let known = true;
  let splits = false;
  for (const child of node.children) {
    if (!child) continue;
    // An unnamed piece (`a$`) is not something the value can be built from.
    if (!child.isNamed) return unknownWord;
    const part = evaluate(child);
    if ("problem" in part) return part;
    if (part.value === undefined) known = false;
    else value += part.value;
    splits ||= part.splits;
  }
  return known ? literal(value) : { value: undefined, splits };
}
