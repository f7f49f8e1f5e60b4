import type { ShellWord } from "./shell-words.js";

/**
 * One program the shell starts, with what decides how it runs: the
 * variables set for it, its words and its redirections. A shell command
 * line holds any number of them (lists, pipelines, substitutions, loops).
 */
export interface SimpleCommand {
  /** As written, for messages and the blocklist. */
  text: string;
  /** `NAME=value` before the command (`LD_PRELOAD=x npm test`), or a bare assignment, which has no words. */
  assignments: ShellWord[];
  words: ShellWord[];
  redirections: Redirection[];
}

export interface Redirection {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<`, `<&`, `<<`, `<<-`, `<<<`, `>&-`, `<&-`. */
  operator: string;
  /** The file or descriptor it points to; for a heredoc or a herestring, the text it feeds the command. */
  target: ShellWord | undefined;
}

const OUTPUT_OPERATORS: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "&>>", ">&"]);
const DUPLICATING_OPERATORS: ReadonlySet<string> = new Set([">&", "<&"]);

/**
 * The redirections that write a file: every output redirection but to
 * /dev/null or to another descriptor (`2>&1`). Input redirections only
 * read, which the agent may do anyway (reading files needs no approval).
 */
export function fileWrites(command: SimpleCommand): Redirection[] {
  return command.redirections.filter((redirection) => {
    if (!OUTPUT_OPERATORS.has(redirection.operator)) return false;
    const target = redirection.target?.value;
    if (target === "/dev/null") return false;
    return !(DUPLICATING_OPERATORS.has(redirection.operator) && target !== undefined && /^(?:\d+|-)$/.test(target));
  });
}

/**
 * The command with quotes and escapes removed where that keeps its words
 * apart: `rm -rf '/'` reads as `rm -rf /`, while `echo "rm -rf /"` stays
 * one quoted word, for the blocklist's patterns.
 */
export function unquotedText(command: SimpleCommand): string {
  return [...command.assignments, ...command.words]
    .map((word) => (word.value === undefined || /[\s;&|<>()'"`]/.test(word.value) ? word.text : word.value))
    .join(" ");
}

/** The name a command is known by: `/usr/bin/sudo` and `sudo` are both `sudo`. */
export function commandName(command: Pick<SimpleCommand, "words">): string | undefined {
  const name = command.words[0]?.value;
  return name === undefined ? undefined : name.slice(name.lastIndexOf("/") + 1);
}
