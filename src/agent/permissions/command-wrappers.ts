import type { ShellWord } from "./shell-words.js";
import { commandName, type SimpleCommand } from "./simple-command.js";

/**
 * What a wrapper command runs in its turn: `sudo -u x rm y` runs `rm y`,
 * `bash -c 'a; b'` runs the script `a; b`. `hidden`: it runs something
 * Sylk cannot make out (an option it does not know, a script held in a
 * variable), so the command line cannot be judged by rules.
 */
export type WrappedCommand =
  | { kind: "command"; assignments: ShellWord[]; words: ShellWord[] }
  | { kind: "script"; source: string }
  | { kind: "hidden"; reason: string };

/** How a wrapper's options read, enough to find where the command it runs begins. */
interface OptionGrammar {
  /** Options that take a value: the next word, or the rest of the same word (`-n5`, `--signal=KILL`). */
  valued?: readonly string[];
  /** Options whose value, if any, is in the same word only (`xargs -i{}`). */
  attached?: readonly string[];
  flags?: readonly string[];
  /** Numeric options (`nice -10`). */
  numeric?: boolean;
  /** Options after which nothing runs (`command -v`). */
  noCommand?: readonly string[];
  /** Words between the options and the command (timeout's duration). */
  positional?: number;
  /** `NAME=value` words before the command set its environment (env). */
  assignments?: boolean;
  /** What runs when no command is named (xargs runs echo). */
  defaultCommand?: string;
}

const WRAPPERS: Readonly<Record<string, OptionGrammar>> = {
  sudo: {
    valued: [
      "-u",
      "-g",
      "-h",
      "-p",
      "-C",
      "-D",
      "-r",
      "-t",
      "-U",
      "-T",
      "-R",
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--close-from",
      "--chdir",
      "--role",
      "--type",
      "--other-user",
      "--command-timeout",
      "--chroot",
    ],
    flags: [
      "-A",
      "-b",
      "-E",
      "-H",
      "-n",
      "-P",
      "-S",
      "-k",
      "-B",
      "-N",
      "--askpass",
      "--background",
      "--preserve-env",
      "--set-home",
      "--non-interactive",
      "--preserve-groups",
      "--stdin",
      "--reset-timestamp",
      "--bell",
      "--no-update",
    ],
  },
  doas: { valued: ["-u", "-C"], flags: ["-n", "-L"] },
  env: {
    valued: ["-u", "-C", "-P", "--unset", "--chdir"],
    flags: ["-", "-i", "-0", "-v", "--ignore-environment", "--null", "--debug"],
    assignments: true,
  },
  exec: { valued: ["-a"], flags: ["-c", "-l"] },
  nohup: {},
  time: {
    valued: ["-o", "-f", "--output", "--format"],
    flags: ["-p", "-a", "-v", "-q", "--append", "--verbose", "--quiet", "--portability"],
  },
  command: { flags: ["-p"], noCommand: ["-v", "-V"] },
  builtin: {},
  coproc: {},
  nice: { valued: ["-n", "--adjustment"], numeric: true },
  timeout: {
    valued: ["-s", "-k", "--signal", "--kill-after"],
    flags: ["-v", "--preserve-status", "--foreground", "--verbose"],
    positional: 1,
  },
  xargs: {
    valued: [
      "-I",
      "-L",
      "-n",
      "-P",
      "-s",
      "-d",
      "-E",
      "-a",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--max-lines",
      "--eof",
      "--replace",
      "--process-slot-var",
    ],
    attached: ["-i", "-l", "-e"],
    flags: ["-0", "-r", "-t", "-p", "-x", "-o", "--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit", "--open-tty"],
    defaultCommand: "echo",
  },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  setsid: { flags: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"] },
};

/** Shells whose `-c` script (or heredoc on their input) is bash syntax. */
const SHELLS: ReadonlySet<string> = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"]);
const FIND_ACTIONS: ReadonlySet<string> = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Commands that run another command from their arguments (deny rules also look past them). */
export const WRAPPER_NAMES: ReadonlySet<string> = new Set([...Object.keys(WRAPPERS), "find"]);

/**
 * What this simple command runs besides itself, from its words (and, for a
 * shell, the heredoc or herestring it reads as its script).
 */
export function wrappedCommands(command: SimpleCommand): WrappedCommand[] {
  const name = commandName(command);
  if (name === undefined) return [];
  const grammar = WRAPPERS[name];
  if (grammar) return innerCommand(name, grammar, command.words);
  if (SHELLS.has(name)) return shellScript(name, command);
  if (name === "find") return findActions(command.words);
  if (name === "eval") return evalScript(command.words);
  if (name === "trap") return trapAction(command.words);
  if (name === "alias") return aliasValues(command.words);
  return [];
}

const hidden = (reason: string): WrappedCommand[] => [{ kind: "hidden", reason }];
const unknownWord = (name: string, word: ShellWord) =>
  hidden(`what \`${name}\` runs depends on ${word.text}, which is only known when it runs`);

function innerCommand(name: string, grammar: OptionGrammar, words: readonly ShellWord[]): WrappedCommand[] {
  let index = 1;
  while (index < words.length) {
    const word = words[index] as ShellWord;
    if (word.value === undefined) return unknownWord(name, word);
    if (word.value === "--") {
      index += 1;
      break;
    }
    if (!word.value.startsWith("-") || (word.value === "-" && !grammar.flags?.includes("-"))) break;
    const taken = optionWords(grammar, word.value);
    if (taken === "none") return [];
    if (taken === undefined) return hidden(`\`${name}\` is given an option Sylk does not know (${word.value})`);
    index += taken;
  }
  index += grammar.positional ?? 0;
  const assignments: ShellWord[] = [];
  while (grammar.assignments && index < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index]?.value ?? "")) {
    assignments.push(words[index] as ShellWord);
    index += 1;
  }
  const inner = words.slice(index);
  if (inner.length === 0) {
    if (!grammar.defaultCommand) return [];
    return [{ kind: "command", assignments, words: [{ text: grammar.defaultCommand, value: grammar.defaultCommand, splits: false }] }];
  }
  return [{ kind: "command", assignments, words: inner }];
}

