import ignore, { type Ignore, type TestResult } from "ignore";

/** Tests the ignore files of one filter answer, together, before each starts again from its rules. */
export const TESTS_PER_MEMO = 16_384;

/**
 * What the `IgnoreRules` of one filter remember, bounded together. The
 * `ignore` library keeps its verdict for every path an `Ignore` tests, and
 * for each of the path's parents, for as long as the `Ignore` lives. The
 * root's `.gitignore` judges every path a walk meets, and each package's
 * judges every path of its package and then stays for the rest of the walk,
 * so a 497k-file first walk held an entry for each path (415k objects and
 * their keys, ≈ 50 MB, docs/DESIGN-NOTES.md, "A full walk taken as it
 * goes": *What the walk held by file, found*). Every `TESTS_PER_MEMO`
 * tests, every ignore file tested since lets go of its `Ignore` and builds
 * a new one from its rules when it is next asked: the verdicts are the
 * same, the memo only saves work.
 */
export class IgnoreMemo {
  /** The rules holding an `Ignore` now: only they remember anything. */
  private readonly remembering = new Set<IgnoreRules>();
  private tests = 0;

  constructor(private readonly testsPerMemo = TESTS_PER_MEMO) {}

  /** `rules` built an `Ignore`, which remembers what it tests until `forget`. */
  built(rules: IgnoreRules): void {
    this.remembering.add(rules);
  }

  /** One of the rules answered a test. */
  tested(): void {
    if (++this.tests < this.testsPerMemo) return;
    for (const remembering of this.remembering) remembering.forget();
    this.remembering.clear();
    this.tests = 0;
  }
}

/** An ignore file's rules, judging paths relative to its directory; what it remembers is bounded by its `IgnoreMemo`. */
export class IgnoreRules {
  private matcher: Ignore | undefined;

  constructor(
    private readonly rules: string,
    private readonly memo: IgnoreMemo,
  ) {}

  /** `Ignore.test`: whether the rules ignore `path`, re-include it, or say nothing of it. */
  test(path: string): TestResult {
    if (this.matcher === undefined) {
      this.matcher = ignore({ allowRelativePaths: true }).add(this.rules);
      this.memo.built(this);
    }
    const verdict = this.matcher.test(path);
    this.memo.tested();
    return verdict;
  }

  /** Lets go of the `Ignore` and all it remembers; the next test builds one again. */
  forget(): void {
    this.matcher = undefined;
  }
}
