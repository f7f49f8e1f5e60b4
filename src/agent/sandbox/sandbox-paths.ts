import { lstatSync, realpathSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { join, sep } from "node:path";

/** What is at a path, without following a final symbolic link. */
export type PathKind = "directory" | "file" | "symlink" | "other" | "absent";

export function kindOf(path: string): PathKind {
  const stats = lstatOrUndefined(path);
  if (!stats) return "absent";
  if (stats.isDirectory()) return "directory";
  if (stats.isFile()) return "file";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** `path` is `directory` or below it (both absolute and normalised). */
export function isWithin(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}

/** The real path, or the path as given when it does not exist. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The user's home directory as the environment gives it. */
function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME ?? homedir();
}

/** `~` and `~/…` expanded to the home directory; other paths as they are. */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  const home = homeOf(env);
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** A path as the user thinks of it: `~/.ssh` rather than `/home/ann/.ssh`. */
export function shownPath(path: string, env: NodeJS.ProcessEnv): string {
  const home = homeOf(env);
  return isWithin(path, home) && path !== home ? `~${path.slice(home.length)}` : path;
}
