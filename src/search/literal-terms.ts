import { isContentToken, isIdentifierCode, splitIdentifier } from "../parsing/code-tokenizer.js";
import { stem } from "./full-text-document.js";

const JOINERS = /^[_$]+|[_$]+$/g;

/**
 * Full-text terms that every text holding `literal` is indexed under, so
 * that a file whose indexed text lacks one cannot hold the literal (grep
 * narrows its files with them). The literal's surroundings are unknown: a
 * word at its edge may continue in the text (`Account` inside
 * `AccountId`), so only the identifier parts whose both ends the literal
 * itself fixes count: a part ending at a `_`, at a camelCase or digit
 * boundary inside the word, or at a character that is not a word's. Words
 * bounded on both sides also count whole. Case-insensitively only whole
 * bounded words count (camelCase parts depend on case). Only ASCII words
 * bounded by ASCII characters are used: a file that is not valid UTF-8 is
 * indexed as Latin-1, where other bytes may read as letters.
 */
export function guaranteedTerms(literal: string, ignoreCase: boolean): string[] {
  const terms = new Set<string>();
  let index = 0;
  while (index < literal.length) {
    if (!isIdentifierCode(literal.charCodeAt(index))) {
      index++;
      continue;
    }
    const start = index;
    while (index < literal.length && isIdentifierCode(literal.charCodeAt(index))) index++;
    const word = literal.slice(start, index);
    if (!/^[\x00-\x7f]*$/.test(word)) continue;
    const leftBounded = start > 0 && literal.charCodeAt(start - 1) < 128;
    const rightBounded = index < literal.length && literal.charCodeAt(index) < 128;
    if (leftBounded && rightBounded) addTerm(terms, word.replace(JOINERS, "").toLowerCase());
    if (ignoreCase) continue;
    for (const part of partsOf(word)) {
      if ((part.start > 0 || leftBounded) && (part.end < word.length || rightBounded)) addTerm(terms, part.text);
    }
  }
  return [...terms];
}

function addTerm(terms: Set<string>, token: string): void {
  if (isContentToken(token)) terms.add(stem(token));
}

/** An identifier's parts (as the tokenizer splits it) with where each lies in it. */
function partsOf(word: string): Array<{ text: string; start: number; end: number }> {
  const parts: Array<{ text: string; start: number; end: number }> = [];
  let from = 0;
  for (const text of splitIdentifier(word)) {
    const start = word.toLowerCase().indexOf(text, from);
    parts.push({ text, start, end: start + text.length });
    from = start + text.length;
  }
  return parts;
}
