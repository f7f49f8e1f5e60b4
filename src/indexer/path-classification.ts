import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { IndexConfig } from "../config/schema.js";
import { isSecretPath } from "../security/secrets.js";
import { ignoreFileNames, PathFilter } from "./path-filter.js";
import { calculatePriority } from "./priority.js";
import type { ScannedFile, SkippedFile } from "./scan-results.js";

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
export function classifyPaths(root: string, config: IndexConfig, paths: readonly string[], nowMs: number = Date.now()): PathClassification {
  return new PathClassifier(root, config).classify(paths, nowMs);
}

/**
 * `classifyPaths` for paths that come in batches (ripgrep's names as it
 * writes them): the ignore files read for one batch's directories are kept
 * for the next, not read again. A path's ancestors' ignore files are
 * registered before it is judged, so a batch judges its paths as one call
 * over all of them would.
 */
export class PathClassifier {
  private readonly filter: PathFilter;
  private readonly registered = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly config: IndexConfig,
  ) {
    this.filter = new PathFilter(config);
    if (config.respectGitignore) this.filter.registerIgnoreFile("", join(root, ".git", "info", "exclude"));
  }

  classify(paths: readonly string[], nowMs: number = Date.now()): PathClassification {
    const { root, config, filter } = this;
    const result: PathClassification = { files: [], skipped: [], gone: [] };
    for (const path of [...new Set(paths)].sort((a, b) => depthOf(a) - depthOf(b))) {
      const segments = path.split("/");
      let excluded = false;
      for (let depth = 0; depth < segments.length - 1 && !excluded; depth++) {
        const directory = segments.slice(0, depth + 1).join("/");
        this.registerIgnoreFiles(segments.slice(0, depth).join("/"));
        excluded = filter.excludesDirectory(segments[depth] as string, directory) || filter.ignores(directory, true);
      }
      this.registerIgnoreFiles(segments.slice(0, -1).join("/"));
      const name = segments[segments.length - 1] as string;
      if (excluded || filter.excludesFile(name, path) || filter.ignores(path, false)) {
        result.gone.push(path);
        continue;
      }
      let stats: Stats;
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

  private registerIgnoreFiles(directory: string): void {
    if (this.registered.has(directory)) return;
    this.registered.add(directory);
    for (const name of ignoreFileNames(this.config)) this.filter.registerIgnoreFile(directory, join(this.root, directory, name));
  }
}

function depthOf(path: string): number {
  return path.split("/").length;
}
