import { setImmediate as nextTurnOfEventLoop } from "node:timers/promises";
import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import type { IndexConfig } from "../config/schema.js";
import { compareAsDirectories } from "../files/utf8-order.js";
import { isSecretPath } from "../security/secrets.js";
import { listDirectory, type EntryNames } from "./directory-listing.js";
import { digestOf, ListingHash, RACY_WINDOW_MS, snapshotHolds, type DirectorySnapshot, type DirectoryState } from "./directory-state.js";
import { ignoreFileNames, PathFilter } from "./path-filter.js";
import { calculatePriority } from "./priority.js";
import type { ChangedDirectory, ScanResult, TreeScan } from "./scan-results.js";
import { type StatesToTake, TakenFromMap } from "./states-to-take.js";
import { child, type DirectoryEntries, type DirectoryVisit, type PendingDirectory, statIfThere, statOf } from "./walk-entries.js";
import { WorkingDirectory } from "./working-directory.js";

export interface ScanOptions {
  /** What the last complete run stored; without it every directory counts as changed. */
  previous?: ReadonlyMap<string, DirectoryState> | StatesToTake;
  nowMs?: number;
  /** Main-thread time between two yields to the event loop (the TUI walks while someone types). */
  sliceMs?: number;
  /** See `snapshotHolds`; tests change it. */
  racyWindowMs?: number;
  /** Ends the walk at its next yield (a tool call cancelled by Esc), with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Ends the walk once its changed directories hold more files to index
   * than this: what it found is then only part of the tree (`scan.partial`).
   */
  stopAfterFiles?: number;
  /**
   * Takes each changed directory as the walk finds it, which then keeps
   * nothing of it (`scan.changed` stays empty): a first index packs what it
   * needs as it goes rather than holding every file's object to the walk's end.
   */
  onChangedDirectory?: (directory: ChangedDirectory) => void;
}

const DEFAULT_SLICE_MS = 8;

export { walkRulesKey } from "./directory-state.js";
const NO_NAMES: ReadonlySet<string> = new Set();
/** One options object for every `lstat` of the walk, not one a file. */
const NO_THROW = { throwIfNoEntry: false } as const;

/**
 * Walks the project, honouring the excluded directories and patterns (`index.*`),
 * every `.gitignore` and `.sylkignore` (a nested file applies below its
 * directory) and `.git/info/exclude`. An ignored directory is never entered,
 * and symbolic links are never followed (a link may point outside the
 * project; a loop ends for free). Excluded directory names match at any depth.
 *
 * Incremental: a directory whose listing (names, sizes, modification times)
 * and ignore rules match the previous run's state is unchanged, so its files
 * need no comparison with the manifest and no rule is evaluated; only
 * changed directories report their files. A directory whose snapshot still
 * holds (`snapshotHolds`: same inode, mtime and ctime, read well after its
 * last change) is not even listed: its files are stat'ed by the names it
 * stored. The walk is synchronous `stat` and `readdir` calls, the cheapest
 * Node has, yielding between slices: on a 28k file tree the stats are most of
 * the time, as they are for `find`.
 */
export async function scanTree(root: string, config: IndexConfig, options: ScanOptions = {}): Promise<TreeScan> {
  const walk = new TreeWalk(root, config, options);
  options.signal?.throwIfAborted();
  await walk.run(options.sliceMs ?? DEFAULT_SLICE_MS, options.signal);
  return walk.scan;
}

/**
 * How many files a first index would index, counted only as far as
 * `limit + 1`: the walk stops there, so a large tree costs the few
 * directories that hold that many files rather than a walk of all of them.
 */
export async function countFilesToIndex(root: string, config: IndexConfig, limit: number, signal?: AbortSignal): Promise<number> {
  const scan = await scanTree(root, config, { stopAfterFiles: limit, ...(signal ? { signal } : {}) });
  return scan.changed.reduce((sum, directory) => sum + directory.files.length, 0);
}

/**
 * One walk of the tree: what it has found so far, and the directories still
 * to read, depth first, each directory's subdirectories in
 * `compareAsDirectories` order: the order of their paths in the database,
 * in which the stored states are read as the walk reaches them.
 */
