import type { FileTaskItem } from "./file-processor.js";

/** Files handed to one worker task: enough to amortise messaging, small enough to keep all threads busy. */
export const TASK_MAX_FILES = 32;
export const TASK_MAX_BYTES = 1 << 20;

/** Files packed together: a block is let go of once its last file is taken. */
const BLOCK_FILES = 4096;

/** A file's numbers in a block's `numbers`, three a file. */
const SIZE = 0;
const MTIME = 1;
const PRIORITY = 2;
const NUMBERS_PER_FILE = 3;

/**
 * Up to `BLOCK_FILES` files in order, without an object per file: each path
 * front-coded against the one before it (the length of what they share, then
 * the rest), the rests joined into one string cut at `ends` (so no separator
 * a name could hold), and the numbers in one array. The queue is taken in
 * order, so a path is rebuilt from the one taken just before it.
 */
interface PackedFiles {
  rests: string;
  ends: Uint32Array;
  shared: Uint32Array;
  numbers: Float64Array;
  count: number;
}

/** The files a run has still to process, in order, handed out a worker task at a time. */
export interface FileWork {
  /** Files not yet taken. */
  readonly remaining: number;
  /** The next task: up to `TASK_MAX_FILES` files and `TASK_MAX_BYTES` of them (at least one file), or undefined when none is left. */
  take(): FileTaskItem[] | undefined;
  /** Every file left, as one task. */
  takeAll(): FileTaskItem[];
  /** Lets go of what the work holds outside the heap (a scratch file); taking afterwards gives nothing. */
  close(): void;
}

/** What `takeTask` reads a task from: the next file's size, then the file. */
interface TaskSource {
  readonly remaining: number;
  nextSize(): number;
  takeOne(): FileTaskItem;
}

/** The next task from `source` (see `FileWork.take`). */
export function takeTask(source: TaskSource): FileTaskItem[] | undefined {
  if (source.remaining === 0) return undefined;
  const task: FileTaskItem[] = [];
  let bytes = 0;
  while (source.remaining > 0) {
    const size = source.nextSize();
    if (task.length > 0 && (task.length >= TASK_MAX_FILES || bytes + size > TASK_MAX_BYTES)) break;
    task.push(source.takeOne());
    bytes += size;
  }
  return task;
}

/** Every file left in `source`, as one task. */
export function takeEvery(source: TaskSource): FileTaskItem[] {
  const rest: FileTaskItem[] = [];
  while (source.remaining > 0) rest.push(source.takeOne());
  return rest;
}

/**
 * The files a run has still to process, in order, held in memory (an
 * incremental run's: what changed, not the tree; a full walk's work is
 * `StoredFileWork`). A first index of 248k files held an object per file (path,
 * size, time and priority, ≈ 180 bytes of the main thread's heap with its
 * path) from the walk until its task was taken, and V8 lets that heap grow
 * to about four times what it holds live before it collects. The queue now
 * packs the files in blocks and builds a file's entry only when its task is
 * taken; a block goes once its files are all taken. Its order (priority,
 * then path) puts a directory's files side by side, so each path is held
 * as what it does not share with the one before (18 of 90 characters on
 * average on the 250k tree: ≈ 50 bytes a file, ≈ 120 with whole paths).
 */
export class FileWorkQueue implements FileWork {
  private blocks: Array<PackedFiles | undefined>;
  private block = 0;
  private indexInBlock = 0;
  private left: number;
  /** The path taken last: the next one in its block is front-coded against it. */
  private previousPath = "";

  /** Packs `files` in their order (the array and its entries are not kept). */
  constructor(files: readonly FileTaskItem[]) {
    this.blocks = FileWorkQueueBuilder.of(files).takeBlocks();
    this.left = this.blocks.reduce((sum, block) => sum + (block as PackedFiles).count, 0);
  }

  get remaining(): number {
    return this.left;
  }

  take(): FileTaskItem[] | undefined {
    return takeTask(this);
  }

  takeAll(): FileTaskItem[] {
    return takeEvery(this);
  }

  /** Nothing outside the heap to let go of. */
  close(): void {}

