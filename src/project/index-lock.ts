import { createHash, randomUUID } from "node:crypto";
import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { isRunning, looksLikeSylk, processStartOf, thisHost } from "./process-identity.js";

/** What the lock file records of the process holding it. */
export interface LockHolder {
  pid: number;
  /** When the lock was taken (ISO 8601). */
  startedAt: string;
  /** Per lock taken: tells this lock from a later one of the same pid. */
  token?: string;
  host?: string;
  /** The holder's boot and start time (`processStartOf`), where the system tells it. */
  processStart?: string;
  /** The project root the holder indexes. */
  root?: string;
}

/** A lock taken from a holder judged gone, and why. */
export interface LockTakeover {
  holder: LockHolder;
  reason: string;
}

export interface IndexLockTimings {
  /** How often the holder refreshes the lock file's modification time: its heartbeat. */
  heartbeatMs: number;
  /** A lock whose heartbeat is older than this is stale, whoever holds it. */
  staleAfterMs: number;
}

/**
 * Ten seconds between heartbeats; a minute without one means the holder is
 * hung, stopped, or cannot be checked otherwise (another host, no `/proc`).
 * The interactive session commits in slices of milliseconds, and `sylk index`
 * never holds the event loop for anything near a minute.
 */
const DEFAULT_LOCK_TIMINGS: IndexLockTimings = { heartbeatMs: 10_000, staleAfterMs: 60_000 };

const UNKNOWN_HOLDER: LockHolder = { pid: -1, startedAt: "unknown" };

interface SeenLock {
  holder: LockHolder | undefined;
  inode: number;
  /** This very lock file as it was read (see `lockIdentity`). */
  identity: string;
  /** Since the last heartbeat. */
  ageMs: number;
}

/**
 * One indexer per project at a time. The lock file is created whole and at
 * once (written aside, then hard-linked into place, which fails if a lock
 * exists), and names its holder: pid, start time, host and project root.
 * The holder refreshes its modification time (the heartbeat). A waiter takes
 * the lock over when its holder is gone: the pid is not running, is now
 * another process (its start time differs) or is not Sylk at all, the lock
 * is another project's, or the heartbeat is older than `staleAfterMs`. A
 * takeover removes the stale file only if it is still the one judged, under
 * a claim only one waiter holds at a time, so two waiters never both take
 * one stale lock. Readers never
 * need the lock: SQLite's WAL mode lets any number of processes search while
 * one writes.
 */