class TreeWalk {
  readonly scan: TreeScan = { changed: [], restated: [], vanished: [], directories: 0, files: 0, listed: 0, partial: false };
  private readonly nowMs: number;
  private readonly racyWindowMs: number;
  /** Before any directory is read: a snapshot must not claim a later time than its names'. */
  private readonly startedAtMs = Date.now();
  private readonly previous: StatesToTake | undefined;
  private readonly filter: PathFilter;
  private readonly ruleFiles: readonly string[];
  /** Directories whose state was taken but that were not walked (gone since their parent was read, or unreadable). */
  private readonly notWalked: string[] = [];
  /** The root's ignore rules, `.git/info/exclude` included. */
  private readonly rootRules = new ListingHash();
  /** A stack: the next directory to walk is the last one. */
  private readonly pending: PendingDirectory[];
  private readonly workingDirectory = new WorkingDirectory();
  private readonly stopAfterFiles: number;
  /** Files to index in the changed directories walked so far. */
  private filesToIndex = 0;
  private readonly onChangedDirectory: ((directory: ChangedDirectory) => void) | undefined;

  constructor(
    private readonly root: string,
    private readonly config: IndexConfig,
    options: ScanOptions,
  ) {
    this.nowMs = options.nowMs ?? Date.now();
    this.racyWindowMs = options.racyWindowMs ?? RACY_WINDOW_MS;
    this.previous = options.previous === undefined || "take" in options.previous ? options.previous : new TakenFromMap(options.previous);
    this.stopAfterFiles = options.stopAfterFiles ?? Number.POSITIVE_INFINITY;
    this.onChangedDirectory = options.onChangedDirectory;
    this.filter = new PathFilter(config);
    this.ruleFiles = ignoreFileNames(config);
    if (config.respectGitignore) this.readGitExclude();
    this.pending = [{ relative: "", absolute: root, rulesChanged: this.previous === undefined }];
  }

  /** Walks every directory, yielding to the event loop after each `sliceMs` of work; then notes the stored directories not reached. */
  async run(sliceMs: number, signal: AbortSignal | undefined): Promise<void> {
    let sliceStarted = performance.now();
    try {
      for (let directory = this.pending.pop(); directory; directory = this.pending.pop()) {
        this.walkDirectory(directory);
        if (this.filesToIndex > this.stopAfterFiles) {
          // Part of the tree: which stored directories it did not reach says nothing, so none is noted as vanished.
          this.scan.partial = true;
          return;
        }
        if (performance.now() - sliceStarted > sliceMs) {
          // Other code may run meanwhile: it must find the process where it left it.
          this.workingDirectory.restore();
          await nextTurnOfEventLoop();
          signal?.throwIfAborted();
          sliceStarted = performance.now();
        }
      }
    } finally {
      this.workingDirectory.restore();
    }
    if (this.previous) this.scan.vanished.push(...this.notWalked, ...this.previous.untaken());
  }

  private readGitExclude(): void {
    const exclude = join(this.root, ".git", "info", "exclude");
    const stats = statIfThere(exclude);
    if (stats?.isFile()) {
      this.rootRules.addFile(".git/info/exclude", stats.size, Math.trunc(stats.mtimeMs));
      this.filter.registerIgnoreFile("", exclude);
    }
  }

  private walkDirectory(directory: PendingDirectory): void {
    const path = this.workingDirectory.enter(directory.absolute);
    // Stat'ed before it is read: a change after this one leaves a later ctime for the next walk to see.
    const self = statSync(path, { throwIfNoEntry: false });
    const stored = this.previous?.take(directory.relative);
    if (!self?.isDirectory()) {
      this.notWalk(directory, stored); // gone since its parent was read
      return;
    }
    const leftOutBefore = stored && stored.leftOut.length > 0 ? new Set(stored.leftOut) : NO_NAMES;
    let names: EntryNames | undefined =
      stored?.snapshot && snapshotHolds(stored.snapshot, self, this.racyWindowMs) ? stored.snapshot : undefined;
    if (stored && names && !directory.rulesChanged && this.passUnchanged(directory, stored, names, leftOutBefore)) return;
    let entries = names && this.statFiles(directory, names, leftOutBefore);
    // A stored name that no longer stats as a file means the snapshot was wrong after all: list the directory.
    let listed = false;
    if (!names || !entries || entries.missing) {
      listed = true;
      names = listDirectory(path);
      if (!names) {
        this.notWalk(directory, stored); // unreadable: skipped (its files leave the index), as `git status` does
        return;
      }
      this.scan.listed++;
      entries = this.statFiles(directory, names, leftOutBefore);
    }
    this.scan.directories++;
    // A snapshot names only files and directories: one holding a FIFO or a name that is not UTF-8 is listed every time.
    const snapshot: DirectorySnapshot | undefined =
      entries.unindexable.length > 0
        ? undefined
        : {
            files: names.files,
            directories: names.directories,
            ino: self.ino,
            mtimeMs: self.mtimeMs,
            ctimeMs: self.ctimeMs,
            recordedAtMs: this.startedAtMs,
          };
    const visit = this.visitDirectory(directory, entries, stored, directory.relative === "" ? this.rootRules : new ListingHash());
    const clean = stored !== undefined && !visit.rulesChanged && stored.listing === visit.listing;
    if (clean) {
      this.scan.files += visit.files.length;
      this.queueSubdirectories(directory, visit.subdirectories, false, leftOutBefore);
      if (listed && snapshot)
        this.scan.restated.push({
          path: directory.relative,
          state: { listing: stored.listing, rules: stored.rules, leftOut: stored.leftOut, snapshot },
        });
    } else {
      const changed = this.evaluate(directory, visit, snapshot);
      this.scan.files += changed.files.length + changed.skipped.length;
      this.filesToIndex += changed.files.length;
      if (this.onChangedDirectory) this.onChangedDirectory(changed);
      else this.scan.changed.push(changed);
    }
  }

