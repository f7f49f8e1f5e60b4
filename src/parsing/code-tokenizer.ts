/**
 * Code-aware tokenisation shared by the full-text index, the built-in
 * embedder and query parsing. Identifiers are kept whole and also split at
 * camelCase, snake_case and digit boundaries, so `parseHTTPHeader` is found by
 * "parse", "http", "header" and "parsehttpheader". Two-letter technical terms
 * (db, io, ui, fs, id) are kept; one-letter tokens, pure numbers, stop words
 * and very long runs (hashes, base64) are not.
 *
 * It runs over every byte of the repository, so it is a hand-rolled scan over
 * character codes rather than nested regular expressions (about 6× faster).
 */

const MAX_TOKEN_LENGTH = 40;

/** English function words and keywords so common in code that they carry no signal. */
const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "been",
  "but",
  "by",
  "can",
  "did",
  "does",
  "doing",
  "each",
  "for",
  "had",
  "has",
  "have",
  "he",
  "her",
  "here",
  "him",
  "his",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "just",
  "me",
  "more",
  "most",
  "my",
  "no",
  "nor",
  "not",
  "now",
  "of",
  "on",
  "once",
  "only",
  "or",
  "other",
  "our",
  "out",
  "own",
  "same",
  "she",
  "should",
  "so",
  "some",
  "such",
  "than",
  "that",
  "the",
  "their",
  "them",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "through",
  "to",
  "too",
  "very",
  "was",
  "we",
  "were",
  "what",
  "when",
  "where",
  "which",
  "while",
  "who",
  "whom",
  "why",
  "will",
  "with",
  "would",
  "you",
  "your",
  "also",
  "about",
  "after",
  "again",
  "all",
  "any",
  "because",
  "before",
  "being",
  "both",
  "during",
  "few",
  "from",
  "further",
  "off",
  "over",
  "under",
  "until",
  "up",
  "down",
  "do",
  "am",
  "let",
  "const",
  "var",
  "return",
  "def",
  "self",
  "end",
  "else",
  "elif",
  "fn",
  "func",
  "pub",
  "use",
  "using",
]);

export interface TokenizeOptions {
  /** Keep stop words (path segments, exact phrases). Default false. */
  keepStopWords?: boolean;
}

// biome-ignore lint/suspicious/noConstEnum: never exported, so the compiler inlines each class as a number in the tokenizer's inner loop.
const enum CharClass {
  Other = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
  Joiner = 4, // '_' and '$': part of an identifier, split point between parts
}

const CLASS_OF = new Uint8Array(128);
for (let code = 97; code <= 122; code++) CLASS_OF[code] = CharClass.Lower;
for (let code = 65; code <= 90; code++) CLASS_OF[code] = CharClass.Upper;
for (let code = 48; code <= 57; code++) CLASS_OF[code] = CharClass.Digit;
CLASS_OF[95] = CharClass.Joiner;
CLASS_OF[36] = CharClass.Joiner;

const NON_ASCII_CLASS = new Map<number, CharClass>();
const LETTER_OR_NUMBER = /[\p{L}\p{N}]/u;

/** ASCII by table; other characters once by Unicode property (é, ß, 日 are word characters). */
function classOf(code: number): CharClass {
  if (code < 128) return CLASS_OF[code] as CharClass;
  let known = NON_ASCII_CLASS.get(code);
  if (known === undefined) {
    const character = String.fromCharCode(code);
    known = !LETTER_OR_NUMBER.test(character) ? CharClass.Other : character !== character.toLowerCase() ? CharClass.Upper : CharClass.Lower;
    NON_ASCII_CLASS.set(code, known);
  }
  return known;
}

/** Whether a character code belongs to a word: letters, digits, `_` and `$`. */
export function isIdentifierCode(code: number): boolean {
  return classOf(code) !== CharClass.Other;
}

