import { lstatSync, type Stats, statSync } from "node:fs";
import { join, sep } from "node:path";
import type { IndexConfig } from "../config/schema.js";
import { ListingHash, snapshotHolds, type DirectoryState } from "./directory-state.js";
import { ignoreFileNames } from "./path-filter.js";

/**
 * How many files the walk takes below `prefix`, by name, when no entry was
 * added, removed or renamed in any directory there since the last complete
 * run (each directory's snapshot holds) and the ignore files above and
 * within are the ones its rules were judged by: a `stat` of each directory
 * and each ignore file, none of the other files. Then the manifest's rows
 * there are those files (a count that differs says the two disagree).
 * Whether a file changed in place is not known here: grep checks each file
 * it would rule out where it reads the others. Undefined when it cannot
 * tell.
 */
export function listSubtree(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  racyWindowMs: number,
): { state: "listed"; files: number } | { state: "left-out" } | undefined {
  const listed = checkedSubtree(root, config, prefix, states, racyWindowMs);
  if (!listed || !("directories" in listed)) return listed;
  return { state: "listed", files: listed.directories.reduce((files, directory) => files + directory.files.length, 0) };
}

/**
 * The files the walk that stored `states` took below `prefix` ('' for all),
 * relative to the root and '/'-separated, when every directory there still
 * holds the entries it saw (as `listSubtree` tells): the names its
 * snapshots hold, without a `stat` of each file. The walk takes files it
 * then skips by name or size: the caller judges those.
 */
export function filesOfSubtree(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  racyWindowMs: number,
): { state: "listed"; paths: string[] } | { state: "left-out" } | undefined {
  const listed = checkedSubtree(root, config, prefix, states, racyWindowMs);
  if (!listed || !("directories" in listed)) return listed;
  return { state: "listed", paths: pathsOf(listed.directories) };
}

/** A directory of a subtree as stored states list it: the files the walk took there, and the ignore files its rules hash holds. */
export interface ListedDirectory {
  path: string;
  state: DirectoryState;
  files: readonly string[];
  ignoreFiles: readonly string[];
}

/**
 * The directories below `prefix` as the stored states list them, read from
 * the states alone (no disk): what a caller that lists the same subtree
 * again keeps, to check with `subtreeStillHolds` each time. Undefined when a
 * directory has no state or snapshot.
 */
export function subtreeByStates(
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
): ListedDirectory[] | undefined {
  const ruleFiles = ignoreFileNames(config);
  const directories: ListedDirectory[] = [];
  const queue = [prefix];
  for (let head = 0; head < queue.length; head++) {
    const path = queue[head] as string;
    const state = states.get(path);
    if (!state?.snapshot) return undefined;
    const leftOut = new Set(state.leftOut);
    for (const name of state.snapshot.directories) if (!leftOut.has(name)) queue.push(path ? `${path}/${name}` : name);
    const names = state.snapshot.files;
    const files = leftOut.size === 0 ? names : names.filter((name) => !leftOut.has(name));
    directories.push({ path, state, files, ignoreFiles: names.filter((name) => ruleFiles.includes(name)) });
  }
  return directories;
}

/** The files of listed directories, relative to the root and '/'-separated. */
export function pathsOf(directories: readonly ListedDirectory[]): string[] {
  const paths: string[] = [];
  for (const { path, files } of directories) for (const name of files) paths.push(path ? `${path}/${name}` : name);
  return paths;
}

/**
 * Whether the directories above `prefix` still lead to it as the walk saw
 * them and every listed directory still holds its snapshot and ignore
 * files ("held"), the walk left `prefix` out, or it cannot tell: a `stat`
 * of each directory and ignore file.
 */
export function subtreeStillHolds(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  directories: readonly ListedDirectory[],
  racyWindowMs: number,
): "held" | { state: "left-out" } | undefined {
  const above = ancestorsHold(root, config, prefix, states, racyWindowMs, ignoreFileNames(config));
  if (above !== "held") return above;
  return directoriesHold(root, config, directories, racyWindowMs) ? "held" : undefined;
}

/** Whether every listed directory still holds its snapshot and its ignore files' rules. */
function directoriesHold(root: string, config: IndexConfig, directories: readonly ListedDirectory[], racyWindowMs: number): boolean {
  // Paths joined once, as this runs at every search of a kept listing (3,066 directories on biome).
  const rootPrefix = root.endsWith(sep) ? root : `${root}${sep}`;
  for (const { path, state, ignoreFiles } of directories) {
    if (!directoryStillHolds(path === "" ? root : rootPrefix + path, state, racyWindowMs)) return false;
    if (rulesOf(root, path, state, ignoreFiles, config.respectGitignore) !== state.rules) return false;
  }
  return true;
}

/** The subtree's directories when they all hold as the states say, "left-out", or undefined. */
function checkedSubtree(
  root: string,
  config: IndexConfig,
  prefix: string,
  states: ReadonlyMap<string, DirectoryState>,
  racyWindowMs: number,
): { directories: ListedDirectory[] } | { state: "left-out" } | undefined {
  const above = ancestorsHold(root, config, prefix, states, racyWindowMs, ignoreFileNames(config));
  if (above !== "held") return above;
  const directories = subtreeByStates(config, prefix, states);
  return directories && directoriesHold(root, config, directories, racyWindowMs) ? { directories } : undefined;
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
    const ignoreFiles = state.snapshot?.files.filter((name) => ruleFiles.includes(name)) ?? [];
    const rules = rulesOf(root, ancestor, state, ignoreFiles, config.respectGitignore);
    if (rules === undefined || rules !== state.rules) return undefined;
    if (state.leftOut.includes(components[depth] as string)) return { state: "left-out" };
  }
  return "held";
}

function snapshotStillHolds(root: string, directory: string, state: DirectoryState, racyWindowMs: number): boolean {
  return directoryStillHolds(join(root, directory), state, racyWindowMs);
}

const NO_THROW = { throwIfNoEntry: false } as const;

/** Whether the directory at this absolute path still holds the entries its snapshot names. */
function directoryStillHolds(absolute: string, state: DirectoryState, racyWindowMs: number): boolean {
  const stats = statSync(absolute, NO_THROW);
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
  ignoreFiles: readonly string[],
  respectGitignore: boolean,
): string | undefined {
  const rules = rootRules(root, directory, respectGitignore);
  if (!rules || !state.snapshot) return undefined;
  for (const name of ignoreFiles) {
    const stats = lstatSync(join(root, directory, name), { throwIfNoEntry: false });
    if (!stats?.isFile()) return undefined;
    rules.addFile(name, stats.size, Math.trunc(stats.mtimeMs));
  }
  return rules.digest();
}
