import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { uptime } from "node:os";
import { dirname } from "node:path";
import { currentBootId, isRunning } from "../project/process-identity.js";
import type { SqliteDatabase } from "./database.js";

/**
 * A large first index's writes, synced once at its end instead of at every
 * checkpoint (docs/DESIGN-NOTES.md, "A large first index's writes synced
 * once, at its end"). While they run the database is written with
 * `synchronous = OFF`, and a mark beside it (`<database>.unsynced`) says so
 * to whoever opens it next: a process killed meanwhile loses nothing (its
 * writes are in the page cache), but the machine going down can tear the
 * file, and `settleUnsyncedWrites` checks it then.
 */
export const UNSYNCED_MARK_SUFFIX = ".unsynced";

/** What the mark holds: the boot it was written in, and by whom. */
interface UnsyncedMark {
  /** Linux's boot id; null where there is none (the boot time then tells a reboot). */
  bootId: string | null;
  /** When the mark was written (ms since the epoch): a machine booted after it has been down since. */
  since: number;
  pid: number;
}

export function unsyncedMarkPath(databasePath: string): string {
  return `${databasePath}${UNSYNCED_MARK_SUFFIX}`;
}

/** The unsynced writes of one run, begun on `db` (a file, not `:memory:`). */
export class UnsyncedWrites {
  private syncing: Promise<void> | undefined;
  private handles: FileHandle[] | undefined;
  private ended = false;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly path: string,
  ) {}

  /** Writes the mark (synced, with its directory), then turns syncing off; undefined for an in-memory database. */
  static begin(db: SqliteDatabase): UnsyncedWrites | undefined {
    if (db.memory) return undefined;
    const mark: UnsyncedMark = { bootId: currentBootId() ?? null, since: Date.now(), pid: process.pid };
    const markPath = unsyncedMarkPath(db.name);
    writeFileSync(markPath, `${JSON.stringify(mark)}\n`, { mode: 0o600 });
    syncPath(markPath);
    syncPath(dirname(markPath));
    db.pragma("synchronous = OFF");
    return new UnsyncedWrites(db, db.name);
  }

  /**
   * After a commit: the database and its WAL synced on libuv's thread pool
   * when no such sync is under way, so that the kernel's backlog, which the
   * end must wait for, stays small, and this thread never waits for a disk.
   */
  afterCommit(): void {
    if (this.syncing || this.ended) return;
    this.syncing = this.syncInBackground().finally(() => {
      this.syncing = undefined;
    });
  }

  private async syncInBackground(): Promise<void> {
    try {
      this.handles ??= await Promise.all([
        open(this.path, "r"),
        ...(existsSync(walPath(this.path)) ? [open(walPath(this.path), "r")] : []),
      ]);
      for (const handle of this.handles) await handle.sync();
    } catch {
      // Only the kernel's backlog was at stake: the end syncs both files itself, and fails loudly if it cannot.
    }
  }

  /**
   * `synchronous = NORMAL` again, the WAL then the database synced, and the
   * mark removed: from here a crash of the machine loses at most what
   * NORMAL loses, and never tears the file. Called however the run ends;
   * a sync that fails leaves the mark for the next open to settle.
   */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.syncing;
    await Promise.all((this.handles ?? []).map((handle) => handle.close().catch(() => undefined)));
    if (this.db.open) this.db.pragma("synchronous = NORMAL");
    syncDatabaseFiles(this.path);
    rmSync(unsyncedMarkPath(this.path), { force: true });
    syncPath(dirname(this.path));
  }
}

/** What opening found of a mark left beside the database. */
export type SettledMark =
  | { outcome: "none" }
  /** Written in this boot by a process still running (a first index under way elsewhere): left alone. */
  | { outcome: "in-progress" }
  /** Written in this boot by a process that has ended (killed mid-index): its writes synced now, the mark removed. */
  | { outcome: "synced" }
  /** The machine has booted since it was written, and `quick_check` found the database whole. */
  | { outcome: "checked" }
  /** The machine has booted since, and the database is damaged: moved aside, to be made again. */
  | { outcome: "moved-aside"; movedTo: string; notice: string };

/**
 * Settles a mark left by `UnsyncedWrites` before the database at `path` is
 * opened for writing. `isWhole` runs SQLite's `quick_check` on it.
 */
export function settleUnsyncedWrites(path: string, isWhole: (path: string) => boolean): SettledMark {
  const markPath = unsyncedMarkPath(path);
  let text: string;
  try {
    text = readFileSync(markPath, "utf8");
  } catch {
    return { outcome: "none" };
  }
  const mark = parseMark(text);
  if (mark && !rebootedSince(mark)) {
    if (mark.pid === process.pid || isRunning(mark.pid)) return { outcome: "in-progress" };
    syncDatabaseFiles(path);
    rmSync(markPath, { force: true });
    return { outcome: "synced" };
  }
  // The machine went down with writes that may never have reached the disk (or the mark is unreadable): check the file.
  if (!existsSync(path) || isWhole(path)) {
    rmSync(markPath, { force: true });
    return { outcome: "checked" };
  }
  const movedTo = `${path}.damaged-${new Date().toISOString().replaceAll(":", "-")}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${movedTo}${suffix}`);
  }
  rmSync(markPath, { force: true });
  return {
    outcome: "moved-aside",
    movedTo,
    notice:
      `The index database was being written when the machine went down, and SQLite's check found it damaged. ` +
      `It was moved to ${movedTo} (kept, with any conversations in it); a new database was started, and the next index run builds the project's index again.`,
  };
}

function parseMark(text: string): UnsyncedMark | undefined {
  try {
    const value = JSON.parse(text) as Partial<UnsyncedMark>;
    if (typeof value.since !== "number" || typeof value.pid !== "number") return undefined;
    if (value.bootId !== null && typeof value.bootId !== "string") return undefined;
    return { bootId: value.bootId, since: value.since, pid: value.pid };
  } catch {
    return undefined;
  }
}

/** Whether this machine has booted since the mark was written. */
function rebootedSince(mark: UnsyncedMark): boolean {
  const bootId = currentBootId();
  if (mark.bootId !== null && bootId !== undefined) return mark.bootId !== bootId;
  // No boot id: the boot time, from the uptime, against when the mark was written (a second's slack for the clocks' rounding).
  return Date.now() - uptime() * 1000 > mark.since + 1_000;
}

function walPath(path: string): string {
  return `${path}-wal`;
}

/** The WAL, then the database: what SQLite's own checkpoint syncs, in its order. */
function syncDatabaseFiles(path: string): void {
  for (const file of [walPath(path), path]) if (existsSync(file)) syncPath(file);
}

function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