function isNumeric(token: string): boolean {
  for (let index = 0; index < token.length; index++) {
    const code = token.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function accept(token: string, keepStopWords: boolean): boolean {
  return token.length >= 2 && token.length <= MAX_TOKEN_LENGTH && !isNumeric(token) && (keepStopWords || !STOP_WORDS.has(token));
}

/** Whether the text's tokens (stop words left out) include this lower-case token when a word yields it. */
export function isContentToken(token: string): boolean {
  return accept(token, false);
}

/**
 * Part boundaries inside one identifier [start, end): `_`/`$`, lower→Upper
 * (`parseHeader`), the last capital of an acronym before a lower-case letter
 * (`HTTPHeader` → HTTP, Header), and letter↔digit changes.
 */
function emitParts(text: string, start: number, end: number, out: string[], keepStopWords: boolean): number {
  let parts = 0;
  let partStart = -1;
  let previous = CharClass.Other;
  const flush = (partEnd: number) => {
    if (partStart >= 0 && partEnd > partStart) {
      parts++;
      const part = text.slice(partStart, partEnd).toLowerCase();
      if (accept(part, keepStopWords)) out.push(part);
    }
    partStart = -1;
  };
  for (let index = start; index < end; index++) {
    const current = classOf(text.charCodeAt(index));
    if (current === CharClass.Joiner) {
      flush(index);
      previous = current;
      continue;
    }
    if (partStart < 0) {
      partStart = index;
    } else if (
      (current === CharClass.Upper && previous === CharClass.Lower) ||
      (current === CharClass.Digit) !== (previous === CharClass.Digit)
    ) {
      flush(index);
      partStart = index;
    } else if (
      current === CharClass.Lower &&
      previous === CharClass.Upper &&
      index - 1 > partStart // an acronym run before this capital: "HTTPHeader" splits before "H"
    ) {
      flush(index - 1);
      partStart = index - 1;
    }
    previous = current;
  }
  flush(end);
  return parts;
}

/**
 * All index terms of a text, in order, with repeats (term frequency matters to
 * callers that count). The whole identifier comes first, then its parts.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const keepStopWords = options.keepStopWords === true;
  const tokens: string[] = [];
  const length = text.length;
  let index = 0;
  while (index < length) {
    if (classOf(text.charCodeAt(index)) === CharClass.Other) {
      index++;
      continue;
    }
    const start = index;
    let hasUpper = false;
    let hasJoinerOrDigitChange = false;
    let previous = CharClass.Other;
    while (index < length) {
      const current = classOf(text.charCodeAt(index));
      if (current === CharClass.Other) break;
      if (current === CharClass.Upper) hasUpper = true;
      if (
        current === CharClass.Joiner ||
        (previous !== CharClass.Other && (current === CharClass.Digit) !== (previous === CharClass.Digit))
      ) {
        hasJoinerOrDigitChange = true;
      }
      previous = current;
      index++;
    }
    // Fast path: a plain lower-case word is its own only token.
    if (!hasUpper && !hasJoinerOrDigitChange) {
      const word = text.slice(start, index);
      if (accept(word, keepStopWords)) tokens.push(word);
      continue;
    }
    const wholeAt = tokens.length;
    tokens.push(""); // placeholder for the whole identifier, kept only when it differs from its single part
    const parts = emitParts(text, start, index, tokens, keepStopWords);
    let trimmedStart = start;
    let trimmedEnd = index;
    while (trimmedStart < trimmedEnd && classOf(text.charCodeAt(trimmedStart)) === CharClass.Joiner) trimmedStart++;
    while (trimmedEnd > trimmedStart && classOf(text.charCodeAt(trimmedEnd - 1)) === CharClass.Joiner) trimmedEnd--;
    const whole = text.slice(trimmedStart, trimmedEnd).toLowerCase();
    const singlePartSame = parts === 1 && tokens.length === wholeAt + 2 && tokens[wholeAt + 1] === whole;
    if (!singlePartSame && accept(whole, keepStopWords)) tokens[wholeAt] = whole;
    else tokens.splice(wholeAt, 1);
  }
  return tokens;
}

/** Splits one identifier into its lower-cased parts: `getHTTPResponse2` → get, http, response, 2. */
export function splitIdentifier(identifier: string): string[] {
  const parts: string[] = [];
  let partStart = -1;
  let previous = CharClass.Other;
  const flush = (end: number) => {
    if (partStart >= 0 && end > partStart) parts.push(identifier.slice(partStart, end).toLowerCase());
    partStart = -1;
  };
  for (let index = 0; index < identifier.length; index++) {
    const current = classOf(identifier.charCodeAt(index));
    if (current === CharClass.Joiner || current === CharClass.Other) {
      flush(index);
    } else if (partStart < 0) {
      partStart = index;
    } else if (
      (current === CharClass.Upper && previous === CharClass.Lower) ||
      (current === CharClass.Digit) !== (previous === CharClass.Digit)
    ) {
      flush(index);
      partStart = index;
    } else if (current === CharClass.Lower && previous === CharClass.Upper && index - 1 > partStart) {
      flush(index - 1);
      partStart = index - 1;
    }
    previous = current;
  }
  flush(identifier.length);
  return parts;
}

/** Terms of a project-relative path: every directory, the file name, its stem and its parts. */
export function tokenizePath(path: string): string[] {
  const tokens = new Set<string>();
  for (const segment of path.split("/")) addSegmentTokens(tokens, segment);
  return [...tokens];
}

function addSegmentTokens(tokens: Set<string>, segment: string): void {
  const dot = segment.lastIndexOf(".");
  const stem = dot > 0 ? segment.slice(0, dot) : segment;
  for (const token of tokenize(stem, { keepStopWords: true })) tokens.add(token);
  for (const token of tokenize(segment, { keepStopWords: true })) tokens.add(token);
}

/**
 * `tokenizePath` for paths that arrive a directory at a time, as an index
 * run hands files to a worker (priority, then path): the last directory's
 * tokens are kept, so a file costs the tokens of its own name. Tokenizing
 * every directory of every path again was ≈ 0.2 s of CPU and ≈ 7 % of a
 * file worker's allocation on biome's 27,864 files (docs/BENCHMARKS.md,
 * sixteenth session). The tokens and their order are `tokenizePath`'s.
 */
export class PathTokenizer {
  private directory: string | undefined;
  private directoryTokens: readonly string[] = [];

  tokens(path: string): string[] {
    const slash = path.lastIndexOf("/");
    const directory = slash < 0 ? "" : path.slice(0, slash);
    if (directory !== this.directory) {
      this.directory = directory;
      this.directoryTokens = slash < 0 ? [] : tokenizePath(directory);
    }
    const tokens = new Set(this.directoryTokens);
    addSegmentTokens(tokens, path.slice(slash + 1));
    return [...tokens];
  }
}

/** Distinct query terms, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}
