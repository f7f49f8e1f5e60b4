import { lstatSync, readFileSync, statSync, type Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import type { IndexConfig } from "../config/schema.js";
import { isSecretPath } from "../security/secrets.js";
import { calculatePriority } from "./priority.js";

/** A file the scanner found and the indexer should consider. */
export interface ScannedFile {
  /** Relative to the project root, '/'-separated. */
  path: string;
  size: number;
  mtimeMs: number;
  priority: number;
}

export type SkipReason = "too-large" | "secret";

export interface SkippedFile {
  path: string;
  size: number;
  mtimeMs: number;
  reason: SkipReason;
}

export interface ScanResult {
  files: ScannedFile[];
  /** Files seen but never read: their names or sizes rule them out. */
  skipped: SkippedFile[];
}

/** `.sylkignore` is always honoured; `.gitignore` unless `respectGitignore` is off. */
const GITIGNORE = ".gitignore";
const SYLKIGNORE = ".sylkignore";
/** Directories read at once; more only adds contention on two cores. */
const READDIR_CONCURRENCY = 16;

/**
 * Walks the project, honouring the seed's excluded directories and patterns,
 * every `.gitignore` and `.sylkignore` (a nested file applies below its
 * directory) and `.git/info/exclude`. An ignored directory is never entered.
 * Symbolic links are not followed: a link may point outside the project, and
 * a link loop ends for free. Excluded directory names match at any depth.
 *
 * A hand-written walk rather than fast-glob: on a 28k-file repository
 * fast-glob with stats and these exclusions took 0.8–1.4 s, this walk
 * 0.25–0.4 s, and the fresh-check must stay well under a second. It also
 * yields to the event loop between directories, so the TUI stays responsive.
 */
export async function scanProject(root: string, config: IndexConfig, nowMs: number = Date.now()): Promise<ScanResult> {
  const filter = new PathFilter(config);
  const files: ScannedFile[] = [];
  const skipped: SkippedFile[] = [];

  const visitFile = (directory: string, path: string, name: string) => {
    if (filter.excludesFile(name, path) || filter.ignores(path, false)) return;
    let size: number;
    let mtimeMs: number;
    try {
      const stats = statSync(join(directory, name));
      size = stats.size;
      mtimeMs = Math.trunc(stats.mtimeMs);
    } catch {
      return; // vanished or unreadable between readdir and stat
    }
    if (isSecretPath(path)) skipped.push({ path, size, mtimeMs, reason: "secret" });
    else if (size > config.maxFileSize) skipped.push({ path, size, mtimeMs, reason: "too-large" });
    else files.push({ path, size, mtimeMs, priority: calculatePriority(path, mtimeMs, config.priorityPaths, nowMs) });
  };

  const visitDirectory = (relative: string, absolute: string, entries: Dirent[]): Array<[string, string]> => {
    for (const entry of entries) {
      if (entry.isFile() && (entry.name === SYLKIGNORE || (config.respectGitignore && entry.name === GITIGNORE))) {
        filter.addIgnoreFile(relative, readOptional(join(absolute, entry.name)));
      }
    }
    const subdirectories: Array<[string, string]> = [];
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!filter.excludesDirectory(entry.name, path) && !filter.ignores(path, true)) {
          subdirectories.push([path, join(absolute, entry.name)]);
        }
      } else if (entry.isFile()) {
        visitFile(absolute, path, entry.name);
      }
    }
    return subdirectories;
  };

  if (config.respectGitignore) {
    const gitExclude = readOptional(join(root, ".git", "info", "exclude"));
    if (gitExclude) filter.addIgnoreFile("", gitExclude);
  }
  await walkDirectories(root, visitDirectory);
  return { files, skipped };
}

export interface PathClassification {
  files: ScannedFile[];
  skipped: SkippedFile[];
  /** Missing, not a regular file, or excluded/ignored now: whatever the index holds for them goes. */
  gone: string[];
}

/**
 * What the scanner would say of just these paths (a file watcher's events),
 * without walking the project: the same exclusions and ignore files (those
 * of each path's ancestors), the same secret and size rules.
 */
