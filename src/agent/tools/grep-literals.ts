/**
 * What a grep pattern promises about the lines it matches: literal text one
 * of which each such line holds. A file holding none of them cannot match,
 * so it is passed over after a byte search (`Buffer.indexOf`) instead of
 * being decoded, masked and matched line by line. The reading is
 * conservative: anything it does not understand (back-references, escapes
 * naming code points, groups) only shortens or drops a literal, so a
 * promise it makes always holds.
 */

/** Escapes that stand for one character or a zero-width test: they end a literal. */
const CLASS_ESCAPES = new Set(["b", "B", "d", "D", "w", "W", "s", "S", "n", "r", "t", "f", "v"]);
const QUANTIFIER = /^\{(\d+)(?:,(\d*))?\}/;

/**
 * For a pattern (JavaScript syntax, already known to compile): literals such
 * that every matching line contains at least one of them, one per top-level
 * alternative (its longest); undefined when some alternative promises none.
 */
export function requiredLiterals(pattern: string): string[] | undefined {
  const literals: string[] = [];
  for (const runs of literalRunsPerAlternative(pattern) ?? [[]]) {
    const longest = runs.reduce((best, run) => (run.length > best.length ? run : best), "");
    if (longest === "") return undefined;
    literals.push(longest);
  }
  return literals;
}

/**
 * For each top-level alternative of a pattern, the literal runs every line
 * matching it contains (possibly none); undefined when some alternative
 * holds an escape this reading does not know.
 */
export function literalRunsPerAlternative(pattern: string): string[][] | undefined {
  const alternatives: string[][] = [];
  for (const alternative of topLevelAlternatives(pattern)) {
    // A run holding half a surrogate pair or U+FFFD (what invalid UTF-8 decodes to) promises nothing about the bytes.
    const runs = literalRuns(alternative)?.filter((run) => !/[\uD800-\uDFFF\uFFFD]/.test(run));
    if (!runs) return undefined;
    alternatives.push(runs);
  }
  return alternatives;
}

/** The pattern cut at each `|` outside groups and classes. */
function topLevelAlternatives(pattern: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === "\\") index++;
    else if (character === "[") index = classEnd(pattern, index);
    else if (character === "(") depth++;
    else if (character === ")") depth--;
    else if (character === "|" && depth === 0) {
      alternatives.push(pattern.slice(start, index));
      start = index + 1;
    }
  }
  alternatives.push(pattern.slice(start));
  return alternatives;
}

/** Index of the `]` closing the class opened at `open` (JavaScript: `[]` and `[^]` close at once). */
function classEnd(pattern: string, open: number): number {
  let index = open + 1;
  if (pattern[index] === "^") index++;
  for (; index < pattern.length; index++) {
    if (pattern[index] === "\\") index++;
    else if (pattern[index] === "]") return index;
  }
  return pattern.length;
}

/** Index of the `)` closing the group opened at `open`. */
function groupEnd(pattern: string, open: number): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === "\\") index++;
    else if (character === "[") index = classEnd(pattern, index);
    else if (character === "(") depth++;
    else if (character === ")" && --depth === 0) return index;
  }
  return pattern.length;
}

/**
 * The runs of literal characters a match of this alternative must contain,
 * in order; undefined when the alternative holds an escape this reading does
 * not know (its meaning could hide a required character's absence).
 */
function literalRuns(alternative: string): string[] | undefined {
  const runs: string[] = [];
  let run = "";
  const end = () => {
    if (run !== "") runs.push(run);
    run = "";
  };
  for (let index = 0; index < alternative.length; index++) {
    const character = alternative[index] as string;
    let literal: string | undefined;
    if (character === "\\") {
      const escaped = alternative[++index];
      if (escaped === undefined) return undefined;
      if (/[A-Za-z0-9]/.test(escaped)) {
        if (!CLASS_ESCAPES.has(escaped)) return undefined;
      } else {
        literal = escaped;
      }
    } else if (character === "[") {
      index = classEnd(alternative, index);
    } else if (character === "(") {
      index = groupEnd(alternative, index);
    } else if (!"^$.*+?{}]|)".includes(character)) {
      literal = character;
    }
    // What follows an atom may make it optional or repeat it.
    const quantifier = quantifierAt(alternative, index + 1);
    if (literal !== undefined && (!quantifier || quantifier.min > 0)) run += literal;
    if (literal === undefined || quantifier) end();
    if (quantifier) index += quantifier.length;
  }
  end();
  return runs;
}

/** The quantifier at `index` (with a lazy `?`), if there is one. */
function quantifierAt(pattern: string, index: number): { min: number; length: number } | undefined {
  const character = pattern[index];
  let min: number;
  let length: number;
  if (character === "*" || character === "?") [min, length] = [0, 1];
  else if (character === "+") [min, length] = [1, 1];
  else if (character === "{") {
    const match = QUANTIFIER.exec(pattern.slice(index));
    if (!match) return undefined;
    [min, length] = [Number(match[1]), match[0].length];
  } else return undefined;
  if (pattern[index + length] === "?") length++;
  return { min, length };
}
