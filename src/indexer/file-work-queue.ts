import type { FileTaskItem } from "./file-processor.js";

/** Files handed to one worker task: enough to amortise messaging, small enough to keep all threads busy. */
export const TASK_MAX_FILES = 32;
export const TASK_MAX_BYTES = 1 << 20;

/**
 * The files a run has still to process, in order, handed out a worker task
 * at a time. A task's files leave the queue when it is taken, so what the
 * run holds of its work shrinks as it goes: a first index of 248k files held
 * every file's entry (path, size, time and priority, ≈ 150 bytes) from the
 * walk to the end, and the main thread's heap, which grows to a few times
 * what it holds live before it collects, grew with them.
 */
export class FileWorkQueue {
  private files: Array<FileTaskItem | undefined>;
  private next = 0;

  /** Takes `files` over: their slots are cleared as tasks are taken. */
  constructor(files: FileTaskItem[]) {
    this.files = files;
  }

  /** Files not yet taken. */
  get remaining(): number {
    return this.files.length - this.next;
  }

  /** The next task: up to `TASK_MAX_FILES` files and `TASK_MAX_BYTES` of them (at least one file), or undefined when none is left. */
  take(): FileTaskItem[] | undefined {
    if (this.remaining === 0) return undefined;
    const task: FileTaskItem[] = [];
    let bytes = 0;
    while (this.next < this.files.length) {
      const file = this.files[this.next] as FileTaskItem;
      if (task.length > 0 && (task.length >= TASK_MAX_FILES || bytes + file.size > TASK_MAX_BYTES)) break;
      task.push(file);
      bytes += file.size;
      this.files[this.next++] = undefined;
    }
    if (this.remaining === 0) {
      this.files = [];
      this.next = 0;
    }
    return task;
  }

  /** Every file left, as one task. */
  takeAll(): FileTaskItem[] {
    const rest = this.files.slice(this.next) as FileTaskItem[];
    this.files = [];
    this.next = 0;
    return rest;
  }
}
