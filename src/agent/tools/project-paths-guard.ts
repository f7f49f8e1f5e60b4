import { resolve, relative, sep } from "node:path";
import { isInside, LinkLoopError, resolveLinks } from "../../files/resolve-links.js";
import { isSecretPath } from "../../security/secrets.js";
import { ToolError } from "./tool.js";

export interface ResolvedPath {
  /** The path as given, made absolute against the root. */
  absolute: string;
  /** Where it really leads: every symbolic link followed, dangling ones included (see `resolveLinks`). */
  real: string;
  /** `real` relative to the project root, '/'-separated; undefined for an allowed directory outside it. */
  relative: string | undefined;
}

/**
 * Resolves a path a model gave and refuses anything outside the project root
 * (or a directory the user explicitly allowed), following symbolic links to
 * their end, a dangling one too, so a link cannot smuggle a path out. Secret
 * files are refused for reading and writing alike. Tools open `real`.
 */
export function resolveProjectPath(root: string, requested: string, extraDirectories: readonly string[] = []): ResolvedPath {
  if (requested.trim() === "") throw new ToolError("The path is empty; give a path relative to the project root.");
  const absolute = resolve(root, requested);
  const real = linksResolved(absolute, requested);
  const allowedRoots = [root, ...extraDirectories].map((directory) => linksResolved(resolve(directory), directory));
  const inside = allowedRoots.find((allowed) => isInside(real, allowed));
  if (!inside) {
    const throughLink = real !== absolute && allowedRoots.some((allowed) => isInside(absolute, allowed));
    const what = throughLink ? `${requested} leads through a symbolic link to ${real}, which` : requested;
    throw new ToolError(
      `${what} is outside the project (${root}). Tools only reach files inside the project unless the user allows another directory.`,
    );
  }
  const relativePath = inside === allowedRoots[0] ? relative(inside, real).split(sep).join("/") : undefined;
  if (isSecretPath(relativePath ?? real)) {
    throw new ToolError(`${requested} looks like a secrets file (keys, credentials, .env); Sylk never reads or writes those.`);
  }
  return { absolute, real, relative: relativePath };
}

function linksResolved(path: string, requested: string): string {
  try {
    return resolveLinks(path);
  } catch (error) {
    if (error instanceof LinkLoopError)
      throw new ToolError(`${requested} leads through too many symbolic links (a loop?); use another path.`);
    throw error;
  }
}

/**
 * The first of these paths (relative to the root, or absolute) that lies,
 * links resolved, in one of the hidden directories: Sylk's own data
 * directory when the project holds it (the default `~/.sylk` of a project
 * at or above the home directory). Its databases and trust store are never
 * a tool's to read or write.
 */
export function hiddenPathAmong(
  paths: readonly string[],
  context: { root: string; hiddenDirectories?: readonly string[] },
): string | undefined {
  const hidden = (context.hiddenDirectories ?? []).map((directory) => linksResolved(resolve(directory), directory));
  if (hidden.length === 0) return undefined;
  return paths.find((path) => {
    const real = linksResolved(resolve(context.root, path), path);
    return hidden.some((directory) => isInside(real, directory));
  });
}

/** The walk's files (relative to `scanRoot`) that do not lie in a hidden directory (see `hiddenPathAmong`). */
export function outsideHiddenDirectories<T extends { path: string }>(
  files: readonly T[],
  scanRoot: string,
  hiddenDirectories: readonly string[] = [],
): T[] {
  const hidden = hiddenDirectories
    .map((directory) => linksResolved(resolve(directory), directory))
    .filter((directory) => isInside(directory, scanRoot));
  if (hidden.length === 0) return [...files];
  // The walk never follows a link, so a file's path below the (real) root is its real path.
  return files.filter((file) => !hidden.some((directory) => isInside(resolve(scanRoot, file.path), directory)));
}