  /** The next file's size (some left). */
  nextSize(): number {
    const block = this.blocks[this.block] as PackedFiles;
    return block.numbers[this.indexInBlock * NUMBERS_PER_FILE + SIZE] as number;
  }

  /** The next file (some left). */
  takeOne(): FileTaskItem {
    const block = this.blocks[this.block] as PackedFiles;
    const index = this.indexInBlock;
    const start = index === 0 ? 0 : (block.ends[index - 1] as number);
    const at = index * NUMBERS_PER_FILE;
    // Flattened: a slice or a concatenation would keep the block's string (or the previous path) alive with it.
    const path = flat(this.previousPath.slice(0, block.shared[index]) + block.rests.slice(start, block.ends[index]));
    this.previousPath = path;
    const file: FileTaskItem = {
      path,
      size: block.numbers[at + SIZE] as number,
      mtimeMs: block.numbers[at + MTIME] as number,
      priority: block.numbers[at + PRIORITY] as number,
    };
    this.left--;
    if (++this.indexInBlock === block.count) {
      this.blocks[this.block++] = undefined;
      this.indexInBlock = 0;
    }
    if (this.left === 0) {
      this.blocks = [];
      this.block = 0;
      this.previousPath = "";
    }
    return file;
  }
}

/** Packs files one at a time, in the order the queue will hand them out. */
class FileWorkQueueBuilder {
  private readonly blocks: PackedFiles[] = [];
  private rests: string[] = [];
  // A block's arrays, made at its first file: a queue of a few files (a watcher's refresh) makes one set.
  private ends = new Uint32Array(0);
  private shared = new Uint32Array(0);
  private numbers = new Float64Array(0);
  private length = 0;
  private previous = "";

  static of(files: readonly FileTaskItem[]): FileWorkQueueBuilder {
    const builder = new FileWorkQueueBuilder();
    for (const file of files) builder.add(file.path, file.size, file.mtimeMs, file.priority);
    return builder;
  }

  add(path: string, size: number, mtimeMs: number, priority: number): void {
    const index = this.rests.length;
    if (index === 0) {
      this.ends = new Uint32Array(BLOCK_FILES);
      this.shared = new Uint32Array(BLOCK_FILES);
      this.numbers = new Float64Array(BLOCK_FILES * NUMBERS_PER_FILE);
    }
    const common = index === 0 ? 0 : sharedPrefixLength(this.previous, path);
    const rest = path.slice(common);
    this.rests.push(rest);
    this.length += rest.length;
    this.shared[index] = common;
    this.ends[index] = this.length;
    this.numbers[index * NUMBERS_PER_FILE + SIZE] = size;
    this.numbers[index * NUMBERS_PER_FILE + MTIME] = mtimeMs;
    this.numbers[index * NUMBERS_PER_FILE + PRIORITY] = priority;
    this.previous = path;
    if (index + 1 === BLOCK_FILES) this.closeBlock();
  }

  /** The blocks packed so far, the last one closed; the builder starts over empty. */
  takeBlocks(): PackedFiles[] {
    this.closeBlock();
    return this.blocks.splice(0);
  }

  private closeBlock(): void {
    const count = this.rests.length;
    if (count === 0) return;
    // A last block shorter than `BLOCK_FILES` keeps arrays of its own size rather than views of full-size ones.
    const fits = <T extends Uint32Array | Float64Array>(array: T, used: number): T =>
      used === array.length ? array : (array.slice(0, used) as T);
    this.blocks.push({
      rests: this.rests.join(""),
      ends: fits(this.ends, count),
      shared: fits(this.shared, count),
      numbers: fits(this.numbers, count * NUMBERS_PER_FILE),
      count,
    });
    this.rests = [];
    this.length = 0;
    this.previous = "";
  }
}

function sharedPrefixLength(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let length = 0;
  while (length < most && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}

/**
 * `text` as a string of its own. V8 keeps a concatenation as references to
 * its parts, and a slice as one to its parent: a path rebuilt from the one
 * before it would keep that one, and the block's string, alive for as long
 * as it is held. Reading a string as a number flattens it in place.
 */
function flat(text: string): string {
  Number(text);
  return text;
}
