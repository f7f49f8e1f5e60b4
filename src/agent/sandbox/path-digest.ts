import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { lstatOrUndefined } from "./sandbox-paths.js";

/** Bytes of a file read for its digest; past that, its size and time stand for the rest. */
const MAX_DIGEST_BYTES = 1 << 20;
/** Entries of a directory tree taken into its digest. */
const MAX_TREE_ENTRIES = 500;

/**
 * Which file system object a path is: a directory by its identity (a
 * directory renamed away and made again is another one), a file by its
 * content, a link by its target. `absent` when there is nothing.
 */
export function entryDigest(path: string): string {
  const stats = lstatOrUndefined(path);
  if (!stats) return "absent";
  if (stats.isDirectory()) return `directory ${stats.dev}:${stats.ino}`;
  if (stats.isSymbolicLink()) return `link ${readlinkOrEmpty(path)}`;
  return `file ${fileDigest(path)}`;
}

/** A file's content (a directory or link where a file belongs counts as a change too). */
export function fileDigest(path: string): string {
  const stats = lstatOrUndefined(path);
  if (!stats) return "absent";
  if (!stats.isFile()) return entryDigest(path);
  if (stats.size > MAX_DIGEST_BYTES) return `large ${stats.size} ${stats.mtimeMs} ${stats.ino}`;
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return "unreadable";
  }
}

/** Every name, kind and content below a directory (hooks, `.sylk/`): adding, changing or removing any changes it. */
export function treeDigest(path: string): string {
  const stats = lstatOrUndefined(path);
  if (!stats) return "absent";
  if (!stats.isDirectory()) return entryDigest(path);
  const hash = createHash("sha256");
  let entries = 0;
  const visit = (directory: string, prefix: string) => {
    let names: string[];
    try {
      names = readdirSync(directory).sort();
    } catch {
      hash.update(`${prefix}: unreadable\n`);
      return;
    }
    for (const name of names) {
      if (++entries > MAX_TREE_ENTRIES) return;
      const child = join(directory, name);
      const kind = lstatOrUndefined(child);
      if (kind?.isDirectory()) {
        hash.update(`${prefix}${name}/\n`);
        visit(child, `${prefix}${name}/`);
      } else {
        hash.update(`${prefix}${name} ${kind ? (kind.mode & 0o777).toString(8) : "?"} ${fileDigest(child)}\n`);
      }
    }
  };
  visit(path, "");
  return `tree ${stats.dev}:${stats.ino} ${hash.digest("hex")}`;
}

function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
