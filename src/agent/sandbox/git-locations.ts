import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative as relative_, resolve, sep } from "node:path";
import { gitConfigReferences } from "./git-config-references.js";
import { expandHome, kindOf, type PathKind, realOrSelf } from "./sandbox-paths.js";

/** Included configuration files followed at most this deep (git's own limit is 10). */
const MAX_INCLUDE_DEPTH = 10;

/**
 * Where git finds what it runs for one working tree: the `.git` entry
 * itself, the directories it leads to (a worktree's or submodule's `.git`
 * file points at a git directory, which may name a common one), the
 * configuration files git reads there, and what those name: a hooks
 * directory (`core.hooksPath`), included files and programs.
 */
export interface GitLocations {
  /** `<worktree>/.git`. */
  entry: string;
  entryKind: PathKind;
  /** The git directory and, for linked worktrees, the common directory (real paths, existing). */
  gitDirectories: string[];
  /** The configuration files of those directories, included ones too (existing or not). */
  configFiles: string[];
  /** Where hooks run from: each `core.hooksPath`, else `hooks` in the common directory. */
  hooksDirectories: string[];
  /** Programs the configuration names by a path (`./scripts/clean`, `/opt/x/fsmonitor`). */
  programs: string[];
}

/**
 * The git locations of `worktree`; `userConfigFiles` are the user's own
 * configuration files (`~/.gitconfig`, …), whose relative `core.hooksPath`
 * also lands in this working tree.
 */
export function gitLocations(worktree: string, env: NodeJS.ProcessEnv, userConfigFiles: readonly string[] = []): GitLocations {
  const entry = join(worktree, ".git");
  const entryKind = kindOf(entry);
  const gitDirectory = gitDirectoryOf(entry, entryKind);
  const common = gitDirectory ? commonDirectoryOf(gitDirectory) : undefined;
  const gitDirectories = [...new Set([gitDirectory, common].filter((path): path is string => path !== undefined))];
  const repositoryConfigs = gitDirectories.flatMap((directory) => [join(directory, "config"), join(directory, "config.worktree")]);
  const configFiles: string[] = [];
  const hooksPaths: string[] = [];
  const programs: string[] = [];
  const visit = (file: string, depth: number) => {
    if (configFiles.includes(file) || depth > MAX_INCLUDE_DEPTH) return;
    configFiles.push(file);
    const text = readOrUndefined(file);
    if (text === undefined) return;
    const references = gitConfigReferences(text);
    hooksPaths.push(...references.hooksPaths.map((path) => resolve(worktree, expandHome(path, env))));
    programs.push(
      ...references.programs.filter((program) => program.includes("/")).map((program) => resolve(worktree, expandHome(program, env))),
    );
    for (const include of references.includes) visit(resolve(dirname(file), expandHome(include, env)), depth + 1);
  };
  for (const file of [...userConfigFiles, ...repositoryConfigs]) visit(file, 0);
  const defaultHooks = common ?? gitDirectory;
  return {
    entry,
    entryKind,
    gitDirectories,
    configFiles,
    hooksDirectories: hooksPaths.length > 0 ? [...new Set(hooksPaths)] : defaultHooks ? [join(defaultHooks, "hooks")] : [],
    programs: [...new Set(programs)],
  };
}

/**
 * What git runs from inside the project, relative to `root` and
 * '/'-separated: each hooks directory (`core.hooksPath = .githooks`) and
 * each program the configuration names by a path (`./scripts/clean`).
 * A change to one is a command the user's next `git commit` runs, outside
 * the sandbox; those under `.git` are protected by name already.
 */
export function gitRunPaths(root: string, env: NodeJS.ProcessEnv): string[] {
  const git = gitLocations(root, env, userGitConfigFiles(env));
  const realRoot = realOrSelf(root);
  const inside: string[] = [];
  for (const path of [...git.hooksDirectories, ...git.programs]) {
    for (const base of new Set([root, realRoot])) {
      const relative = relativePath(base, realOrSelf(path)) ?? relativePath(base, path);
      if (relative !== undefined) inside.push(relative);
    }
  }
  return [...new Set(inside)];
}

function relativePath(base: string, path: string): string | undefined {
  const relative = relative_(base, path);
  if (relative === "" || relative === ".." || relative.startsWith(`..${sep}`) || isAbsolute(relative)) return undefined;
  return relative.split(sep).join("/");
}

/** The user's git configuration files, as git reads them besides the repository's. */
export function userGitConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, "git", "config") : expandHome("~/.config/git/config", env);
  return ["/etc/gitconfig", xdg, expandHome("~/.gitconfig", env)];
}

/** The git directory a `.git` entry stands for: itself, a link's target, or what a `gitdir:` file names. */
export function gitDirectoryOf(entry: string, kind: PathKind = kindOf(entry)): string | undefined {
  if (kind === "directory" || kind === "symlink") {
    const real = realOrSelf(entry);
    return kindOf(real) === "directory" ? real : undefined;
  }
  if (kind !== "file") return undefined;
  const named = /^gitdir:\s*(.+?)\s*$/m.exec(readOrUndefined(entry) ?? "")?.[1];
  if (!named) return undefined;
  const target = realOrSelf(isAbsolute(named) ? named : resolve(dirname(entry), named));
  return kindOf(target) === "directory" ? target : undefined;
}

/** A linked worktree's git directory names the repository's common directory in `commondir`. */
function commonDirectoryOf(gitDirectory: string): string | undefined {
  const named = readOrUndefined(join(gitDirectory, "commondir"))?.trim();
  if (!named) return undefined;
  const common = realOrSelf(isAbsolute(named) ? named : resolve(gitDirectory, named));
  return kindOf(common) === "directory" ? common : undefined;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
