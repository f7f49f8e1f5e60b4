import { statSync } from "node:fs";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import type { IndexConfig } from "../config/schema.js";
import { readRegularFile } from "../files/regular-file.js";

/** `.sylkignore` is always honoured; `.gitignore` unless `respectGitignore` is off. */
const GITIGNORE = ".gitignore";
const SYLKIGNORE = ".sylkignore";

/** The ignore files that apply in a directory, by name. */
export function ignoreFileNames(config: IndexConfig): readonly string[] {
  return config.respectGitignore ? [GITIGNORE, SYLKIGNORE] : [SYLKIGNORE];
}

interface IgnoreFile {
  directory: string;
  absolutePath: string;
  /** Read on first use: a walk of an unchanged tree never needs the rules. */
  matcher: Ignore | null | undefined;
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
    return this.excludedNames.has(name) || this.excludedRootPaths.has(path);
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

  private matcherOf(file: IgnoreFile): Ignore | null {
    if (file.matcher === undefined) {
      const content = readOptional(file.absolutePath);
      file.matcher = content ? ignore({ allowRelativePaths: true }).add(content) : null;
    }
    return file.matcher;
  }
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
