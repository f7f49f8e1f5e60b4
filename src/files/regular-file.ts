import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from "node:fs";

/**
 * Reading a project file without ever blocking on it. Opening a FIFO for
 * reading waits until something opens it for writing, and reading a device
 * may never end: a repository that plants one (`mkfifo notes.md`) would
 * freeze whatever reads it, beyond the reach of Ctrl-C, since the read holds
 * the thread. So a file is judged by `stat` before it is opened, opened with
 * O_NONBLOCK (a FIFO swapped in after the check then opens at once instead
 * of waiting) and judged again by `fstat` on what was really opened (a path
 * the indexer's walk has just listed, only by the latter: `listedAsRegular`).
 */

/** The file is something other than a regular file (or, when links are not followed, a link). */
export class NotRegularFileError extends Error {
  constructor(
    readonly path: string,
    /** What it is, as a sentence fragment: "a FIFO (named pipe)". */
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
    this.name = "NotRegularFileError";
  }
}

/** The file is larger than the reader takes. */
export class FileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${path} is too large to read (${size} bytes; at most ${maxBytes})`);
    this.name = "FileTooLargeError";
  }
}

export interface RegularFileOptions {
  /** Refuse the path when it is itself a symbolic link (its last component is never followed). Default: follow. */
  noFollow?: boolean;
  /** Refuse a larger file before reading it. */
  maxBytes?: number;
  /**
   * The path was listed as a regular file a moment ago (the indexer's walk,
   * which never follows a link): judged by `fstat` once open, not by a
   * `stat` before. Only with `noFollow`, so that no link can lead the open
   * to a device. Of a first index's read of 27k files the `stat` was ≈ 10 %.
   */
  listedAsRegular?: boolean;
}

/** What a file system entry is, for messages: "a directory", "a FIFO (named pipe)", … */
export function fileKind(stats: Stats): string {
  if (stats.isFile()) return "a regular file";
  if (stats.isDirectory()) return "a directory";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "a special file";
}

/** The stats of a regular file, or NotRegularFileError / FileTooLargeError; a missing path throws ENOENT as `stat` does. */
function regularFileStats(path: string, options: RegularFileOptions = {}): Stats {
  const stats = options.noFollow ? lstatSync(path) : statSync(path);
  return checked(path, stats, options);
}

/** The bytes of a regular file, read without ever waiting on a FIFO or device (see the module comment). */
export function readRegularFile(path: string, options: RegularFileOptions = {}): Buffer {
  if (!(options.listedAsRegular && options.noFollow)) regularFileStats(path, options);
  const descriptor = openOrRefuse(path, options);
  try {
    const stats = checked(path, fstatSync(descriptor), options);
    return readToEnd(path, descriptor, stats.size, options);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The bytes of an open regular file whose `fstat` gave `size`: one read of
 * a byte more than that, which comes back short at the end of a file that
 * has not grown (a regular file's read is short only there), where
 * `readFileSync` took a `fstat` of its own and a second read to find the
 * end. A file that grew meanwhile is read on to its new end.
 */
function readToEnd(path: string, descriptor: number, size: number, options: RegularFileOptions): Buffer {
  let bytes = Buffer.allocUnsafe(size + 1);
  let length = 0;
  for (;;) {
    const read = readSync(descriptor, bytes, length, bytes.length - length, null);
    length += read;
    if (read === 0 || length < bytes.length) return bytes.subarray(0, length);
    if (options.maxBytes !== undefined && length > options.maxBytes) throw new FileTooLargeError(path, length, options.maxBytes);
    const larger = Buffer.allocUnsafe(bytes.length * 2);
    bytes.copy(larger, 0, 0, length);
    bytes = larger;
  }
}

function checked(path: string, stats: Stats, options: RegularFileOptions): Stats {
  if (!stats.isFile()) throw new NotRegularFileError(path, fileKind(stats));
  if (options.maxBytes !== undefined && stats.size > options.maxBytes) throw new FileTooLargeError(path, stats.size, options.maxBytes);
  return stats;
}

function openOrRefuse(path: string, options: RegularFileOptions): number {
  try {
    return openSync(path, openFlags(options));
  } catch (error) {
    throw refusedLink(path, error, options);
  }
}

/** O_NONBLOCK: a FIFO opens at once; O_NOCTTY: a terminal never becomes ours; O_NOFOLLOW when links are refused. */
function openFlags(options: RegularFileOptions): number {
  const flag = (name: "O_NONBLOCK" | "O_NOCTTY" | "O_NOFOLLOW") => (constants as Partial<Record<string, number>>)[name] ?? 0;
  return constants.O_RDONLY | flag("O_NONBLOCK") | flag("O_NOCTTY") | (options.noFollow ? flag("O_NOFOLLOW") : 0);
}

/** O_NOFOLLOW fails with ELOOP on a link swapped in after the check. */
function refusedLink(path: string, error: unknown, options: RegularFileOptions): unknown {
  return options.noFollow && (error as NodeJS.ErrnoException).code === "ELOOP" ? new NotRegularFileError(path, "a symbolic link") : error;
}