export class IndexLock {
  private readonly token = randomUUID();
  /** The lock file's inode while this instance holds it. */
  private inode: number | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly root: string,
    private readonly timings: IndexLockTimings = DEFAULT_LOCK_TIMINGS,
  ) {}

  /** Takes the lock (over from a holder that is gone, said in `tookOver`), or returns who holds it. */
  tryAcquire(): { acquired: true; tookOver?: LockTakeover } | { acquired: false; holder: LockHolder } {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    let tookOver: LockTakeover | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.create()) return { acquired: true, ...(tookOver ? { tookOver } : {}) };
      const seen = this.read();
      if (!seen) continue; // released meanwhile
      if (seen.inode === this.inode) return { acquired: true };
      const reason = this.staleness(seen);
      if (reason === undefined) return { acquired: false, holder: seen.holder ?? UNKNOWN_HOLDER };
      if (removeJudgedLock(this.path, seen.identity)) tookOver = { holder: seen.holder ?? UNKNOWN_HOLDER, reason };
    }
    return { acquired: false, holder: this.holder() ?? UNKNOWN_HOLDER };
  }

  /** Waits for the lock, polling; `onWait` is told once who holds it, `onTakeover` whom it was taken from. */
  async acquire(
    options: {
      signal?: AbortSignal;
      onWait?: (holder: LockHolder) => void;
      onTakeover?: (takeover: LockTakeover) => void;
      pollMs?: number;
    } = {},
  ): Promise<void> {
    let told = false;
    for (;;) {
      options.signal?.throwIfAborted();
      const result = this.tryAcquire();
      if (result.acquired) {
        if (result.tookOver) options.onTakeover?.(result.tookOver);
        return;
      }
      if (!told) {
        options.onWait?.(result.holder);
        told = true;
      }
      await delay(options.pollMs ?? 250, undefined, options.signal ? { signal: options.signal } : {});
    }
  }

  release(): void {
    this.stopHeartbeat();
    const held = this.inode;
    this.inode = undefined;
    if (held !== undefined && this.read()?.inode === held) rmSync(this.path, { force: true });
  }

  holder(): LockHolder | undefined {
    return this.read()?.holder;
  }

  /** Why the lock seen is stale, or undefined while its holder may still be indexing. */
  private staleness(seen: SeenLock): string | undefined {
    const { holder } = seen;
    if (!holder) return "the lock file does not name its holder";
    if (holder.root !== undefined && holder.root !== this.root) return `it names another project (${holder.root})`;
    if (holder.host === undefined || holder.host === thisHost()) {
      // A process never waits for itself: it would wait forever.
      if (holder.pid === process.pid) return "it was taken by this same process";
      if (!isRunning(holder.pid)) return `pid ${holder.pid} is no longer running`;
      const start = processStartOf(holder.pid);
      if (holder.processStart && start && start !== holder.processStart)
        return `pid ${holder.pid} is now another process, not the Sylk that took the lock`;
      if (!holder.processStart && looksLikeSylk(holder.pid) === false) return `pid ${holder.pid} is not a Sylk process`;
    }
    if (seen.ageMs > this.timings.staleAfterMs)
      return `its holder (pid ${holder.pid}) has not refreshed it for ${Math.round(seen.ageMs / 1000)} s`;
    return undefined;
  }

  /** Creates the lock whole, or finds one there. */
  private create(): boolean {
    const aside = `${this.path}.${this.token}.new`;
    const record: LockHolder = {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      token: this.token,
      host: thisHost(),
      root: this.root,
    };
    const processStart = processStartOf(process.pid);
    if (processStart) record.processStart = processStart;
    writeFileSync(aside, JSON.stringify(record), { mode: 0o600 });
    try {
      const inode = statSync(aside).ino;
      linkSync(aside, this.path);
      this.inode = inode;
      this.startHeartbeat();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    } finally {
      rmSync(aside, { force: true });
    }
  }

  private read(): SeenLock | undefined {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      const stats = fstatSync(fd);
      const bytes = readFileSync(fd);
      return {
        holder: parseHolder(bytes.toString("utf8")),
        inode: stats.ino,
        identity: identityOf(stats, bytes),
        ageMs: Date.now() - stats.mtimeMs,
      };
    } finally {
      closeSync(fd);
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => this.beat(), this.timings.heartbeatMs);
    // The heartbeat never keeps the process alive on its own.
    this.heartbeat.unref();
  }

  private beat(): void {
    try {
      if (statSync(this.path).ino !== this.inode) return this.stopHeartbeat();
      const now = new Date();
      utimesSync(this.path, now, now);
    } catch {
      this.stopHeartbeat();
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

/** How long a takeover claim may stand before it counts as left by a process that died holding it. */
const CLAIM_STALE_MS = 10_000;

/**
 * The lock file at `path` as it is now, or undefined when there is none:
 * its inode, modification time and a hash of its bytes. A lock Sylk writes
 * carries a random token, so no later lock has the identity of an earlier
 * one, even on an inode reused.
 */
export function lockIdentity(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return identityOf(fstatSync(fd), readFileSync(fd));
  } finally {
    closeSync(fd);
  }
}

function identityOf(stats: { ino: number; mtimeMs: number }, bytes: Buffer): string {
  return `${stats.ino}:${stats.mtimeMs}:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * Removes the lock judged stale if the file at `path` is still that lock.
 * Waiters that judged it race for one claim (a file created exclusively);
 * the one holding it checks the lock's identity and removes it, the others
 * give up this round and find the lock the winner then takes. A waiter that
 * judged the lock earlier and claims later finds another identity and
 * leaves the new lock alone. Not covered: a holder judged stale by its
 * heartbeat that releases its own lock in the instant between the check and
 * the removal, and a new lock taken in that instant.
 */
export function removeJudgedLock(path: string, judged: string): boolean {
  const claim = `${path}.takeover`;
  if (!claimed(claim)) return false;
  try {
    if (lockIdentity(path) !== judged) return false;
    rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(claim, { force: true });
  }
}

function claimed(claim: string): boolean {
  try {
    closeSync(openSync(claim, "wx", 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  try {
    // Held for a few milliseconds at most: one this old was left by a process that died holding it.
    if (Date.now() - statSync(claim).mtimeMs > CLAIM_STALE_MS) rmSync(claim, { force: true });
  } catch {
    // Gone meanwhile.
  }
  return false;
}

/** The one line that says a lock was taken over, and why. */
export function takeoverNotice({ holder, reason }: LockTakeover): string {
  return `Took over the index lock${holder.pid > 0 ? ` of pid ${holder.pid}` : ""}: ${reason}.`;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (typeof value?.pid !== "number" || !Number.isInteger(value.pid)) return undefined;
    return { ...value, pid: value.pid, startedAt: typeof value.startedAt === "string" ? value.startedAt : "unknown" };
  } catch {
    return undefined;
  }
}
