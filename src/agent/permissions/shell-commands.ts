import type { Node } from "web-tree-sitter";
import type { ShellSyntaxParser } from "../../parsing/bash-parser.js";
import { wrappedCommands } from "./command-wrappers.js";
import { shellWordOf, UnjudgeableWord, type ShellWord } from "./shell-words.js";
import { EXPRESSIONS, REDIRECTS, RESERVED_WORDS, STRUCTURE } from "./shell-node-kinds.js";
import type { Redirection, SimpleCommand } from "./simple-command.js";

/**
 * A shell command line as the simple commands it runs. `parsed: false`:
 * something in it cannot be judged (a syntax error, a construct Sylk does
 * not know, a script only known at run time); `commands` then holds what
 * could be made out, for deny rules to look at.
 */
export type ShellAnalysis = { parsed: true; commands: SimpleCommand[] } | { parsed: false; reason: string; commands: SimpleCommand[] };

/** Shells within shells (`bash -c "sh -c '…'"`) deeper than this are not followed. */
const MAX_NESTING = 4;
/** Nor wrappers within wrappers (`sudo nice timeout 5 rm`) deeper than this. */
const MAX_WRAPPERS = 8;

/** The simple commands of a command line, found everywhere bash would run one. */
export function analyseShellCommand(source: string, parser: ShellSyntaxParser): ShellAnalysis {
  const walker = new CommandWalker(parser);
  walker.script(source, [], 0);
  const [problem] = walker.problems;
  return problem === undefined
    ? { parsed: true, commands: walker.commands }
    : { parsed: false, reason: problem, commands: walker.commands };
}

interface WalkContext {
  /** Redirections of an enclosing statement (`{ a; b; } > out`), which apply to each command inside. */
  redirections: Redirection[];
  /** Shells entered to get here (`bash -c`, `eval`). */
  depth: number;
  /** Inside `` `…` ``, where `` \` `` and `\$` start substitutions of their own. */
  inBackticks: boolean;
}

/** What a redirection node holds besides the redirection itself. */
interface RedirectParts {
  redirections: Redirection[];
  /** Words tree-sitter reads as more targets and bash as more arguments (`echo > f hello`). */
  extraWords: ShellWord[];
}

class CommandWalker {
  readonly commands: SimpleCommand[] = [];
  readonly problems: string[] = [];

  constructor(private readonly parser: ShellSyntaxParser) {}

  script(source: string, redirections: Redirection[], depth: number): void {
    if (depth > MAX_NESTING) {
      this.problems.push(`it nests shells more than ${MAX_NESTING} deep`);
      return;
    }
    const tree = this.parser.parse(source);
    if (!tree) {
      this.problems.push("the shell parser could not read it");
      return;
    }
    try {
      this.walk(tree.rootNode, { redirections, depth, inBackticks: false });
    } finally {
      tree.delete(); // WASM memory is not garbage-collected
    }
  }

  private walk(node: Node, context: WalkContext): void {
    if (node.isError || node.isMissing) {
      this.problems.push(`its syntax is incomplete or beyond what Sylk's shell parser reads (near ${snippet(node)})`);
      this.walkChildren(node, context);
      return;
    }
    switch (node.type) {
      case "command":
        return this.simpleCommand(node, context, [], node.text);
      case "redirected_statement":
        return this.redirectedStatement(node, context);
      case "variable_assignment":
      case "variable_assignments":
        return this.bareAssignments(node, context);
      case "declaration_command":
      case "unset_command":
        return this.declaration(node, context);
      case "for_statement":
        return this.forStatement(node, context);
      case "function_definition":
        return this.functionDefinition(node, context);
      case "command_substitution":
      case "process_substitution":
        return this.substitution(node, context);
    }
    if (REDIRECTS.has(node.type)) {
      // A redirection without a command still opens its file: `$(> f)` empties f.
      const parts = this.redirection(node, context);
      this.push({ text: node.text, assignments: [], words: parts.extraWords, redirections: parts.redirections }, context);
      return;
    }
    if (EXPRESSIONS.has(node.type)) {
      this.checkLeaf(node, context);
      this.walkChildren(node, context);
      return;
    }
    if (STRUCTURE.has(node.type)) {
      this.walkChildren(node, context);
      return;
    }
    this.problems.push(`it uses a shell construct Sylk does not judge (${node.type})`);
  }

  private walkChildren(node: Node, context: WalkContext): void {
    for (const child of node.namedChildren) if (child) this.walk(child, context);
  }

