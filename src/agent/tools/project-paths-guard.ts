import { existsSync, realpathSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { isSecretPath } from "../../security/secrets.js";
import { ToolError } from "./tool.js";

export interface ResolvedPath {
  absolute: string;
  /** Relative to the project root, '/'-separated; undefined for an allowed directory outside it. */
  relative: string | undefined;
}

/**
 * Resolves a path a model gave and refuses anything outside the project root
 * (or a directory the user explicitly allowed), following symbolic links so a
 * link cannot smuggle a path out. Secret files are refused for reading and
 * writing alike.
 */
export function resolveProjectPath(root: string, requested: string, extraDirectories: readonly string[] = []): ResolvedPath {
  if (requested.trim() === "") throw new ToolError("The path is empty; give a path relative to the project root.");
  const absolute = resolve(root, requested);
  const real = realpathOfNearestExisting(absolute);
  const allowedRoots = [root, ...extraDirectories].map((directory) => realpathOfNearestExisting(resolve(directory)));
  const inside = allowedRoots.find((allowed) => real === allowed || real.startsWith(allowed + sep));
  if (!inside) {
    throw new ToolError(
      `${requested} is outside the project (${root}). Tools only reach files inside the project unless the user allows another directory.`,
    );
  }
  const relativePath = inside === allowedRoots[0] ? relative(allowedRoots[0] as string, real).split(sep).join("/") : undefined;
  if (isSecretPath(relativePath ?? real)) {
    throw new ToolError(`${requested} looks like a secrets file (keys, credentials, .env); Sylk never reads or writes those.`);
  }
  return { absolute, relative: relativePath };
}

/**
 * The path a write will really reach, as permission rules and the
 * protected-path check see it: relative to the root after symbolic links are
 * resolved (a link `notes -> .git` must not turn `notes/config` into an
 * ordinary edit), or absolute for an allowed directory outside the project.
 */
export function writeTarget(context: { root: string; extraDirectories: readonly string[] }, requested: string): string {
  const resolved = resolveProjectPath(context.root, requested, context.extraDirectories);
  return resolved.relative ?? resolved.absolute;
}

/**
 * The first of these paths (relative to the root, or absolute) that lies,
 * links resolved, in one of the hidden directories: Sylk's own data
 * directory when the project holds it (the default `~/.sylk` of a project
 * at or above the home directory). Its databases and trust store are never
 * a tool's to read or write.
 */
export function hiddenPathAmong(paths: readonly string[], context: { root: string; hiddenDirectories?: readonly string[] }): string | undefined {
  const hidden = (context.hiddenDirectories ?? []).map((directory) => realpathOfNearestExisting(resolve(directory)));
  if (hidden.length === 0) return undefined;
  return paths.find((path) => {
    const real = realpathOfNearestExisting(resolve(context.root, path));
    return hidden.some((directory) => isWithin(real, directory));
  });
}

/** The walk's files (relative to `scanRoot`) that do not lie in a hidden directory (see `hiddenPathAmong`). */
export function outsideHiddenDirectories<T extends { path: string }>(files: readonly T[], scanRoot: string, hiddenDirectories: readonly string[] = []): T[] {
  const hidden = hiddenDirectories.map((directory) => realpathOfNearestExisting(resolve(directory))).filter((directory) => isWithin(directory, scanRoot));
  if (hidden.length === 0) return [...files];
  // The walk never follows a link, so a file's path below the (real) root is its real path.
  return files.filter((file) => !hidden.some((directory) => isWithin(resolve(scanRoot, file.path), directory)));
}

function isWithin(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}

/** realpath of the path, or of its nearest existing ancestor joined with the rest (for files about to be created). */
function realpathOfNearestExisting(path: string): string {
  let current = path;
  const rest: string[] = [];
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    rest.unshift(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    current = parent;
  }
  const real = existsSync(current) ? realpathSync(current) : current;
  return rest.length > 0 ? resolve(real, ...rest) : real;
}
