import { tokenize } from "../parsing/code-tokenizer.js";

const MAX_KEYWORDS = 10;
const MAX_ENTITIES = 10;

/** The most frequent meaningful terms of a text (a content entry's keywords). */
export function extractKeywords(text: string, limit = MAX_KEYWORDS): string[] {
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) if (token.length >= 3) counts.set(token, (counts.get(token) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([token]) => token);
}

const FILE_PATH =
  /(?:^|[\s`'"(])((?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:ts|tsx|js|jsx|py|go|rs|java|c|cc|cpp|h|hpp|cs|rb|php|md|json|ya?ml|toml|sql|sh))(?=$|[\s`'"),:;?!]|\.(?:\s|$))/g;
const BACKTICKED = /`([^`\n]{2,60})`/g;
const CAMEL_OR_SNAKE = /\b([a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:_[a-z0-9]+)+)\b/g;

/**
 * Named things a text mentions, in order of first mention: file paths,
 * `backticked` names and identifiers (camelCase, PascalCase, snake_case).
 * No model is needed, so extraction never blocks on the network.
 */
export function extractEntities(text: string, limit = MAX_ENTITIES): string[] {
  const found: Array<{ at: number; value: string }> = [];
  for (const pattern of [FILE_PATH, BACKTICKED, CAMEL_OR_SNAKE]) {
    for (const match of text.matchAll(pattern)) {
      const value = match[1];
      if (value) found.push({ at: match.index ?? 0, value: value.trim() });
    }
  }
  found.sort((a, b) => a.at - b.at);
  const entities: string[] = [];
  for (const { value } of found) {
    if (!entities.includes(value)) entities.push(value);
    if (entities.length >= limit) break;
  }
  return entities;
}
