/**
 * A prior on what kind of file a code search hit is in. Code search looks
 * for the program: a question about a bug or a behaviour is answered by the
 * source file that implements it, and the changelog, the docs page, the
 * snapshot or the test that mention the same words are next to it, not it.
 * Plain BM25 cannot tell them apart, and prose is rich in exactly the words a
 * description uses, so a release note outranked the file a fix changed.
 *
 * The kind comes from the file's own properties: its language as the indexer
 * detected it (a programming language, or prose, data, markup), and whether
 * its path follows a test convention. Sourcegraph's ranking makes the same
 * call (it ranks generated, vendored and test code down). A hit outside the
 * source counts half: it still ranks first when it matches clearly better,
 * and it fills the list when the source has nothing.
 */

/** The weight of a hit that is not source code. Chosen on vite and flask together (docs/BENCHMARKS.md). */
export const NON_SOURCE_WEIGHT = 0.5;

/** Languages (as `detectLanguage` names them) whose files are programs; prose, data, markup and style are not. */
const PROGRAM_LANGUAGES: ReadonlySet<string> = new Set([
  "typescript",
  "tsx",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "c",
  "cpp",
  "csharp",
  "ruby",
  "php",
  "bash",
  "kotlin",
  "swift",
  "scala",
  "lua",
  "vue",
  "svelte",
  "astro",
  "sql",
  "protobuf",
  "graphql",
  "dockerfile",
  "make",
  "cmake",
]);

/** Directories that hold tests, their fixtures and snapshots, by the conventions of the common test runners. */
const TEST_DIRECTORIES: ReadonlySet<string> = new Set([
  "test",
  "tests",
  "__tests__",
  "__test__",
  "spec",
  "specs",
  "__snapshots__",
  "__mocks__",
  "testdata",
  "fixture",
  "fixtures",
]);

/** Test file names: `x.test.ts`, `x.spec.js` (Jest, Vitest, Mocha), `test_x.py`, `x_test.py` (pytest), `x_test.go` (Go), `conftest.py`. */
const TEST_FILE_NAME = /\.(test|spec)\.[^.]+$|^test_.+\.py$|_test\.(py|go)$|^conftest\.py$/;

/** Whether a path (relative, `/`-separated) is a test, a test fixture or a snapshot, by its directories or its name. */
export function isTestPath(path: string): boolean {
  const segments = path.split("/");
  const name = segments.pop() ?? "";
  return segments.some((segment) => TEST_DIRECTORIES.has(segment)) || TEST_FILE_NAME.test(name);
}

/**
 * Whether a path is a test runner's recorded output: a `.snap` file (Jest
 * and Vitest under `__snapshots__/`, Rust's insta beside its tests) or
 * anything under `__snapshots__`. Generated, long and repetitive: biome's
 * 8,278 snapshots are 41 % of its chunks and over half of its chunk text.
 */
export function isTestSnapshot(path: string): boolean {
  return path.endsWith(".snap") || path.startsWith("__snapshots__/") || path.includes("/__snapshots__/");
}

/** Whether a file is source code: a program, and not a test. */
export function isSourceFile(path: string, language: string | null): boolean {
  return language !== null && PROGRAM_LANGUAGES.has(language) && !isTestPath(path);
}

/** How much a hit in this file counts: 1 for source code, `NON_SOURCE_WEIGHT` otherwise. */
export function documentKindWeight(path: string, language: string | null): number {
  return isSourceFile(path, language) ? 1 : NON_SOURCE_WEIGHT;
}

/**
 * A signal's hits in the order their scores weighted by kind give (stable
 * among equals), each with that weighted score, which a score fusion
 * compares. Scores stay as the signal gave them: they are its evidence,
 * and a full-text score over the query's ideal score says how much of the
 * query a hit covers. A negative score (a vector pointing away) is divided
 * instead, so that a lower weight always moves a hit down.
 */
export function orderByDocumentKind<Hit extends { id: number; score: number }>(
  hits: readonly Hit[],
  weightOf: (id: number) => number,
): Array<Hit & { weightedScore: number }> {
  const weighted = hits.map((hit, index) => {
    const weight = weightOf(hit.id);
    return { hit, index, weightedScore: hit.score >= 0 ? hit.score * weight : hit.score / weight };
  });
  weighted.sort((a, b) => b.weightedScore - a.weightedScore || a.index - b.index);
  return weighted.map((entry) => ({ ...entry.hit, weightedScore: entry.weightedScore }));
}
