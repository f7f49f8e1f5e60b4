import { closeSync, fchmodSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { maskSecretsIn } from "../security/mask-values.js";

/** A line as stored: the entry plus its log position. */
export type Logged<T extends object> = T & { sequence: number };

export interface ReadResult<T extends object> {
  entries: Logged<T>[];
  /** A line before the last could not be read and was skipped: not a crash, something else wrote here. */
  damaged: boolean;
  /** The last line was torn (a kill mid-write) and was cut off the file. */
  truncatedTail: boolean;
}

const NEWLINE = 0x0a;

/** Makes a rename or a creation durable: the directory entry is data too. */
function fsyncDirectory(path: string): void {
  const fd = openSync(dirname(path), "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A write-ahead log of observations: JSON lines, each with a strictly
 * increasing sequence, fsynced before `append` returns, so an episode is
 * durable before it is applied. The state saves the last sequence it applied;
 * on start the lines after it are replayed.
 */
export class ObservationLog<T extends object> {
  private fd: number;
  private nextSequence: number;
  private lineCount = 0;

  private constructor(
    readonly path: string,
    appliedSequence: number,
  ) {
    this.fd = ObservationLog.openForAppend(path);
    // Compaction empties the file, so the state's position is what keeps sequences from restarting at 1.
    this.nextSequence = appliedSequence + 1;
  }

  /**
   * Opens (creating, 0600) the log and repairs a torn last line at once, so
   * the next append cannot be glued onto it. `appliedSequence` is the
   * position of the saved state.
   */
  static open<T extends object>(path: string, appliedSequence = 0): ObservationLog<T> {
    const log = new ObservationLog<T>(path, appliedSequence);
    const { entries } = log.readAfter(0);
    log.lineCount = entries.length;
    const last = entries.at(-1)?.sequence ?? 0;
    log.nextSequence = Math.max(log.nextSequence, last + 1);
    return log;
  }

  private static openForAppend(path: string): number {
    const fd = openSync(path, "a", 0o600);
    // The mode of open() applies only to a new file; a log copied in with wider permissions is narrowed.
    fchmodSync(fd, 0o600);
    fsyncDirectory(path);
    return fd;
  }

  get lastSequence(): number {
    return this.nextSequence - 1;
  }

  /** Readable lines in the file: what compaction would empty. */
  get lines(): number {
    return this.lineCount;
  }

  /**
   * Writes one line and fsyncs it; only then is the episode safe to apply. The line is the
   * entry with its secrets masked (an episode holds the prompt and what the model searched
   * for), and that is what is returned to be applied, as a replay would read it.
   */
  append(entry: T): Logged<T> {
    const logged = { ...maskSecretsIn(entry).value, sequence: this.nextSequence } as Logged<T>;
    const bytes = Buffer.from(`${JSON.stringify(logged)}\n`, "utf8");
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    fsyncSync(this.fd);
    this.nextSequence++;
    this.lineCount++;
    return logged;
  }

  /**
   * The entries after `sequence`, in order. A torn or unreadable last line is
   * what a kill mid-write leaves: it is cut off the file. An unreadable line
   * before the last, or one whose sequence does not increase, is skipped and
   * reported as damage.
   */
  readAfter(sequence: number): ReadResult<T> {
    const buffer = readFileSync(this.path);
    const parsed: { entry: Logged<T> | undefined; end: number }[] = [];
    let start = 0;
    while (start < buffer.length) {
      const newline = buffer.indexOf(NEWLINE, start);
      if (newline === -1) {
        parsed.push({ entry: undefined, end: buffer.length });
        break;
      }
      parsed.push({ entry: ObservationLog.parseLine<T>(buffer.subarray(start, newline).toString("utf8")), end: newline + 1 });
      start = newline + 1;
    }

    let truncatedTail = false;
    const tail = parsed.at(-1);
    if (tail !== undefined && tail.entry === undefined) {
      parsed.pop();
      ftruncateSync(this.fd, parsed.at(-1)?.end ?? 0);
      fsyncSync(this.fd);
      truncatedTail = true;
    }

    let damaged = false;
    let previous = 0;
    const entries: Logged<T>[] = [];
    for (const { entry } of parsed) {
      if (entry === undefined || entry.sequence <= previous) {
        damaged = true;
        continue;
      }
      previous = entry.sequence;
      if (entry.sequence > sequence) entries.push(entry);
    }
    return { entries, damaged, truncatedTail };
  }

  private static parseLine<T extends object>(line: string): Logged<T> | undefined {
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value !== "object" || value === null) return undefined;
      const sequence = (value as { sequence?: unknown }).sequence;
      return typeof sequence === "number" && Number.isSafeInteger(sequence) && sequence > 0 ? (value as Logged<T>) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Empties the log once the state includes every line: a new empty file is
   * renamed over it, so a kill leaves either the old log or the empty one.
   * Returns false (and keeps the log) when a line is not applied yet.
   */
  compact(appliedSequence: number): boolean {
    if (this.lastSequence > appliedSequence) return false;
    if (fstatSync(this.fd).size === 0) return true;
    const temporary = `${this.path}.compact`;
    const fd = openSync(temporary, "w", 0o600);
    try {
      fchmodSync(fd, 0o600);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.path);
    fsyncDirectory(this.path);
    // The old descriptor points at the replaced file: appends must go to the new one.
    closeSync(this.fd);
    this.fd = ObservationLog.openForAppend(this.path);
    this.lineCount = 0;
    return true;
  }

  close(): void {
    closeSync(this.fd);
  }
}
