import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, type Stats } from "node:fs";
import { looksBinary } from "../../parsing/languages.js";
import { MASK_MARKERS, maskSecrets } from "../../security/secrets.js";
import { splitLines } from "./file-text.js";
import { LineCandidates, type NumberedLine } from "./grep-lines.js";
import { requiredLiterals } from "./grep-literals.js";

/** Matching lines are cut at this many characters. */
const MAX_LINE_LENGTH = 300;

/** One search: the pattern (JavaScript syntax), its flags, and the files in the order their matches are listed. */
export interface GrepSearch {
  pattern: string;
  flags: string;
  files: readonly string[];
  maxResults: number;
  /** The index in the whole search of `files[0]`, when a search is split among threads; 0 otherwise. */
  firstFile?: number;
  /** Files larger than this are passed over (a listed file that grew past what the index reads); all are read without it. */
  maxFileBytes?: number;
  /**
   * Two numbers per file (beside `files`): the size and time (whole
   * milliseconds) the index read it at, where the index rules it out only if
   * it has not changed since (it was listed without a `stat`); NaN for a file
   * to read. Such a file is passed over after an `lstat` that finds both
   * unchanged, and read if not: the `stat`s run here, spread over the
   * threads, not on the thread that listed the files. A typed array: a few
   * thousand objects cost their copy to each thread.
   */
  unlessChanged?: Float64Array;
}

/** A file's size and modification time (whole milliseconds), as the index stores them. */
export interface FileVersion {
  size: number;
  mtimeMs: number;
}

/**
 * Whether a file's raw bytes may hold a match: one of the literals every
 * matching line contains (`requiredLiterals`) is found in them, before the
 * file is decoded, masked and matched line by line. Masking only replaces
 * values with markers, so a literal found in the masked text is in the raw
 * bytes too, unless it overlaps a marker: a pattern with such a literal
 * (`REDACTED`) gets no prefilter, and every file is matched.
 */
export class Prefilter {
  private readonly needles: Buffer[] = [];
  private readonly folded: RegExp[] = [];
  private readonly foldedAscii: boolean;

  private constructor(literals: readonly string[], ignoreCase: boolean) {
    this.foldedAscii = literals.every((literal) => /^[\x00-\x7f]*$/.test(literal));
    for (const literal of literals) {
      if (ignoreCase) this.folded.push(new RegExp(literal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "i"));
      else this.needles.push(Buffer.from(literal, "utf8"));
    }
  }

  /** The prefilter of a pattern, or undefined when every file must be matched. */
  static of(pattern: string, flags: string): Prefilter | undefined {
    const ignoreCase = flags.includes("i");
    const literals = prefilterLiterals(pattern, ignoreCase);
    return literals ? new Prefilter(literals, ignoreCase) : undefined;
  }

  mayMatch(bytes: Buffer): boolean {
    for (const needle of this.needles) if (bytes.indexOf(needle) >= 0) return true;
    if (this.folded.length === 0) return false;
    // A case-insensitive match of ASCII letters never folds a character above 127 (ECMAScript Canonicalize): Latin-1 keeps byte offsets and costs less.
    const text = this.foldedAscii ? bytes.toString("latin1") : bytes.toString("utf8");
    return this.folded.some((regex) => regex.test(text));
  }
}

/**
 * The literals one of which a file's raw bytes hold when the file may hold a
 * match (see `Prefilter`); undefined when none can be promised, and every
 * file must be matched.
 */
export function prefilterLiterals(pattern: string, ignoreCase: boolean): string[] | undefined {
  const literals = requiredLiterals(pattern);
  if (!literals || literals.some((literal) => overlapsMarker(literal, ignoreCase))) return undefined;
  return literals;
}

export function overlapsMarker(literal: string, ignoreCase: boolean): boolean {
  if (literal.includes("[") || literal.includes("]")) return true;
  const wanted = ignoreCase ? literal.toLowerCase() : literal;
  return MASK_MARKERS.some((marker) => (ignoreCase ? marker.toLowerCase() : marker).includes(wanted));
}

