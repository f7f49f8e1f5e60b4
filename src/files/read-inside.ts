import { FileTooLargeError, NotRegularFileError, readRegularFile } from "./regular-file.js";
import { isInside, LinkLoopError, resolveLinks } from "./resolve-links.js";
import { errorMessage } from "../errors.js";

/** The file's real path is outside the root it was found under (a symbolic link out). */
export class OutsideRootError extends Error {
  constructor(
    readonly path: string,
    readonly real: string,
    readonly root: string,
  ) {
    super(`${path} is a symbolic link to ${real}, outside ${root}`);
    this.name = "OutsideRootError";
  }
}

/**
 * The text of a file that configuration found under a root (custom agents,
 * custom commands): read only when its real path is inside the root, since
 * a planted link `x.md -> ~/.aws/credentials` would send that file to the
 * provider as a prompt, and only when it is a regular file, read without
 * blocking (a FIFO named `x.md` would hold every session's start).
 */
export function readRegularFileInside(path: string, root: string, maxBytes: number): string {
  const real = resolveLinks(path);
  const realRoot = resolveLinks(root);
  if (!isInside(real, realRoot)) throw new OutsideRootError(path, real, realRoot);
  return readRegularFile(real, { maxBytes }).toString("utf8");
}

/** Why such a file was not read, as a sentence fragment for the user ("a FIFO (named pipe), not a regular file"). */
export function unreadableReason(error: unknown, what: { label: string; maxBytes: number }): string {
  if (error instanceof OutsideRootError) return `a symbolic link to ${error.real}, outside ${what.label} (${error.root}); not loaded`;
  if (error instanceof NotRegularFileError) return `${error.kind}, not a regular file; not loaded`;
  if (error instanceof LinkLoopError) return "it leads through too many symbolic links; not loaded";
  if (error instanceof FileTooLargeError) return `${error.size} bytes: such a file may have at most ${what.maxBytes}`;
  return `cannot read it: ${errorMessage(error)}`;
}
