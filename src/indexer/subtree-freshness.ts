import { lstatSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
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
  const ruleFiles = ignoreFileNames(config);
  const above = ancestorsHold(root, config, prefix, states, racyWindowMs, ruleFiles);
  if (above !== "held") return above;
  let files = 0;
  const queue = [prefix];
  for (let head = 0; head < queue.length; head++) {
    const directory = queue[head] as string;
    const state = states.get(directory);
    if (!state?.snapshot || !snapshotStillHolds(root, directory, state, racyWindowMs)) return undefined;
    const rules = rulesOf(root, directory, state, ruleFiles, config.respectGitignore);
    if (rules === undefined || rules !== state.rules) return undefined;
    const leftOut = new Set(state.leftOut);
    for (const name of state.snapshot.directories) if (!leftOut.has(name)) queue.push(directory ? `${directory}/${name}` : name);
    for (const name of state.snapshot.files) if (!leftOut.has(name)) files++;
  }
  return { state: "listed", files };
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
