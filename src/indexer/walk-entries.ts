import { lstatSync, type Stats, statSync } from "node:fs";
import type { UnindexableEntry } from "./directory-listing.js";

/** What the walk holds of one directory: how it got there, its entries and what they hash to. */

export interface PendingDirectory {
  relative: string;
  absolute: string;
  /** An ignore file here or above changed: no stored decision below holds. */
  rulesChanged: boolean;
}

export interface FileStat {
  name: string;
  size: number;
  mtimeMs: number;
}

export interface DirectoryEntries {
  /** Files stat'ed by the walk. */
  files: FileStat[];
  /** Files the stored state left out, not stat'ed. */
  leftOutFiles: string[];
  subdirectories: readonly string[];
  /** Reported as skipped (with no size or time of their own), never read. */
  unindexable: readonly UnindexableEntry[];
  /** A name did not stat as a regular file. */
  missing: boolean;
}

export interface DirectoryVisit extends DirectoryEntries {
  listing: string;
  rules: string;
  rulesChanged: boolean;
}

export function child(parent: PendingDirectory, name: string, rulesChanged: boolean): PendingDirectory {
  return {
    relative: parent.relative ? `${parent.relative}/${name}` : name,
    absolute: `${parent.absolute}/${name}`,
    rulesChanged,
  };
}

export function statOf(directory: string, name: string): FileStat[] {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(`${directory}/${name}`);
  } catch {
    return [];
  }
  return stats.isFile() ? [{ name, size: stats.size, mtimeMs: Math.trunc(stats.mtimeMs) }] : [];
}

export /**
 * A path's stats, or undefined where there is nothing: missing, or behind a
 * file where a directory was expected. In a git worktree or submodule
 * `.git` is a file naming the real git directory, and `statSync` throws
 * ENOTDIR for `.git/info/exclude` even with `throwIfNoEntry: false`.
 */
function statIfThere(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
}
