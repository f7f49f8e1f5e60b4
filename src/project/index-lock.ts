import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface LockHolder {
  pid: number;
  startedAt: string;
}

/**
 * One indexer per project at a time. The lock is a file created exclusively
 * (`wx`) holding the owner's pid; a lock whose owner is no longer running
 * (killed mid-index) is stale and taken over. Readers never need it: SQLite's
 * WAL mode lets any number of processes search while one writes.
 */
export class IndexLock {
  private held = false;

  constructor(private readonly path: string) {}

  /** Takes the lock, or returns who holds it. */
  tryAcquire(): { acquired: true } | { acquired: false; holder: LockHolder } {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.path, "wx", 0o600);
        writeSync(fd, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() } satisfies LockHolder));
        closeSync(fd);
        this.held = true;
        return { acquired: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = this.holder();
      if (holder && isRunning(holder.pid) && holder.pid !== process.pid) return { acquired: false, holder };
      rmSync(this.path, { force: true }); // stale: its owner is gone
    }
    const holder = this.holder();
    return { acquired: false, holder: holder ?? { pid: -1, startedAt: "unknown" } };
  }

  /** Waits for the lock, polling; `onWait` is told once who holds it. */
  async acquire(options: { signal?: AbortSignal; onWait?: (holder: LockHolder) => void; pollMs?: number } = {}): Promise<void> {
    let told = false;
    for (;;) {
      const result = this.tryAcquire();
      if (result.acquired) return;
      if (!told) {
        options.onWait?.(result.holder);
        told = true;
      }
      options.signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    const holder = this.holder();
    if (holder?.pid === process.pid) rmSync(this.path, { force: true });
  }

  holder(): LockHolder | undefined {
    try {
      return JSON.parse(readFileSync(this.path, "utf8")) as LockHolder;
    } catch {
      return undefined;
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
