import { FileWorkQueue, FileWorkQueueBuilder } from "./file-work-queue.js";
import type { ScannedFile } from "./scan-results.js";
import { copyOf } from "./string-copy.js";

/**
 * The files a walk finds to index, kept as it finds them without an object
 * a file, and handed out at the end as a `FileWorkQueue` in the order a
 * first index takes them (`byPriority`: priority, higher first, then path).
 * A walk meets a directory's files together, so each directory's path is
 * held once and its files' names joined, as a stored state holds them; a
 * file's size, time and priority are numbers in arrays. On the 250k tree
 * that is ≈ 40 bytes a file, where the walk's `ScannedFile`s with their
 * directories' results were ≈ 430 (107 MB live at the walk's end).
 */
export class WorkInWalkOrder {
  /** Each directory's path with its trailing '/' ('' for the root), in the order met. */
  private prefixes: string[] = [];
  /** Each directory's file names, joined by '/', which no name can hold. */
  private joinedNames: string[] = [];
  private fileCounts: number[] = [];
  private sizes: number[] = [];
  private mtimes: number[] = [];
  private priorities: number[] = [];
  /** The directory being met: its prefix and the names of its files so far. */
  private prefix: string | undefined;
  private names: string[] = [];

  get count(): number {
    return this.priorities.length;
  }

  add(file: ScannedFile): void {
    const slash = file.path.lastIndexOf("/");
    const prefix = file.path.slice(0, slash + 1);
    if (prefix !== this.prefix) {
      this.closeDirectory();
      // A copy, not a slice: a slice would keep the file's whole path alive with it.
      this.prefix = copyOf(prefix);
    }
    this.names.push(file.path.slice(slash + 1));
    this.sizes.push(file.size);
    this.mtimes.push(file.mtimeMs);
    this.priorities.push(file.priority);
  }

  /**
   * The queue, its files in `byPriority` order. One priority at a time, so
   * that only that priority's paths are ever strings at once: they are
   * built, sorted and packed, and dropped before the next. What was held
   * here is let go of.
   */
  toQueue(): FileWorkQueue {
    this.closeDirectory();
    const builder = new FileWorkQueueBuilder();
    const descending = [...new Set(this.priorities)].sort((a, b) => b - a);
    for (const priority of descending) this.packPriority(priority, builder);
    this.prefixes = [];
    this.joinedNames = [];
    this.fileCounts = [];
    this.sizes = [];
    this.mtimes = [];
    this.priorities = [];
    return new FileWorkQueue(builder);
  }

  private packPriority(priority: number, builder: FileWorkQueueBuilder): void {
    const paths: string[] = [];
    const files: number[] = [];
    let first = 0;
    for (let directory = 0; directory < this.prefixes.length; directory++) {
      const count = this.fileCounts[directory] as number;
      if (this.holdsPriority(first, count, priority)) {
        const prefix = this.prefixes[directory] as string;
        const names = (this.joinedNames[directory] as string).split("/");
        for (let index = 0; index < count; index++) {
          if (this.priorities[first + index] !== priority) continue;
          paths.push(prefix + names[index]);
          files.push(first + index);
        }
      }
      first += count;
    }
    const order = paths.map((_, index) => index);
    order.sort((a, b) => {
      const left = paths[a] as string;
      const right = paths[b] as string;
      return left < right ? -1 : left > right ? 1 : 0;
    });
    for (const index of order) {
      const file = files[index] as number;
      builder.add(paths[index] as string, this.sizes[file] as number, this.mtimes[file] as number, priority);
    }
  }

  private holdsPriority(first: number, count: number, priority: number): boolean {
    for (let index = first; index < first + count; index++) if (this.priorities[index] === priority) return true;
    return false;
  }

  private closeDirectory(): void {
    if (this.prefix === undefined) return;
    this.prefixes.push(this.prefix);
    this.joinedNames.push(this.names.join("/"));
    this.fileCounts.push(this.names.length);
    this.prefix = undefined;
    this.names = [];
  }
}
