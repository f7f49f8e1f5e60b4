import { isUtf8 } from "node:buffer";
import { readdirSync, type Dirent } from "node:fs";

/** Why an entry the walk saw is never read: what it is, or a name Sylk's tools could not name. */
export type UnindexableReason = "fifo" | "socket" | "device" | "name-not-utf8";

/** An entry the index reports as skipped, never reads. */
export interface UnindexableEntry {
  /** Its name, bytes that are not UTF-8 shown as `\xNN`. */
  name: string;
  reason: UnindexableReason;
}

/** A directory's entries by name: from `readdir`, or a snapshot that still holds. */
export interface EntryNames {
  files: readonly string[];
  directories: readonly string[];
  /** FIFOs, sockets, devices and names that are not UTF-8 (listings only; a snapshot never holds any). */
  unindexable?: readonly UnindexableEntry[];
}

/**
 * Regular files and subdirectories by name, in `readdir`'s order (ignore
 * files register in it), and what cannot be indexed; undefined when the
 * directory is unreadable. Symbolic links are left out, never followed.
 * Node decodes a name that is not UTF-8 with U+FFFD, which names no file:
 * when one appears, the directory is read again as bytes so that such
 * names are told apart and reported instead of silently lost.
 */
export function listDirectory(path: string): EntryNames | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return undefined;
  }
  if (entries.some((entry) => entry.name.includes("\uFFFD"))) return listByBytes(path);
  const names = { files: [] as string[], directories: [] as string[], unindexable: [] as UnindexableEntry[] };
  for (const entry of entries) sortEntry(names, entry, entry.name);
  return names;
}

function listByBytes(path: string): EntryNames | undefined {
  let entries: Array<Dirent<Buffer>>;
  try {
    entries = readdirSync(path, { withFileTypes: true, encoding: "buffer" });
  } catch {
    return undefined;
  }
  const names = { files: [] as string[], directories: [] as string[], unindexable: [] as UnindexableEntry[] };
  for (const entry of entries) {
    const bytes = entry.name;
    if (isUtf8(bytes)) sortEntry(names, entry, bytes.toString("utf8"));
    else if (entry.isFile() || entry.isDirectory() || isSpecial(entry))
      names.unindexable.push({ name: displayName(bytes), reason: "name-not-utf8" });
  }
  return names;
}

function sortEntry(
  names: { files: string[]; directories: string[]; unindexable: UnindexableEntry[] },
  entry: Dirent<string | Buffer>,
  name: string,
): void {
  if (entry.isDirectory()) names.directories.push(name);
  else if (entry.isFile()) names.files.push(name);
  else if (isSpecial(entry)) names.unindexable.push({ name, reason: entry.isFIFO() ? "fifo" : entry.isSocket() ? "socket" : "device" });
}

function isSpecial(entry: Dirent<string | Buffer>): boolean {
  return entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
}

/** The name as text: valid UTF-8 sequences as they are, other bytes and control characters as `\xNN`. */
export function displayName(bytes: Buffer): string {
  let shown = "";
  for (let index = 0; index < bytes.length; ) {
    const length = sequenceLength(bytes[index] as number);
    const sequence = bytes.subarray(index, index + length);
    if (
      length > 0 &&
      sequence.length === length &&
      isUtf8(sequence) &&
      (length > 1 || ((bytes[index] as number) >= 0x20 && bytes[index] !== 0x7f))
    ) {
      shown += sequence.toString("utf8");
      index += length;
    } else {
      shown += `\\x${(bytes[index] as number).toString(16).padStart(2, "0")}`;
      index++;
    }
  }
  return shown;
}

/** How many bytes a UTF-8 sequence starting with this byte has; 0 for a byte no sequence starts with. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}