/** A file's matching lines: 1-based line number and the line as the model may see it (masked, cut). */
export interface FileHits {
  file: number;
  lines: NumberedLine[];
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
export function matchingLines(
  path: string,
  regex: RegExp,
  unmasked: UnmaskedFiles = new UnmaskedFiles(),
  prefilter?: Prefilter,
  maxFileBytes = Number.POSITIVE_INFINITY,
  candidates?: LineCandidates,
): NumberedLine[] {
  const read = readText(path, prefilter, maxFileBytes);
  if (read === undefined) return [];
  let text = read.text;
  if (!unmasked.has(path, read.stats)) {
    const masked = maskSecrets(text);
    unmasked.remember(path, read.stats, masked.findings.length === 0);
    text = masked.text;
  }
  const hits: NumberedLine[] = [];
  const found = (number: number, line: string) => {
    if (regex.test(line)) hits.push([number, line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line]);
  };
  if (candidates) for (const [number, line] of candidates.lines(text)) found(number, line);
  else for (const [index, line] of splitLines(text).entries()) found(index + 1, line);
  return hits;
}

/**
 * Runs a search over its files in order, reporting each file's hits as found,
 * until `maxResults` lines are listed. Returns whether more matches exist
 * beyond them (found in the file where the limit was reached, or later).
 */
export function searchFiles(
  search: GrepSearch,
  onFile: OnFile,
  onHits: (hits: FileHits) => void,
  unmasked?: UnmaskedFiles,
): { more: boolean } {
  const regex = new RegExp(search.pattern, search.flags);
  const prefilter = Prefilter.of(search.pattern, search.flags);
  const candidates = LineCandidates.of(search.pattern, search.flags);
  const first = search.firstFile ?? 0;
  let listed = 0;
  for (let index = 0; index < search.files.length; index++) {
    const file = first + index;
    onFile(file);
    if (readOnlyIfChanged(search, index) && unchangedSince(search.files[index] as string, search.unlessChanged as Float64Array, index))
      continue;
    const lines = matchingLines(search.files[index] as string, regex, unmasked, prefilter, search.maxFileBytes, candidates);
    if (lines.length === 0) continue;
    const room = search.maxResults - listed;
    if (room === 0) return { more: true };
    onHits({ file, lines: lines.slice(0, room) });
    listed += Math.min(room, lines.length);
    if (lines.length > room) return { more: true };
  }
  return { more: false };
}

/** Whether the search passes over file `index` while it is unchanged (`GrepSearch.unlessChanged`), instead of reading it. */
export function readOnlyIfChanged(search: Pick<GrepSearch, "unlessChanged">, index: number): boolean {
  return !Number.isNaN(search.unlessChanged?.[2 * index] ?? Number.NaN);
}

/** Whether the file still has the size and time `versions` holds for file `index` (`GrepSearch.unlessChanged`). */
function unchangedSince(path: string, versions: Float64Array, index: number): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats?.isFile() === true && stats.size === versions[2 * index] && Math.trunc(stats.mtimeMs) === versions[2 * index + 1];
}

/** `GrepSearch.unlessChanged` for these files: each one's size and time, or NaN twice for one to read. */
export function unlessChangedOf(versions: ReadonlyArray<FileVersion | undefined>): Float64Array | undefined {
  if (!versions.some((version) => version)) return undefined;
  const pairs = new Float64Array(versions.length * 2).fill(Number.NaN);
  versions.forEach((version, index) => {
    if (!version) return;
    pairs[2 * index] = version.size;
    pairs[2 * index + 1] = version.mtimeMs;
  });
  return pairs;
}

/**
 * A file's bytes (as many as its size said), read into one reused buffer when they fit: allocating for each file was a
 * share of a scan. Twice the index's default size limit, so that a file at the limit and a byte more fit (`firstBytes`).
 */
const SHARED_BUFFER_BYTES = 1 << 21;
let sharedBuffer: Buffer | undefined;

function readBytes(fd: number, size: number): Buffer {
  if (size > SHARED_BUFFER_BYTES) return readFileSync(fd);
  sharedBuffer ??= Buffer.allocUnsafe(SHARED_BUFFER_BYTES);
  let read = 0;
  while (read < size) {
    const count = readSync(fd, sharedBuffer, read, size - read, read);
    if (count === 0) break;
    read += count;
  }
  return sharedBuffer.subarray(0, read);
}

/**
 * A file's first bytes, read before any `fstat`: up to `maxFileBytes` and
 * a byte, into the shared buffer. Most files of a search that reads a whole
 * tree hold none of the prefilter's literals, and the `fstat` of each was a
 * sixth of reading them. "passed-over" when the bytes show the file is
 * larger than the limit or lacks the literals; undefined when no first read
 * is made (no prefilter, or a limit the buffer cannot hold). A read of a
 * regular file that returns fewer bytes than asked has reached its end.
 */
function firstBytes(fd: number, prefilter: Prefilter | undefined, maxFileBytes: number): Buffer | "passed-over" | undefined {
  if (!prefilter || maxFileBytes >= SHARED_BUFFER_BYTES) return undefined;
  sharedBuffer ??= Buffer.allocUnsafe(SHARED_BUFFER_BYTES);
  const count = readSync(fd, sharedBuffer, 0, maxFileBytes + 1, 0);
  const bytes = sharedBuffer.subarray(0, count);
  return count > maxFileBytes || !prefilter.mayMatch(bytes) ? "passed-over" : bytes;
}

/** The file's text, unless it is not a regular file, is larger than `maxFileBytes`, looks binary, or holds none of the prefilter's literals. */
function readText(path: string, prefilter: Prefilter | undefined, maxFileBytes: number): { text: string; stats: Stats } | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const first = firstBytes(fd, prefilter, maxFileBytes);
    if (first === "passed-over") return undefined;
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxFileBytes) return undefined;
    // The first read is the whole file when its size says so (it passed the prefilter); else it is read by its size.
    if (first !== undefined && first.length === stats.size) return textOf(first, stats);
    const bytes = readBytes(fd, stats.size);
    if (prefilter && !prefilter.mayMatch(bytes)) return undefined;
    return textOf(bytes, stats);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function textOf(bytes: Buffer, stats: Stats): { text: string; stats: Stats } | undefined {
  return looksBinary(bytes) ? undefined : { text: bytes.toString("utf8"), stats };
}

function versionOf(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