  /**
   * A fresh check's common case, with no per-file object: the directory's
   * names are the stored ones (its snapshot holds), so its files are stat'ed
   * by name and hashed as they come, as `visitDirectory` hashes them. When
   * both hashes are the stored ones the directory is unchanged: it is
   * counted, its ignore files registered and its subdirectories queued.
   * Otherwise nothing is recorded, and the caller walks it the general way
   * (its files stat'ed again, a cost only a changed directory pays).
   */
  private passUnchanged(
    directory: PendingDirectory,
    stored: DirectoryState,
    names: EntryNames,
    leftOutBefore: ReadonlySet<string>,
  ): boolean {
    const listing = new ListingHash();
    // Most directories hold no ignore file: no hash to make for them, the stored one must be the empty one.
    let rules = directory.relative === "" ? this.rootRules.copy() : undefined;
    let ruleFilesHere: string[] | undefined;
    let files = 0;
    const anyLeftOut = leftOutBefore.size > 0;
    const subdirectories = names.directories; // read once: a stored snapshot splits its names at each read
    for (const name of subdirectories) listing.addDirectory(name);
    for (const name of names.files) {
      const ruleFile = this.ruleFiles.includes(name);
      if (anyLeftOut && !ruleFile && leftOutBefore.has(name)) {
        listing.addLeftOut(name);
        continue;
      }
      const stats = lstatSync(this.workingDirectory.pathOf(directory.absolute, name), NO_THROW);
      if (!stats?.isFile()) return false;
      const mtimeMs = Math.trunc(stats.mtimeMs);
      listing.addFile(name, stats.size, mtimeMs);
      files++;
      if (ruleFile) {
        rules ??= new ListingHash();
        rules.addFile(name, stats.size, mtimeMs);
        ruleFilesHere ??= [];
        ruleFilesHere.push(name);
      }
    }
    if (listing.digest() !== stored.listing || digestOf(rules) !== stored.rules) return false;
    for (const name of ruleFilesHere ?? []) this.filter.registerIgnoreFile(directory.relative, `${directory.absolute}/${name}`);
    this.scan.directories++;
    this.scan.files += files;
    this.queueSubdirectories(directory, subdirectories, false, leftOutBefore);
    return true;
  }

  /** A directory met but not walked: a state stored for it goes with the vanished ones. */
  private notWalk(directory: PendingDirectory, stored: DirectoryState | undefined): void {
    if (stored) this.notWalked.push(directory.relative);
  }

  /** Queues the subdirectories not in `skip`, to be walked next in `compareAsDirectories` order. */
  private queueSubdirectories(parent: PendingDirectory, names: readonly string[], rulesChanged: boolean, skip = NO_NAMES): void {
    const walked = skip.size > 0 ? names.filter((name) => !skip.has(name)) : [...names];
    walked.sort(compareAsDirectories);
    for (let index = walked.length - 1; index >= 0; index--) this.pending.push(child(parent, walked[index] as string, rulesChanged));
  }

  /**
   * Stats the files among `names` (not those left out last time, except
   * ignore files). A name that does not stat as a file is passed over (when
   * `readdir` just gave it, it vanished meanwhile) and noted.
   */
  private statFiles(directory: PendingDirectory, names: EntryNames, leftOutBefore: ReadonlySet<string>): DirectoryEntries {
    const entries: DirectoryEntries = {
      files: [],
      leftOutFiles: [],
      subdirectories: names.directories,
      unindexable: names.unindexable ?? [],
      missing: false,
    };
    const anyLeftOut = leftOutBefore.size > 0; // else no name need be hashed for the lookup
    for (const name of names.files) {
      if (anyLeftOut && leftOutBefore.has(name) && !this.ruleFiles.includes(name)) {
        entries.leftOutFiles.push(name);
        continue;
      }
      const stats = lstatSync(this.workingDirectory.pathOf(directory.absolute, name), NO_THROW);
      if (!stats?.isFile()) {
        entries.missing = true;
        continue;
      }
      entries.files.push({ name, size: stats.size, mtimeMs: Math.trunc(stats.mtimeMs) });
    }
    return entries;
  }

