import { statSync } from "node:fs";
import picomatch from "picomatch";
import type { IndexConfig } from "../config/schema.js";
import { readRegularFile } from "../files/regular-file.js";
import { IgnoreMemo, IgnoreRules } from "./ignore-rules.js";

/** `.sylkignore` is always honoured; `.gitignore` unless `respectGitignore` is off. */
const GITIGNORE = ".gitignore";
const SYLKIGNORE = ".sylkignore";

/**
 * Version control's own folders, left out whatever `index.excludePaths`
 * says: they are the tool's, not the project's, and hold what a project must
 * not send (`actions/checkout` keeps the job's token in `.git/config`). A
 * repository's `.sylkrc` may set `excludePaths`, so the defaults cannot be
 * what keeps them out.
 */
export const VERSION_CONTROL_DIRECTORIES: ReadonlySet<string> = new Set([".git", ".hg", ".svn"]);

/** The ignore files that apply in a directory, by name. */
export function ignoreFileNames(config: IndexConfig): readonly string[] {
  return config.respectGitignore ? [GITIGNORE, SYLKIGNORE] : [SYLKIGNORE];
}

interface IgnoreFile {
  directory: string;
  absolutePath: string;
  /** Read on first use: a walk of an unchanged tree never needs the rules. */
  matcher: IgnoreRules | null | undefined;
}

/**
 * Decides what the walk skips: excluded names, excluded patterns and
 * ignore-file rules. Ignore files are registered as the walk meets them and
 * read only when a path under them is judged.
 */
export class PathFilter {
  private readonly excludedNames: Set<string>;
  private readonly excludedRootPaths: Set<string>;
  private readonly excludedFile: (name: string, path: string) => boolean;
  /** By the directory whose paths they judge, in the order registered. */
  private readonly ignoreFiles = new Map<string, IgnoreFile[]>();
  /** What the ignore files remember of the paths they judged, bounded together. */
  private readonly ignoreMemo = new IgnoreMemo();

  constructor(config: IndexConfig) {
    const paths = config.excludePaths.map((path) => path.replace(/^\/+|\/+$/g, ""));
    this.excludedNames = new Set(paths.filter((path) => !path.includes("/")));
    // A path with a slash is relative to the root; `./name` anchors a single name there too (Sylk's own data directory).
    this.excludedRootPaths = new Set(paths.filter((path) => path.includes("/")).map((path) => path.replace(/^(\.\/)+/, "")));
    // Patterns without a slash match the file name, others the whole path (as in .gitignore).
    // Each kind is one alternation: a single regex test per file.
    const byName = combinedPattern(config.excludePatterns.filter((pattern) => !pattern.includes("/")));
    const byPath = combinedPattern(config.excludePatterns.filter((pattern) => pattern.includes("/")));
    this.excludedFile = (name, path) => (byName?.test(name) ?? false) || (byPath?.test(path) ?? false);
  }

  /**
   * An ignore file whose rules apply below `directory` (relative, "" for the
   * root). Register ancestors before descendants (the walk, depth first,
   * reads a directory before any below it): the deepest file decides.
   */
  registerIgnoreFile(directory: string, absolutePath: string): void {
    const file: IgnoreFile = { directory, absolutePath, matcher: undefined };
    const inDirectory = this.ignoreFiles.get(directory);
    if (inDirectory) inDirectory.push(file);
    else this.ignoreFiles.set(directory, [file]);
  }

  excludesDirectory(name: string, path: string): boolean {
    return VERSION_CONTROL_DIRECTORIES.has(name) || this.excludedNames.has(name) || this.excludedRootPaths.has(path);
  }

  excludesFile(name: string, path: string): boolean {
    // In a git worktree or submodule `.git` is a file (naming the real git directory): git's, not the project's.
    return name === ".git" || this.excludedFile(name, path);
  }