export function classifyPaths(
  root: string,
  config: IndexConfig,
  paths: readonly string[],
  nowMs: number = Date.now(),
): PathClassification {
  const filter = new PathFilter(config);
  if (config.respectGitignore) {
    const gitExclude = readOptional(join(root, ".git", "info", "exclude"));
    if (gitExclude) filter.addIgnoreFile("", gitExclude);
  }
  const loadedDirectories = new Set<string>();
  const loadIgnoreFiles = (directory: string) => {
    if (loadedDirectories.has(directory)) return;
    loadedDirectories.add(directory);
    const names = config.respectGitignore ? [GITIGNORE, SYLKIGNORE] : [SYLKIGNORE];
    for (const name of names) filter.addIgnoreFile(directory, readOptional(join(root, directory, name)));
  };
  const result: PathClassification = { files: [], skipped: [], gone: [] };
  for (const path of [...new Set(paths)].sort((a, b) => depthOf(a) - depthOf(b))) {
    const segments = path.split("/");
    let excluded = false;
    for (let depth = 0; depth < segments.length - 1 && !excluded; depth++) {
      const directory = segments.slice(0, depth + 1).join("/");
      loadIgnoreFiles(segments.slice(0, depth).join("/"));
      excluded = filter.excludesDirectory(segments[depth] as string, directory) || filter.ignores(directory, true);
    }
    loadIgnoreFiles(segments.slice(0, -1).join("/"));
    const name = segments[segments.length - 1] as string;
    if (excluded || filter.excludesFile(name, path) || filter.ignores(path, false)) {
      result.gone.push(path);
      continue;
    }
    let stats;
    try {
      stats = lstatSync(join(root, path));
    } catch {
      result.gone.push(path);
      continue;
    }
    if (!stats.isFile()) {
      result.gone.push(path);
      continue;
    }
    const size = stats.size;
    const mtimeMs = Math.trunc(stats.mtimeMs);
    if (isSecretPath(path)) result.skipped.push({ path, size, mtimeMs, reason: "secret" });
    else if (size > config.maxFileSize) result.skipped.push({ path, size, mtimeMs, reason: "too-large" });
    else result.files.push({ path, size, mtimeMs, priority: calculatePriority(path, mtimeMs, config.priorityPaths, nowMs) });
  }
  return result;
}

function depthOf(path: string): number {
  return path.split("/").length;
}

/** Breadth-first over directories, a bounded number of `readdir` calls at once. */
function walkDirectories(
  root: string,
  visit: (relative: string, absolute: string, entries: Dirent[]) => Array<[string, string]>,
): Promise<void> {
  return new Promise((resolve) => {
    const pending: Array<[string, string]> = [["", root]];
    let active = 0;
    const pump = (): void => {
      while (active < READDIR_CONCURRENCY && pending.length > 0) {
        const [relative, absolute] = pending.shift() as [string, string];
        active++;
        readdir(absolute, { withFileTypes: true })
          .then(
            (entries) => {
              entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
              pending.push(...visit(relative, absolute, entries));
            },
            () => undefined, // unreadable directory: skipped, like `git status` does
          )
          .finally(() => {
            active--;
            if (active === 0 && pending.length === 0) resolve();
            else pump();
          });
      }
    };
    pump();
  });
}

/** Decides what the walk skips: excluded names, excluded patterns and ignore-file rules. */
class PathFilter {
  private readonly excludedNames: Set<string>;
  private readonly excludedRootPaths: Set<string>;
  private readonly excludedFile: (name: string, path: string) => boolean;
  private readonly ignoreFiles: Array<{ directory: string; matcher: Ignore }> = [];

  constructor(config: IndexConfig) {
    const paths = config.excludePaths.map((path) => path.replace(/^\/+|\/+$/g, ""));
    this.excludedNames = new Set(paths.filter((path) => !path.includes("/")));
    this.excludedRootPaths = new Set(paths.filter((path) => path.includes("/")));
    // Patterns without a slash match the file name, others the whole path (as in .gitignore).
    // Each kind is one alternation: a single regex test per file.
    const byName = combinedPattern(config.excludePatterns.filter((pattern) => !pattern.includes("/")));
    const byPath = combinedPattern(config.excludePatterns.filter((pattern) => pattern.includes("/")));
    this.excludedFile = (name, path) => (byName?.test(name) ?? false) || (byPath?.test(path) ?? false);
  }

  addIgnoreFile(directory: string, content: string | undefined): void {
    if (!content) return;
    this.ignoreFiles.push({ directory, matcher: ignore({ allowRelativePaths: true }).add(content) });
  }

  excludesDirectory(name: string, path: string): boolean {
    return this.excludedNames.has(name) || this.excludedRootPaths.has(path);
  }

  excludesFile(name: string, path: string): boolean {
    return this.excludedFile(name, path);
  }

  /**
   * Git semantics: each ignore file judges paths relative to its own
   * directory, and the deepest file with an opinion (ignore, or `!` re-include)
   * decides. The walk is breadth-first, so deeper files were added later.
   */
  ignores(path: string, isDirectory: boolean): boolean {
    for (let index = this.ignoreFiles.length - 1; index >= 0; index--) {
      const { directory, matcher } = this.ignoreFiles[index] as { directory: string; matcher: Ignore };
      if (directory && !path.startsWith(`${directory}/`)) continue;
      const relative = directory ? path.slice(directory.length + 1) : path;
      const verdict = matcher.test(isDirectory ? `${relative}/` : relative);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}

function combinedPattern(patterns: string[]): RegExp | undefined {
  if (patterns.length === 0) return undefined;
  return new RegExp(patterns.map((pattern) => `(?:${picomatch.makeRe(pattern, { dot: true }).source})`).join("|"));
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