  private visitDirectory(
    directory: PendingDirectory,
    entries: DirectoryEntries,
    stored: DirectoryState | undefined,
    rules: ListingHash,
  ): DirectoryVisit {
    const listing = new ListingHash();
    const visit: DirectoryVisit = {
      files: entries.files,
      leftOutFiles: entries.leftOutFiles,
      subdirectories: entries.subdirectories,
      unindexable: entries.unindexable,
      missing: entries.missing,
      listing: "",
      rules: "",
      rulesChanged: false,
    };
    for (const name of entries.subdirectories) listing.addDirectory(name);
    for (const name of entries.leftOutFiles) listing.addLeftOut(name);
    for (const { name } of entries.unindexable) listing.addLeftOut(name);
    for (const { name, size, mtimeMs } of entries.files) {
      listing.addFile(name, size, mtimeMs);
      if (this.ruleFiles.includes(name)) {
        rules.addFile(name, size, mtimeMs);
        this.filter.registerIgnoreFile(directory.relative, `${directory.absolute}/${name}`);
      }
    }
    visit.listing = listing.digest();
    visit.rules = rules.digest();
    visit.rulesChanged = directory.rulesChanged || stored === undefined || stored.rules !== visit.rules;
    return visit;
  }

  /** A changed directory: every entry judged by the rules, its files reported. */
  private evaluate(directory: PendingDirectory, visit: DirectoryVisit, snapshot: DirectorySnapshot | undefined): ChangedDirectory {
    const prefix = directory.relative ? `${directory.relative}/` : "";
    const result: ChangedDirectory = {
      path: directory.relative,
      files: [],
      skipped: [],
      state: { listing: "", rules: visit.rules, leftOut: [] },
    };
    const leftOut: string[] = [];
    const listing = new ListingHash();
    const candidates = [...visit.files, ...visit.leftOutFiles.flatMap((name) => statOf(directory.absolute, name))];
    candidates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const names = candidates.map((file) => file.name);
    const filesLeftOut = this.filter.judgeIn(directory.relative, names, false);
    for (const [at, file] of candidates.entries()) {
      const path = prefix + file.name;
      if (filesLeftOut[at]) {
        leftOut.push(file.name);
        listing.addLeftOut(file.name);
        continue;
      }
      listing.addFile(file.name, file.size, file.mtimeMs);
      if (isSecretPath(path)) result.skipped.push({ path, size: file.size, mtimeMs: file.mtimeMs, reason: "secret" });
      else if (file.size > this.config.maxFileSize)
        result.skipped.push({ path, size: file.size, mtimeMs: file.mtimeMs, reason: "too-large" });
      else
        result.files.push({
          path,
          size: file.size,
          mtimeMs: file.mtimeMs,
          priority: calculatePriority(path, file.mtimeMs, this.config.priorityPaths, this.nowMs),
        });
    }
    for (const entry of visit.unindexable) {
      listing.addLeftOut(entry.name);
      const path = prefix + entry.name;
      if (!this.filter.ignores(path, false)) result.skipped.push({ path, size: 0, mtimeMs: 0, reason: entry.reason });
    }
    const walked: string[] = [];
    const subdirectories = [...visit.subdirectories].sort();
    const subdirectoriesLeftOut = this.filter.judgeIn(directory.relative, subdirectories, true);
    for (const [at, name] of subdirectories.entries()) {
      listing.addDirectory(name);
      (subdirectoriesLeftOut[at] ? leftOut : walked).push(name);
    }
    this.queueSubdirectories(directory, walked, visit.rulesChanged);
    result.state = { listing: listing.digest(), rules: visit.rules, leftOut, ...(snapshot ? { snapshot } : {}) };
    return result;
  }
}

/** Every file of the project, as a full walk sees it (no previous states). */
export async function scanProject(
  root: string,
  config: IndexConfig,
  options: { nowMs?: number; signal?: AbortSignal } = {},
): Promise<ScanResult> {
  const scan = await scanTree(root, config, options);
  return {
    files: scan.changed.flatMap((directory) => directory.files),
    skipped: scan.changed.flatMap((directory) => directory.skipped),
  };
}
