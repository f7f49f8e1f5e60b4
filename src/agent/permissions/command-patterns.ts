import { WRAPPER_NAMES } from "./command-wrappers.js";
import type { ShellWord } from "./shell-words.js";
import { commandName, type SimpleCommand } from "./simple-command.js";

/**
 * The command part of a rule, `run_command(<pattern>)`, as words. A `*`
 * at the end means "then anything": `npm test*`, `npm test *` and Claude
 * Code's `npm test:*` all cover `npm test` and `npm test -- --watch`, not
 * `npm testx`. A `*` inside a word globs within that word (`git log --format=*`,
 * `make build-*`).
 */
export interface CommandPattern {
  words: ReadonlyArray<string | RegExp>;
  /** Any words may follow the pattern's. */
  rest: boolean;
  /**
   * `npm install evil*` read the other way, its last word a glob
   * (`evil-package`): deny rules match either reading, allow rules only
   * the word-bounded one.
   */
  globbedLastWord?: CommandPattern;
}

export function parseCommandPattern(pattern: string): CommandPattern {
  const tokens = pattern
    .trim()
    .split(/\s+/)
    .filter((token) => token !== "");
  const last = tokens.pop();
  if (last === undefined) return { words: [], rest: true };
  let rest = true;
  if (/^\*+$/.test(last)) {
    // `npm test *`: nothing more to match
  } else if (last.endsWith(":*")) {
    tokens.push(last.slice(0, -2));
  } else if (/[\p{L}\p{N}_]\*+$/u.test(last) && !/\*[^*]/.test(last)) {
    // `npm test*`: the word ends where the letters do; what follows is more words.
    const globbedLastWord = { words: [...tokens, last].map(wordMatcher), rest: true };
    return { words: [...tokens, last.replace(/\*+$/, "")].map(wordMatcher), rest: true, globbedLastWord };
  } else {
    // `make build-*` globs its last word, then anything; a pattern without a trailing `*` is exact.
    rest = last.endsWith("*");
    tokens.push(last);
  }
  return { words: tokens.filter((token) => token !== "").map(wordMatcher), rest };
}

function wordMatcher(token: string): string | RegExp {
  if (!token.includes("*")) return token;
  const source = token
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "su");
}

/**
 * Whether an allow rule covers this simple command: every word known and
 * matched, leading assignments included (`LD_PRELOAD=x npm test` needs a
 * rule that names `LD_PRELOAD=x`), the name exactly as written (`./npm`
 * is not `npm`).
 */
export function patternCovers(pattern: CommandPattern, command: SimpleCommand): boolean {
  return matchesFrom(pattern, [...command.assignments, ...command.words], [0], { unknownMatches: false, baseNamesFrom: Infinity });
}

/**
 * Whether a deny rule may match this simple command, judged
 * conservatively: with or without its assignments, its name by base name
 * (`/bin/rm` is `rm`), past a wrapper (`sudo -u x rm y`: from each of its
 * arguments), and a word known only when it runs may be any word, or any
 * number of words if the shell splits it (`$CMD` may be `rm -rf`).
 */
export function patternMayMatch(pattern: CommandPattern, command: SimpleCommand): boolean {
  const words = [...command.assignments, ...command.words];
  const name = command.assignments.length;
  const starts = [0, name];
  if (WRAPPER_NAMES.has(commandName(command) ?? "")) for (let start = name + 1; start < words.length; start += 1) starts.push(start);
  const readings = pattern.globbedLastWord ? [pattern, pattern.globbedLastWord] : [pattern];
  return readings.some((reading) => matchesFrom(reading, words, starts, { unknownMatches: true, baseNamesFrom: name }));
}

interface MatchOptions {
  /** A word only known at run time matches any pattern word (deny rules), or none (allow rules: only "then anything" takes it). */
  unknownMatches: boolean;
  /** From this index on, a word that starts the match may match by its base name (`/bin/rm` as `rm`). */
  baseNamesFrom: number;
}

/**
 * Whether the pattern matches the words from any of these starts. A table
 * filled from the end (words by pattern words), so that long command lines
 * and many starts cost no more than one pass each.
 */
function matchesFrom(pattern: CommandPattern, words: readonly ShellWord[], starts: readonly number[], options: MatchOptions): boolean {
  const columns = pattern.words.length + 1;
  const table = new Uint8Array((words.length + 1) * columns);
  const at = (wordIndex: number, patternIndex: number) => table[wordIndex * columns + patternIndex] === 1;
  // Whether every word from here on may vanish: unknown words the shell may split into nothing.
  let vanishes = true;
  for (let wordIndex = words.length; wordIndex >= 0; wordIndex -= 1) {
    const word = words[wordIndex];
    if (word) vanishes &&= options.unknownMatches && word.value === undefined && word.splits;
    for (let patternIndex = pattern.words.length; patternIndex >= 0; patternIndex -= 1) {
      const matched =
        patternIndex === pattern.words.length ? pattern.rest || vanishes : word !== undefined && step(word, wordIndex, patternIndex);
      table[wordIndex * columns + patternIndex] = matched ? 1 : 0;
    }
  }
  return starts.some((start) => at(start, 0));

  function step(word: ShellWord, wordIndex: number, patternIndex: number): boolean {
    const expected = pattern.words[patternIndex] as string | RegExp;
    if (word.value !== undefined) {
      const byBaseName = patternIndex === 0 && wordIndex >= options.baseNamesFrom;
      return wordMatches(expected, word.value, byBaseName) && at(wordIndex + 1, patternIndex + 1);
    }
    if (!options.unknownMatches) return false;
    if (!word.splits) return at(wordIndex + 1, patternIndex + 1);
    // A splitting word may become nothing, or take this pattern word and perhaps more.
    return at(wordIndex + 1, patternIndex) || at(wordIndex + 1, patternIndex + 1) || at(wordIndex, patternIndex + 1);
  }
}

function wordMatches(expected: string | RegExp, value: string, byBaseName: boolean): boolean {
  const matches = (candidate: string) => (typeof expected === "string" ? expected === candidate : expected.test(candidate));
  return matches(value) || (byBaseName && value.includes("/") && matches(value.slice(value.lastIndexOf("/") + 1)));
}
