import { randomBytes } from "node:crypto";
import { accessSync, closeSync, constants, fchmodSync, lstatSync, openSync, renameSync, rmSync, writeSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileKind, NotRegularFileError } from "./regular-file.js";

/** The file is there but the user made it read-only. */
export class ReadOnlyFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} is read-only`);
    this.name = "ReadOnlyFileError";
  }
}

/**
 * Puts `content` at `path` without ever following a link there: the bytes go
 * to a new file beside it (created exclusively, so nothing planted under
 * that name is opened), which is then renamed over `path`. A rename replaces
 * whatever entry has the name, a link included, and never writes through it;
 * a link swapped in after the caller judged the path is replaced, not
 * followed, and a hard link to a file elsewhere is left alone. Readers see
 * the old file or the new one, never half of it. An existing file keeps its
 * permission bits; a read-only one is refused, as an in-place write would
 * have been.
 */
export function replaceFile(path: string, content: string | Uint8Array): void {
  const existing = existingFile(path);
  if (existing) {
    try {
      accessSync(path, constants.W_OK);
    } catch {
      throw new ReadOnlyFileError(path);
    }
  }
  const temporary = join(dirname(path), `.${basename(path)}.sylk-${randomBytes(6).toString("hex")}.tmp`);
  const descriptor = openSync(temporary, "wx", 0o666);
  try {
    try {
      const bytes = typeof content === "string" ? Buffer.from(content) : content;
      for (let written = 0; written < bytes.length; ) written += writeSync(descriptor, bytes, written, bytes.length - written);
      if (existing) fchmodSync(descriptor, existing.mode & 0o7777);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** The regular file now at `path` (not followed), undefined when there is none or it is a link; anything else is refused. */
function existingFile(path: string): Stats | undefined {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (stats.isSymbolicLink()) return undefined;
  if (!stats.isFile()) throw new NotRegularFileError(path, fileKind(stats));
  return stats;
}
