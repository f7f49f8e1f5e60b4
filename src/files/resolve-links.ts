import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, join, parse, sep } from "node:path";

/** As Linux's limit on links followed in one lookup (MAXSYMLINKS). */
const MAX_LINKS = 40;

/** A path led through more links than the kernel would follow (a loop, most likely). */
export class LinkLoopError extends Error {
  constructor(readonly path: string) {
    super(`${path} leads through more than ${MAX_LINKS} symbolic links (a loop?)`);
    this.name = "LinkLoopError";
  }
}

/**
 * Where an absolute path really leads: every symbolic link on it followed to
 * its end, the last component's included, whether or not that end exists
 * (`realpath -m`). A dangling link `notes -> ../outside/x` is judged by
 * `../outside/x`, the file a write through it would create; `realpath`
 * would fail on it, and judging it by its parent let such writes out of the
 * project. Components after the first missing one are taken as written.
 */
export function resolveLinks(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw code === "ELOOP" ? new LinkLoopError(path) : error;
  }
  return resolveMissing(path);
}

/** The slow walk, for a path whose end does not exist: one `lstat` per component. */
function resolveMissing(path: string): string {
  const { root } = parse(path);
  let resolved = root;
  let missing = false;
  let links = 0;
  // Components still to walk, the next one last.
  const pending = componentsOf(path.slice(root.length)).reverse();
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name === "..") {
      resolved = join(resolved, ".."); // `resolved` holds no link, so its parent is what `..` names
      continue;
    }
    const candidate = join(resolved, name);
    const target = missing ? undefined : linkTarget(candidate);
    if (target === null) missing = true;
    if (typeof target !== "string") {
      resolved = candidate;
      continue;
    }
    if (++links > MAX_LINKS) throw new LinkLoopError(path);
    if (isAbsolute(target)) resolved = parse(target).root;
    pending.push(...componentsOf(isAbsolute(target) ? target.slice(parse(target).root.length) : target).reverse());
  }
  return resolved;
}

/** The link's target; undefined for anything else that exists; null when nothing is there. */
function linkTarget(path: string): string | undefined | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

/** Windows takes either slash; elsewhere a backslash is part of a name. */
const SEPARATORS = sep === "\\" ? /[\\/]+/ : /\/+/;

function componentsOf(path: string): string[] {
  return path.split(SEPARATORS).filter((name) => name !== "" && name !== ".");
}

/** True when `path` is `directory` or lies below it (both already resolved). */
export function isInside(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}
