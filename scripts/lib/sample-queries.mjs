import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Queries of 2–4 identifiers or words taken from random lines of random
 * source files of `tree` (seeded, so runs compare): what a developer types
 * when looking for code they half remember.
 */
export function sampleQueries(tree, files, count, seed) {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const queries = [];
  for (let attempt = 0; queries.length < count && attempt < count * 50; attempt++) {
    const file = files[Math.floor(random() * files.length)];
    let text;
    try {
      text = readFileSync(join(tree, file.path), "utf8");
    } catch {
      continue;
    }
    const lines = text.split("\n").filter((line) => (line.match(/[A-Za-z_]{4,}/g) ?? []).length >= 3);
    if (lines.length === 0) continue;
    const words = lines[Math.floor(random() * lines.length)].match(/[A-Za-z_][A-Za-z0-9_]{3,}/g) ?? [];
    const take = 2 + Math.floor(random() * 3);
    const start = Math.floor(random() * Math.max(1, words.length - take));
    const query = words.slice(start, start + take).join(" ");
    if (query.split(" ").length >= 2) queries.push(query);
  }
  return queries;
}
