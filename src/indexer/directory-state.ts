import type { IndexConfig } from "../config/schema.js";
import { FNV_OFFSET, FNV_PRIME } from "../fnv1a.js";

/**
 * What the last complete run saw of one directory, enough for the next walk
 * to tell "unchanged" without comparing its files one by one or judging
 * them against ignore rules again.
 */
export interface DirectoryState {
  /** `ListingHash` of the directory's entries. */
  listing: string;
  /** `ListingHash` of its ignore files (their rules apply to everything below it). */
  rules: string;
  /** Entries the walk left out (excluded or ignored files and directories), by name. */
  leftOut: readonly string[];
  /** Its entries' names and its own stat when they were read; absent in states stored before schema 8. */
  snapshot?: DirectorySnapshot;
}

/**
 * A directory's entries as `readdir` gave them, with what identified the
 * directory just before: adding, removing or renaming an entry sets its
 * mtime and ctime to the current time, so while inode, mtime and ctime are
 * what they were, so are the names, and the next walk need not list it
 * (its files are still stat'ed: writing a file leaves its directory alone).
 */
export interface DirectorySnapshot {
  /** Every regular file's name, taken or left out. */
  files: readonly string[];
  /** Every subdirectory's name, taken or left out. */
  directories: readonly string[];
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** When the walk that read the names started (`Date.now()`). */
  recordedAtMs: number;
}

/** How long after a directory's last change a listing must have been read to be trusted, by default. */
export const RACY_WINDOW_MS = 2_000;

/** What `statSync` tells of a directory, as far as a snapshot needs it. */
export interface DirectoryStats {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * Whether a snapshot still names the directory's entries. Git's "racy"
 * rule: a directory changed within a clock tick of the read could change
 * again and keep the same times (file times come from a coarse clock, on
 * some file systems whole seconds or two), so the names are trusted only
 * when the listing was read more than `racyWindowMs` after the directory's
 * last change. The ctime is the one to judge by: a change sets it to the
 * current time, and unlike the mtime (which `tar`, `rsync -a` or `touch`
 * put back) nothing can set it to an earlier one.
 */
export function snapshotHolds(snapshot: DirectorySnapshot, stats: DirectoryStats, racyWindowMs: number): boolean {
  return (
    stats.ino === snapshot.ino &&
    stats.mtimeMs === snapshot.mtimeMs &&
    stats.ctimeMs === snapshot.ctimeMs &&
    snapshot.recordedAtMs - Math.max(snapshot.mtimeMs, snapshot.ctimeMs) > racyWindowMs
  );
}

const FILE = 0x66;
const DIRECTORY = 0x64;
const LEFT_OUT = 0x6c;
const TWO_TO_32 = 2 ** 32;

/**
 * A 64-bit hash of a directory listing that does not depend on the order
 * the entries come in (readdir gives no order, and sorting every directory
 * is work a fresh check cannot afford): each entry is hashed on its own, and
 * the entry hashes are summed. A file counts by name, size and modification
 * time; a directory and a left-out file by name alone (a left-out file is
 * not even stat'ed).
 */
export class ListingHash {
  private low = 0;
  private high = 0;

  addFile(name: string, size: number, mtimeMs: number): void {
    this.add(name, FILE, size, mtimeMs);
  }

  addDirectory(name: string): void {
    this.add(name, DIRECTORY, 0, 0);
  }

  addLeftOut(name: string): void {
    this.add(name, LEFT_OUT, 0, 0);
  }

  /** A hash holding what this one holds so far, to go on from without changing this one. */
  copy(): ListingHash {
    const copy = new ListingHash();
    copy.low = this.low;
    copy.high = this.high;
    return copy;
  }

  digest(): string {
    return hex(this.high) + hex(this.low);
  }

  private add(name: string, kind: number, size: number, mtimeMs: number): void {
    // Two independent 32-bit hashes (FNV-1a and a Murmur-style multiply), each finished with Murmur3's mix.
    let first = FNV_OFFSET ^ kind;
    let second = 0x9747b28c ^ kind;
    for (let index = 0; index < name.length; index++) {
      const code = name.charCodeAt(index);
      first = Math.imul(first ^ code, FNV_PRIME);
      second = Math.imul(second ^ code, MURMUR_MULTIPLIER);
      second ^= second >>> 15;
    }
    // Sizes and times pass 2^32: each is mixed in as its two 32-bit halves (no array: a fresh check hashes every file).
    first = mixHalves(mixHalves(first, size, FNV_PRIME), mtimeMs, FNV_PRIME);
    second = mixHalves(mixHalves(second, size, MURMUR_MULTIPLIER, 13), mtimeMs, MURMUR_MULTIPLIER, 13);
    this.low = (this.low + finish(first)) >>> 0;
    this.high = (this.high + finish(second)) >>> 0;
  }
}

/** What a `ListingHash` of nothing digests to: the rules of a directory without ignore files. */
const EMPTY_DIGEST = new ListingHash().digest();

/** A hash's digest, or the empty one's where none was made (a directory without ignore files makes none). */
export function digestOf(hash: ListingHash | undefined): string {
  return hash ? hash.digest() : EMPTY_DIGEST;
}

const MURMUR_MULTIPLIER = 0x5bd1e995;

/** Mixes a number's low then high 32 bits into `hash`, each by xor and multiply, then (when given) an xor of the hash shifted right. */
function mixHalves(hash: number, value: number, multiplier: number, shift?: number): number {
  let mixed = Math.imul(hash ^ (value % TWO_TO_32), multiplier);
  if (shift !== undefined) mixed ^= mixed >>> shift;
  mixed = Math.imul(mixed ^ Math.floor(value / TWO_TO_32), multiplier);
  if (shift !== undefined) mixed ^= mixed >>> shift;
  return mixed;
}

function finish(hash: number): number {
  let mixed = hash ^ (hash >>> 16);
  mixed = Math.imul(mixed, 0x85ebca6b);
  mixed ^= mixed >>> 13;
  mixed = Math.imul(mixed, 0xc2b2ae35);
  return (mixed ^ (mixed >>> 16)) >>> 0;
}

function hex(value: number): string {
  return value.toString(16).padStart(8, "0");
}

/** Bumped when what the walk takes or leaves out changes in code (secret names, say): stored states no longer hold. */
const WALK_RULES_VERSION = 3;

/**
 * The settings a stored directory state depends on: when they change, no
 * state holds, and the next walk judges every directory again.
 */
export function walkRulesKey(config: IndexConfig): string {
  const { excludePaths, excludePatterns, maxFileSize, respectGitignore } = config;
  return JSON.stringify({ version: WALK_RULES_VERSION, excludePaths, excludePatterns, maxFileSize, respectGitignore });
}
