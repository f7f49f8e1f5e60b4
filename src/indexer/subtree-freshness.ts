import { lstatSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import type { IndexConfig } from "../config/schema.js";
import { ListingHash, snapshotHolds, type DirectoryState } from "./directory-state.js";
import { ignoreFileNames } from "./path-filter.js";

/** The directories of a part of the project, all as the last complete run left them; or the part is left out of the index. */
export type SubtreeFreshness =
  | {
      state: "fresh";
      directories: string[];
      /** Each file the walk takes there (relative to the root), with its size and modification time (whole milliseconds). */
      files: Map<string, { size: number; mtimeMs: number }>;
    }
  | { state: "left-out" };

/**
 * Whether the directory `prefix` (relative, '' for none) and everything the
 * walk takes below it are as the last complete run stored them, judged as a
 * walk judges an unchanged directory, but only there: each directory's
 * snapshot holds (no entry added, removed or renamed), its files have the
 * sizes and times its listing hash says, and the ignore files of the
 * directories above it are the ones its rules were judged by. Then the
 * manifest rows of those directories are the files, as on disk, with no
 * walk of the rest of the tree (grep in one package of a large project).
 * Undefined when it cannot tell: the fresh check of the whole tree decides.
 */
export function checkSubtree(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  racyWindowMs: number,
): SubtreeFreshness | undefined {
  const ruleFiles = ignoreFileNames(config);
  const above = ancestorsHold(root, config, prefix, states, racyWindowMs, ruleFiles);
  if (above !== "held") return above;
  const directories: string[] = [];
  const files = new Map<string, { size: number; mtimeMs: number }>();
  const queue = [prefix];
  for (let head = 0; head < queue.length; head++) {
    const directory = queue[head] as string;
    const state = states.get(directory);
    if (!state?.snapshot || !snapshotStillHolds(root, directory, state, racyWindowMs)) return undefined;
    const leftOut = new Set(state.leftOut);
    const listing = new ListingHash();
    const rules = rootRules(root, directory, config.respectGitignore);
    if (!rules) return undefined;
    for (const name of state.snapshot.directories) {
      listing.addDirectory(name);
      if (!leftOut.has(name)) queue.push(directory ? `${directory}/${name}` : name);
    }
    for (const name of state.snapshot.files) {
      const ruleFile = ruleFiles.includes(name);
      if (leftOut.has(name) && !ruleFile) {
        listing.addLeftOut(name);
        continue;
      }
      const stats = lstatSync(join(root, directory, name), { throwIfNoEntry: false });
      if (!stats?.isFile()) return undefined;
      listing.addFile(name, stats.size, Math.trunc(stats.mtimeMs));
      if (ruleFile) rules.addFile(name, stats.size, Math.trunc(stats.mtimeMs));
      if (!leftOut.has(name))
        files.set(directory ? `${directory}/${name}` : name, { size: stats.size, mtimeMs: Math.trunc(stats.mtimeMs) });
    }
    if (listing.digest() !== state.listing || rules.digest() !== state.rules) return undefined;
    directories.push(directory);
  }
  return { state: "fresh", directories, files };
}

/**
 * The files the walk takes below `prefix`, by name, when no entry was added,
 * removed or renamed in any directory there since the last complete run
 * (each directory's snapshot holds) and the ignore files above and within
 * are the ones its rules were judged by: a `stat` of each directory and
 * each ignore file, none of the other files (`checkSubtree` stats them
 * too). Whether a file changed in place is not known here: grep lists this
 * way only for a search that reads every file it lists. Undefined when it
 * cannot tell.
 */
export function listSubtree(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  racyWindowMs: number,
): { state: "listed"; paths: string[] } | { state: "left-out" } | undefined {
  const ruleFiles = ignoreFileNames(config);
  const above = ancestorsHold(root, config, prefix, states, racyWindowMs, ruleFiles);
  if (above !== "held") return above;
  const paths: string[] = [];
  const queue = [prefix];
  for (let head = 0; head < queue.length; head++) {
    const directory = queue[head] as string;
    const state = states.get(directory);
    if (!state?.snapshot || !snapshotStillHolds(root, directory, state, racyWindowMs)) return undefined;
    const rules = rulesOf(root, directory, state, ruleFiles, config.respectGitignore);
    if (rules === undefined || rules !== state.rules) return undefined;
    const leftOut = new Set(state.leftOut);
    for (const name of state.snapshot.directories) if (!leftOut.has(name)) queue.push(directory ? `${directory}/${name}` : name);
    for (const name of state.snapshot.files) if (!leftOut.has(name)) paths.push(directory ? `${directory}/${name}` : name);
  }
  return { state: "listed", paths };
}

/** Whether the directories above `prefix` still lead to it as the last complete run saw them ("held"), leave it out, or cannot tell. */
function ancestorsHold(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  racyWindowMs: number,
  ruleFiles: readonly string[],
): "held" | { state: "left-out" } | undefined {
  const components = prefix === "" ? [] : prefix.split("/");
  for (let depth = 0; depth < components.length; depth++) {
    const ancestor = components.slice(0, depth).join("/");
    const state = states.get(ancestor);
    if (!state || !snapshotStillHolds(root, ancestor, state, racyWindowMs)) return undefined;
    const rules = rulesOf(root, ancestor, state, ruleFiles, config.respectGitignore);
    if (rules === undefined || rules !== state.rules) return undefined;
    if (state.leftOut.includes(components[depth] as string)) return { state: "left-out" };
  }
  return "held";
}

function snapshotStillHolds(root: string, directory: string, state: DirectoryState, racyWindowMs: number): boolean {
  const stats = statSync(join(root, directory), { throwIfNoEntry: false });
  return stats?.isDirectory() === true && state.snapshot !== undefined && snapshotHolds(state.snapshot, stats, racyWindowMs);
}

/** The rules hash a walk starts a directory with: the root's holds `.git/info/exclude` too. */
function rootRules(root: string, directory: string, respectGitignore: boolean): ListingHash | undefined {
  const rules = new ListingHash();
  if (directory !== "" || !respectGitignore) return rules;
  let stats: Stats | undefined;
  try {
    stats = statSync(join(root, ".git", "info", "exclude"), { throwIfNoEntry: false });
  } catch {
    return rules; // `.git` is a file (a worktree or submodule): no exclude file, as the walk sees it
  }
  if (stats?.isFile()) rules.addFile(".git/info/exclude", stats.size, Math.trunc(stats.mtimeMs));
  return rules;
}

/** The rules hash of a directory's ignore files as they are now, or undefined when one is not a file any more. */
function rulesOf(
  root: string,
  directory: string,
  state: DirectoryState,
  ruleFiles: readonly string[],
  respectGitignore: boolean,
): string | undefined {
  const rules = rootRules(root, directory, respectGitignore);
  if (!rules || !state.snapshot) return undefined;
  for (const name of state.snapshot.files) {
    if (!ruleFiles.includes(name)) continue;
    const stats = lstatSync(join(root, directory, name), { throwIfNoEntry: false });
    if (!stats?.isFile()) return undefined;
    rules.addFile(name, stats.size, Math.trunc(stats.mtimeMs));
  }
  return rules.digest();
}
