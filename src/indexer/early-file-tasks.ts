import type { FileTaskItem, ProcessedFile } from "./file-processor.js";
import { TASK_MAX_BYTES, TASK_MAX_FILES } from "./file-work-queue.js";

/**
 * Files a first index gives the workers while its walk goes on: about what
 * two workers process while a 28k-file tree is walked (docs/DESIGN-NOTES.md,
 * "A first index's first tasks given out during its walk").
 */
export const EARLY_TASK_FILES = 512;

/**
 * A first index's first files, packed into tasks as the walk finds them
 * (up to `TASK_MAX_FILES` files and `TASK_MAX_BYTES`, as `takeTask` packs a
 * task) and each given to `run` once full, so the workers warm up on real
 * files instead of sleeping through the walk. `FileRunner.processAll`
 * adopts `tasks` as tasks running; their results are committed there, with
 * the rest, once the walk is settled.
 */
export class EarlyFileTasks {
  /** The tasks given out, in order; each resolves to its files' results (a crashed worker's files come back failed). */
  readonly tasks: Array<Promise<ProcessedFile[]>> = [];
  private pending: FileTaskItem[] = [];
  private pendingBytes = 0;
  private offered = 0;
  private finished = false;

  constructor(
    private readonly run: (files: FileTaskItem[]) => Promise<ProcessedFile[]>,
    private readonly limit = EARLY_TASK_FILES,
  ) {}

  /** Files taken: given out, or in the task being packed. */
  get taken(): number {
    return this.offered;
  }

  /** Takes `file` for an early task, or returns false when the budget is spent (or the walk is over): the caller keeps it. */
  offer(file: FileTaskItem): boolean {
    if (this.finished || this.offered >= this.limit) return false;
    if (this.pending.length >= TASK_MAX_FILES || (this.pending.length > 0 && this.pendingBytes + file.size > TASK_MAX_BYTES)) {
      this.giveOut();
    }
    this.pending.push({ path: file.path, size: file.size, mtimeMs: file.mtimeMs, priority: file.priority });
    this.pendingBytes += file.size;
    this.offered++;
    if (this.offered === this.limit) this.giveOut();
    return true;
  }

  /** The walk is over: the task being packed goes out too, and nothing more is taken. */
  finish(): void {
    this.finished = true;
    this.giveOut();
  }

  private giveOut(): void {
    if (this.pending.length === 0) return;
    const files = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.tasks.push(this.run(files));
  }
}