/** How many words an option takes (itself included), `none` when nothing runs after it, undefined when unknown. */
function optionWords(grammar: OptionGrammar, option: string): number | "none" | undefined {
  if (option.startsWith("--")) {
    const [longName = option, value] = option.split(/=(.*)/s);
    if (grammar.noCommand?.includes(longName)) return "none";
    if (grammar.flags?.includes(longName)) return 1;
    if (grammar.valued?.includes(longName)) return value === undefined ? 2 : 1;
    return undefined;
  }
  if (grammar.flags?.includes(option)) return 1;
  if (grammar.numeric && /^-\d+$/.test(option)) return 1;
  for (let at = 1; at < option.length; at += 1) {
    const letter = `-${option[at]}`;
    if (grammar.noCommand?.includes(letter)) return "none";
    if (grammar.attached?.includes(letter)) return 1;
    if (grammar.valued?.includes(letter)) return at === option.length - 1 ? 2 : 1;
    if (!grammar.flags?.includes(letter)) return undefined;
  }
  return 1;
}

/** `bash -c 'script'`, `sh -s <<EOF`: the script a shell runs, when it is written in the command. */
function shellScript(name: string, command: SimpleCommand): WrappedCommand[] {
  const words = command.words;
  let fromString = false;
  let fromInput = false;
  let index = 1;
  for (; index < words.length; index += 1) {
    const word = words[index] as ShellWord;
    if (word.value === undefined) return unknownWord(name, word);
    if (word.value === "--" || word.value === "-") {
      index += 1;
      break;
    }
    if (word.value.startsWith("--")) {
      if (word.value === "--rcfile" || word.value === "--init-file") index += 1;
      continue;
    }
    if (!/^[-+]/.test(word.value)) break;
    const letters = word.value.slice(1);
    fromString ||= letters.includes("c");
    fromInput ||= letters.includes("s");
    // -o and -O name an option in the next word (`-euo pipefail`).
    index += [...letters].filter((letter) => letter === "o" || letter === "O").length;
  }
  if (fromString) {
    const script = words[index];
    if (!script) return [];
    return script.value === undefined ? unknownWord(name, script) : [{ kind: "script", source: script.value }];
  }
  // A script file: what it does is not in the command.
  if (index < words.length && !fromInput) return [];
  const input = command.redirections.filter((redirection) => ["<<", "<<-", "<<<"].includes(redirection.operator)).at(-1);
  if (!input?.target) return [];
  if (input.target.value === undefined) return hidden(`the script \`${name}\` reads from its input is only known when it runs`);
  return [{ kind: "script", source: input.target.value }];
}

/** `find … -exec cmd {} ;` runs cmd for each file found. */
function findActions(words: readonly ShellWord[]): WrappedCommand[] {
  const found: WrappedCommand[] = [];
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as ShellWord;
    if (word.value === undefined) return unknownWord("find", word);
    if (!FIND_ACTIONS.has(word.value)) continue;
    const start = index + 1;
    let end = start;
    while (end < words.length && words[end]?.value !== ";" && words[end]?.value !== "+") end += 1;
    found.push({ kind: "command", assignments: [], words: words.slice(start, end) });
    index = end;
  }
  return found;
}

function evalScript(words: readonly ShellWord[]): WrappedCommand[] {
  const unknown = words.slice(1).find((word) => word.value === undefined);
  if (unknown) return unknownWord("eval", unknown);
  const source = words
    .slice(1)
    .map((word) => word.value)
    .join(" ");
  return source.trim() === "" ? [] : [{ kind: "script", source }];
}

/** `trap 'cmd' EXIT` runs cmd later, as eval would. */
function trapAction(words: readonly ShellWord[]): WrappedCommand[] {
  let index = 1;
  if (words[index]?.value === "--") index += 1;
  const action = words[index];
  if (!action) return [];
  if (action.value === undefined) return unknownWord("trap", action);
  if (action.value === "-l" || action.value === "-p" || action.value === "-" || action.value.trim() === "") return [];
  return [{ kind: "script", source: action.value }];
}

/** `alias npm='touch pwn'` makes a later `npm` run its value, where aliases are expanded. */
function aliasValues(words: readonly ShellWord[]): WrappedCommand[] {
  return words.slice(1).flatMap((word): WrappedCommand[] => {
    if (word.value === undefined) return unknownWord("alias", word);
    const equals = word.value.indexOf("=");
    return equals > 0 ? [{ kind: "script", source: word.value.slice(equals + 1) }] : [];
  });
}
