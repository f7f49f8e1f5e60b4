import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { looksBinary } from "../../parsing/languages.js";
import { maskSecrets } from "../../security/secrets.js";
import { splitLines } from "./file-text.js";

/** Matching lines are cut at this many characters. */
const MAX_LINE_LENGTH = 300;

/** One search: the pattern (JavaScript syntax), its flags, and the files in the order their matches are listed. */
export interface GrepSearch {
  pattern: string;
  flags: string;
  files: readonly string[];
  maxResults: number;
}

/** A file's matching lines: 1-based line number and the line as the model may see it (masked, cut). */
export interface FileHits {
  file: number;
  lines: Array<[number, string]>;
}

/**
 * Called before each file is read, with its index: the thread that watches
 * the search learns from it which file is taking long.
 */
export type OnFile = (file: number) => void;

// Opening without blocking: a named pipe or a device in the list answers at once and is then skipped.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Files whose text masking left unchanged, as they were then (size, times,
 * inode): a later search reads them without masking them again. Masking
 * costs more than matching; what it depends on is the file alone, never the
 * pattern, so remembering it tells a pattern nothing.
 */
export class UnmaskedFiles {
  private readonly versions = new Map<string, string>();

  constructor(private readonly capacity = 200_000) {}

  has(path: string, stats: Stats): boolean {
    return this.versions.get(path) === versionOf(stats);
  }

  remember(path: string, stats: Stats, unchanged: boolean): void {
    if (!unchanged) {
      this.versions.delete(path);
      return;
    }
    if (this.versions.size >= this.capacity) this.versions.clear();
    this.versions.set(path, versionOf(stats));
  }
}

/**
 * The matching lines of a file, matched against its text as the model may
 * see it: with secret values masked (`maskSecrets`), so that a search for a
 * secret's value finds nothing, and no pattern (a lookahead, an alternation)
 * can tell from what it finds whether a guess about a masked value was
 * right. Files that are not regular files, cannot be read, or look binary
 * have none.
 */
export function matchingLines(path: string, regex: RegExp, unmasked: UnmaskedFiles = new UnmaskedFiles()): Array<[number, string]> {
  const read = readText(path);
  if (read === undefined) return [];
  let text = read.text;
  if (!unmasked.has(path, read.stats)) {
    const masked = maskSecrets(text);
    unmasked.remember(path, read.stats, masked.findings.length === 0);
    text = masked.text;
  }
  const hits: Array<[number, string]> = [];
  const lines = splitLines(text);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (regex.test(line)) hits.push([index + 1, line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line]);
  }
  return hits;
}

/**
 * Runs a search over its files in order, reporting each file's hits as found,
 * until `maxResults` lines are listed. Returns whether more matches exist
 * beyond them (found in the file where the limit was reached, or later).
 */
export function searchFiles(search: GrepSearch, onFile: OnFile, onHits: (hits: FileHits) => void, unmasked?: UnmaskedFiles): { more: boolean } {
  const regex = new RegExp(search.pattern, search.flags);
  let listed = 0;
  for (let file = 0; file < search.files.length; file++) {
    onFile(file);
    const lines = matchingLines(search.files[file] as string, regex, unmasked);
    if (lines.length === 0) continue;
    const room = search.maxResults - listed;
    if (room === 0) return { more: true };
    onHits({ file, lines: lines.slice(0, room) });
    listed += Math.min(room, lines.length);
    if (lines.length > room) return { more: true };
  }
  return { more: false };
}

function readText(path: string): { text: string; stats: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const bytes = readFileSync(fd);
    return looksBinary(bytes) ? undefined : { text: bytes.toString("utf8"), stats };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function versionOf(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