  /**
   * Git semantics: each ignore file judges paths relative to its own
   * directory, and the deepest file with an opinion (ignore, or `!` re-include)
   * decides. Only the files of the path's own ancestors are looked at,
   * from its parent up to the root, each directory's last registered first:
   * judging a path against every file registered (hundreds, for the
   * files ripgrep lists across a large tree) was most of grep's time
   * between ripgrep's answer and the first match.
   */
  ignores(path: string, isDirectory: boolean): boolean {
    let end = path.lastIndexOf("/");
    for (;;) {
      const directory = end > 0 ? path.slice(0, end) : "";
      const files = this.ignoreFiles.get(directory);
      for (let index = (files?.length ?? 0) - 1; index >= 0; index--) {
        const file = files?.[index] as IgnoreFile;
        const matcher = this.matcherOf(file);
        if (!matcher) continue;
        const relative = directory ? path.slice(directory.length + 1) : path;
        const verdict = matcher.test(isDirectory ? `${relative}/` : relative);
        if (verdict.ignored) return true;
        if (verdict.unignored) return false;
      }
      if (end <= 0) return false;
      end = path.lastIndexOf("/", end - 1);
    }
  }

  /**
   * Which of a directory's entries (`names`, all files or all directories)
   * the walk leaves out, in order: excluded (`excludesFile`,
   * `excludesDirectory`) or ignored (`ignores`). The same verdicts as asking
   * each entry, with the directory's ignore files gathered once for all its
   * entries rather than looked up again, ancestor by ancestor, for each.
   */
  judgeIn(directory: string, names: readonly string[], isDirectory: boolean): boolean[] {
    const rules = this.rulesFor(directory);
    const prefix = directory ? `${directory}/` : "";
    const verdicts: boolean[] = new Array(names.length);
    for (let at = 0; at < names.length; at++) {
      const name = names[at] as string;
      const path = prefix + name;
      const excluded = isDirectory ? this.excludesDirectory(name, path) : this.excludesFile(name, path);
      verdicts[at] = excluded || (rules.length > 0 && ignoredBy(rules, path, isDirectory));
    }
    return verdicts;
  }

  /** The ignore files that judge `directory`'s entries, in the order `ignores` asks them: deepest first, each directory's last registered first. */
  private rulesFor(directory: string): JudgingRules[] {
    const rules: JudgingRules[] = [];
    let end = directory.length;
    for (;;) {
      const above = directory.slice(0, end);
      const files = this.ignoreFiles.get(above);
      for (let index = (files?.length ?? 0) - 1; index >= 0; index--) {
        const matcher = this.matcherOf(files?.[index] as IgnoreFile);
        if (matcher) rules.push({ matcher, from: end > 0 ? end + 1 : 0 });
      }
      if (end <= 0) return rules;
      end = directory.lastIndexOf("/", end - 1);
      if (end < 0) end = 0;
    }
  }

  private matcherOf(file: IgnoreFile): IgnoreRules | null {
    if (file.matcher === undefined) {
      const content = readOptional(file.absolutePath);
      file.matcher = content ? new IgnoreRules(content, this.ignoreMemo) : null;
    }
    return file.matcher;
  }
}

/** An ignore file's rules, and where a path relative to its directory starts. */
interface JudgingRules {
  matcher: IgnoreRules;
  from: number;
}

/** `ignores` for one path, over rules already gathered: the first with an opinion decides. */
function ignoredBy(rules: readonly JudgingRules[], path: string, isDirectory: boolean): boolean {
  for (const { matcher, from } of rules) {
    const relative = from > 0 ? path.slice(from) : path;
    const verdict = matcher.test(isDirectory ? `${relative}/` : relative);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

function combinedPattern(patterns: string[]): RegExp | undefined {
  if (patterns.length === 0) return undefined;
  return new RegExp(patterns.map((pattern) => `(?:${picomatch.makeRe(pattern, { dot: true }).source})`).join("|"));
}

function readOptional(path: string): string | undefined {
  try {
    // Most directories have no ignore file: asked without an exception (an error and its stack for each cost more than the stat).
    if (!statSync(path, { throwIfNoEntry: false })) return undefined;
    return readRegularFile(path).toString("utf8"); // a FIFO planted as .gitignore must not hold the walk
  } catch {
    return undefined;
  }
}
