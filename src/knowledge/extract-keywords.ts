/**
 * Keyword extraction for the knowledge layers' keyword search. A query becomes at most five distinct keywords, each
 * at most 50 characters of letters, digits, hyphens and underscores.
 *
 * Decisions:
 * - Keywords are lower-cased: the full-text index matches case-insensitively
 *   and the stop-word test needs one case.
 * - Duplicates are removed (first occurrence kept) before the limit of five is
 *   applied, so five slots hold five different words.
 * - Words split at white space and at the separators `/ \ . , ; : | = + & < > ! ? * ~ [ ] { }`
 *   (`src/search`, `errors.go`, `a,b` give two words each); any other
 *   character outside letters, digits, `-` and `_` (`@ # $ ( ) ' " % ^` …) is
 *   removed in place, so `don't` → `dont` and `$HOME` → `home`.
 * - Leading and trailing hyphens are trimmed (`--verbose` → `verbose`);
 *   underscores stay, being part of identifiers (`__init__`, `_private`). A
 *   keyword needs at least one letter or digit.
 * - Letters are Unicode letters (é, ß, 日), as in Sylk's code tokenizer.
 * - Stop words are tested after sanitising and before truncating. Two-letter
 *   words are kept unless they are stop words, which keeps "go", "ci", "db"
 *   and loses "it" or "or" even when meant as acronyms.
 * - Pure numbers are kept ("error 404").
 */

export const MAX_KEYWORDS = 5;
export const MAX_KEYWORD_LENGTH = 50;
const MIN_KEYWORD_LENGTH = 2;

/** Common English function words, with contractions as they read once their apostrophe is gone. */
export const KEYWORD_STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "about",
  "above",
  "after",
  "again",
  "against",
  "all",
  "am",
  "an",
  "and",
  "any",
  "are",
  "as",
  "at",
  "be",
  "because",
  "been",
  "before",
  "being",
  "below",
  "between",
  "both",
  "but",
  "by",
  "can",
  "cannot",
  "could",
  "did",
  "do",
  "does",
  "doing",
  "down",
  "during",
  "each",
  "few",
  "for",
  "from",
  "further",
  "had",
  "has",
  "have",
  "having",
  "he",
  "her",
  "here",
  "hers",
  "herself",
  "him",
  "himself",
  "his",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "itself",
  "just",
  "me",
  "might",
  "more",
  "most",
  "must",
  "my",
  "myself",
  "no",
  "nor",
  "not",
  "now",
  "of",
  "off",
  "on",
  "once",
  "only",
  "or",
  "other",
  "ought",
  "our",
  "ours",
  "ourselves",
  "out",
  "over",
  "own",
  "same",
  "shall",
  "she",
  "should",
  "so",
  "some",
  "such",
  "than",
  "that",
  "the",
  "their",
  "theirs",
  "them",
  "themselves",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "through",
  "to",
  "too",
  "under",
  "until",
  "up",
  "us",
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
  "yours",
  "yourself",
  "yourselves",
  "may",
  "also",
  "please",
  "dont",
  "doesnt",
  "didnt",
  "cant",
  "couldnt",
  "shouldnt",
  "wouldnt",
  "wont",
  "isnt",
  "arent",
  "wasnt",
  "werent",
  "im",
  "ive",
  "id",
  "ill",
  "youre",
  "youve",
  "theyre",
  "weve",
  "thats",
  "whats",
  "hows",
  "lets",
]);

const SEPARATORS = /[\s/\\.,;:|=+&<>!?*~[\]{}]+/u;
const NOT_KEYWORD_CHARACTER = /[^\p{L}\p{N}_-]/gu;
const EDGE_HYPHENS = /^-+|-+$/gu;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The word reduced to keyword characters, or "" when nothing of it is left. */
function sanitize(word: string): string {
  const kept = word.replace(NOT_KEYWORD_CHARACTER, "").replace(EDGE_HYPHENS, "");
  return HAS_LETTER_OR_DIGIT.test(kept) ? kept.toLowerCase() : "";
}

function truncate(keyword: string): string {
  const characters = Array.from(keyword);
  return characters.length > MAX_KEYWORD_LENGTH ? characters.slice(0, MAX_KEYWORD_LENGTH).join("") : keyword;
}

/** At most five keywords of the query, in first-seen order; `undefined` when none is left. */
export function extractKeywords(query: string): string[] | undefined {
  const keywords: string[] = [];
  for (const word of query.split(SEPARATORS)) {
    const sanitized = sanitize(word);
    if (Array.from(sanitized).length < MIN_KEYWORD_LENGTH || KEYWORD_STOP_WORDS.has(sanitized)) continue;
    const keyword = truncate(sanitized);
    if (keywords.includes(keyword)) continue;
    keywords.push(keyword);
    if (keywords.length === MAX_KEYWORDS) break;
  }
  return keywords.length > 0 ? keywords : undefined;
}
