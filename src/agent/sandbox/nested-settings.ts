import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";

/** Names that hold what runs or what is allowed later: a repository's `.git`, Sylk's settings. */
export const GUARDED_NAMES: readonly string[] = [".git", ".sylk", ".sylkrc", ".sylkignore"];

/**
 * Directories visited at most per command. Breadth first, so the shallow
 * places nested repositories live in (`vendor/x`, `packages/y`, a folder of
 * checkouts) come first; about 20 ms on a warm disk.
 */
export const MAX_DIRECTORIES = 5_000;

/**
 * Never entered: package managers fill them with thousands of directories
 * and no repository anyone runs git in.
 */
const SKIPPED = new Set(["node_modules"]);

export interface NestedSettings {
  /** `.git`, `.sylk`, `.sylkrc` and `.sylkignore` entries below the root (not the root's own). */
  paths: string[];
  /** The walk stopped at `MAX_DIRECTORIES`: deeper entries were not looked for. */
  incomplete: boolean;
}

/**
 * The guarded entries below `root`: nested repositories (a `.git` directory
 * or file) and sub-projects' Sylk settings. Symbolic links and the inside of
 * `.git` directories are not followed.
 */
export function nestedSettings(root: string, limit = MAX_DIRECTORIES): NestedSettings {
  const paths: string[] = [];
  const queue = [root];
  for (let next = 0; next < queue.length; next++) {
    if (next >= limit) return { paths, incomplete: true };
    const directory = queue[next] as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (GUARDED_NAMES.includes(entry.name)) {
        if (directory !== root) paths.push(path);
      } else if (entry.isDirectory() && !SKIPPED.has(entry.name)) {
        queue.push(path);
      }
    }
  }
  return { paths, incomplete: false };
}