  /** Words whose text still holds what bash would run: tree-sitter does not read nested backticks. */
  private checkLeaf(node: Node, context: WalkContext): void {
    if (node.childCount > 0) return;
    const text = node.text;
    const escapedInBackticks = context.inBackticks && /\\[`$]/.test(text);
    const strayBacktick = node.type !== "raw_string" && /(?<!\\)`/.test(text);
    if (escapedInBackticks || strayBacktick)
      this.problems.push(`it nests command substitutions in a way Sylk does not judge (${snippet(node)})`);
  }

  private simpleCommand(node: Node, context: WalkContext, extraWords: ShellWord[], text: string): void {
    const inner = this.innerContext(context);
    const assignments: ShellWord[] = [];
    const words: ShellWord[] = [];
    const redirections = [...context.redirections];
    for (const child of node.children) {
      if (!child) continue;
      // `$"…"` leaves its `$` beside the string; nothing else unnamed belongs in a command.
      if (!child.isNamed) {
        if (child.type !== "$") this.problems.push(`it uses a shell construct Sylk does not judge (${child.type})`);
        continue;
      }
      if (child.type === "variable_assignment") {
        assignments.push(this.assignment(child, inner));
      } else if (REDIRECTS.has(child.type)) {
        const parts = this.redirection(child, context);
        redirections.push(...parts.redirections);
        extraWords = [...extraWords, ...parts.extraWords];
      } else {
        const wordNode = child.type === "command_name" ? child.namedChildren[0] : child;
        if (!wordNode) continue;
        words.push(this.word(wordNode));
        this.walk(wordNode, inner);
      }
    }
    const name = words[0]?.text;
    if (name !== undefined && RESERVED_WORDS.has(name))
      this.problems.push(`the shell parser read \`${name}\` as a command, where bash reads a keyword`);
    this.push({ text, assignments, words: [...words, ...extraWords], redirections }, context);
  }

  /** Records a simple command and whatever it runs in its turn (`sudo rm`, `bash -c '…'`). */
  private push(command: SimpleCommand, context: WalkContext, wrappers = 0): void {
    this.commands.push(command);
    if (wrappers > MAX_WRAPPERS) {
      this.problems.push(`it wraps commands in commands more than ${MAX_WRAPPERS} deep`);
      return;
    }
    for (const wrapped of wrappedCommands(command)) {
      if (wrapped.kind === "hidden") {
        this.problems.push(wrapped.reason);
      } else if (wrapped.kind === "script") {
        this.script(wrapped.source, command.redirections, context.depth + 1);
      } else {
        const assignments = [...command.assignments, ...wrapped.assignments];
        const text = [...assignments, ...wrapped.words].map((word) => word.text).join(" ");
        this.push({ text, assignments, words: wrapped.words, redirections: command.redirections }, context, wrappers + 1);
      }
    }
  }

  private redirectedStatement(node: Node, context: WalkContext): void {
    const parts = { redirections: [] as Redirection[], extraWords: [] as ShellWord[] };
    for (const child of node.namedChildren) {
      if (!child || !REDIRECTS.has(child.type)) continue;
      const found = this.redirection(child, context);
      parts.redirections.push(...found.redirections);
      parts.extraWords.push(...found.extraWords);
    }
    const body = node.childForFieldName("body");
    const redirected = { ...context, redirections: [...context.redirections, ...parts.redirections] };
    if (!body) {
      this.push({ text: node.text, assignments: [], words: parts.extraWords, redirections: redirected.redirections }, context);
      return;
    }
    if (body.type === "command") return this.simpleCommand(body, redirected, parts.extraWords, node.text);
    // bash gives a redirection after `a | b` or `a && b` to b alone.
    if (body.type === "pipeline" || body.type === "list") {
      const statements = body.namedChildren.filter((child): child is Node => child !== null);
      const last = statements.pop();
      for (const statement of statements) this.walk(statement, context);
      if (last?.type === "command") return this.simpleCommand(last, redirected, parts.extraWords, `${last.text} ${redirectionText(node)}`);
      if (last) this.walk(last, redirected);
    } else {
      this.walk(body, redirected);
    }
    if (parts.extraWords.length > 0) this.problems.push(`words follow the redirection of a compound command (${snippet(node)})`);
  }

  private redirection(node: Node, context: WalkContext): RedirectParts {
    const inner = this.innerContext(context);
    const operator = node.children.find((child) => child !== null && !child.isNamed)?.text ?? "";
    if (node.type === "heredoc_redirect") return this.heredoc(node, operator, context);
    const targets = node.namedChildren.filter((child): child is Node => child !== null && child.type !== "file_descriptor");
    for (const target of targets) this.walk(target, inner);
    const [target, ...extra] = targets.map((target) => this.word(target));
    if (node.type === "herestring_redirect") return { redirections: [{ operator: "<<<", target }], extraWords: [] };
    return { redirections: [{ operator, target }], extraWords: extra };
  }

  /** `cmd <<EOF … EOF`: tree-sitter hangs what follows the marker on that line (`| bash`, `&& x`, `> out`, more words) under the heredoc. */
  private heredoc(node: Node, operator: string, context: WalkContext): RedirectParts {
    const inner = this.innerContext(context);
    const quoted = /['"\\]/.test(node.children.find((child) => child?.type === "heredoc_start")?.text ?? "");
    const parts: RedirectParts = { redirections: [], extraWords: [] };
    let body: ShellWord | undefined;
    node.children.forEach((child, index) => {
      if (!child?.isNamed) return;
      const field = node.fieldNameForChild(index);
      if (child.type === "heredoc_body") {
        // Unquoted, the body is expanded first: `$(…)` in it runs (and backticks, which tree-sitter does not read there).
        if (!quoted) this.walk(child, inner);
        const literal = quoted || !/[$`\\]/.test(child.text);
        body = { text: child.text, value: literal ? child.text : undefined, splits: false };
      } else if (field === "argument") {
        parts.extraWords.push(this.word(child));
        this.walk(child, inner);
      } else if (REDIRECTS.has(child.type)) {
        const more = this.redirection(child, context);
        parts.redirections.push(...more.redirections);
        parts.extraWords.push(...more.extraWords);
      } else if (!["heredoc_start", "heredoc_end", "file_descriptor"].includes(child.type)) {
        this.walk(child, context);
      }
    });
    parts.redirections.unshift({ operator, target: body });
    return parts;
  }

  private bareAssignments(node: Node, context: WalkContext): void {
    const nodes = node.type === "variable_assignment" ? [node] : node.namedChildren.filter((child): child is Node => child !== null);
    const assignments = nodes.map((assignment) => this.assignment(assignment, this.innerContext(context)));
    this.push({ text: node.text, assignments, words: [], redirections: context.redirections }, context);
  }

  /** `NAME=value` as one word: known only when the name and the value are. */
  private assignment(node: Node, context: WalkContext): ShellWord {
    this.walkChildren(node, context);
    const name = node.childForFieldName("name");
    const value = node.childForFieldName("value");
    const operator = node.children.find((child) => child !== null && !child.isNamed)?.text ?? "=";
    const assigned = value === null ? "" : value.type === "array" ? undefined : this.word(value).value;
    const known = name?.type === "variable_name" && assigned !== undefined;
    return { text: node.text, value: known ? `${name.text}${operator}${assigned}` : undefined, splits: false };
  }

  /** `export NAME=value`, `local x`, `unset -f f`: a builtin with words like any command. */
  private declaration(node: Node, context: WalkContext): void {
    const inner = this.innerContext(context);
    const keyword = node.children[0]?.text ?? node.type;
    const words: ShellWord[] = [{ text: keyword, value: keyword, splits: false }];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        words.push(this.assignment(child, inner));
      } else {
        words.push(child.type === "variable_name" ? { text: child.text, value: child.text, splits: false } : this.word(child));
        this.walk(child, inner);
      }
    }
    this.push({ text: node.text, assignments: [], words, redirections: context.redirections }, context);
  }

  /** A `for`/`select` loop assigns its variable, as `NAME=…` would, then runs its body. */
  private forStatement(node: Node, context: WalkContext): void {
    const variable = node.childForFieldName("variable");
    const header = node.children
      .filter((child): child is Node => child !== null && child.type !== "do_group" && child.type !== ";")
      .map((child) => child.text)
      .join(" ");
    if (variable)
      this.push(
        {
          text: header,
          assignments: [{ text: variable.text, value: undefined, splits: false }],
          words: [],
          redirections: context.redirections,
        },
        context,
      );
    for (const child of node.namedChildren) if (child && child.id !== variable?.id) this.walk(child, context);
  }

  /** The body runs wherever the function is called, with the definition's redirections. */
  private functionDefinition(node: Node, context: WalkContext): void {
    const redirections = [...context.redirections];
    for (const child of node.namedChildren) {
      if (child && REDIRECTS.has(child.type)) redirections.push(...this.redirection(child, context).redirections);
    }
    const body = node.childForFieldName("body");
    if (body) this.walk(body, { ...context, redirections });
  }

  /** `$(…)`, `` `…` ``, `<(…)`: their commands run first, their output captured rather than redirected. */
  private substitution(node: Node, context: WalkContext): void {
    const backticks = node.children[0]?.text === "`";
    this.walkChildren(node, { ...this.innerContext(context), inBackticks: context.inBackticks || backticks });
  }

  /** Where substitutions inside a command's words run: not under the command's own redirections. */
  private innerContext(context: WalkContext): WalkContext {
    return { ...context, redirections: [] };
  }

  private word(node: Node): ShellWord {
    try {
      return shellWordOf(node);
    } catch (error) {
      if (!(error instanceof UnjudgeableWord)) throw error;
      this.problems.push(error.message);
      return { text: node.text, value: undefined, splits: true };
    }
  }
}

function redirectionText(node: Node): string {
  return node.namedChildren
    .filter((child): child is Node => child !== null && REDIRECTS.has(child.type))
    .map((child) => child.text)
    .join(" ");
}

function snippet(node: Node): string {
  const text = node.text.replace(/\s+/g, " ").trim();
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text || node.type);
}
