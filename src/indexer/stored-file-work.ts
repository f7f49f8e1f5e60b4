import type { WalkWorkFile } from "../store/walk-work-file.js";
import type { FileTaskItem } from "./file-processor.js";
import { type FileWork, takeEvery, takeTask } from "./file-work-queue.js";

/**
 * A full walk's files to index, read back from the scratch file the walk
 * wrote them to (`WalkWorkFile`), in `byPriority` order, a file ahead of the
 * task being built: however many files the tree holds, the main thread
 * holds the one file read ahead and the task in hand (docs/DESIGN-NOTES.md,
 * "A full walk's work read back from a file of its own"). The file is
 * closed and removed once its last file is taken, or at `close`.
 */
export class StoredFileWork implements FileWork {
  private left: number;
  private ahead: FileTaskItem | undefined;

  /** `file` is read from its first file on; nothing may be added to it any more. */
  constructor(private readonly file: WalkWorkFile) {
    this.left = file.count;
    if (this.left === 0) file.close();
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

  close(): void {
    this.left = 0;
    this.ahead = undefined;
    this.file.close();
  }

  /** The next file's size (some left). */
  nextSize(): number {
    return this.peek().size;
  }

  /** The next file (some left). */
  takeOne(): FileTaskItem {
    const file = this.peek();
    this.ahead = undefined;
    if (--this.left === 0) this.file.close();
    return file;
  }

  private peek(): FileTaskItem {
    if (this.ahead) return this.ahead;
    const row = this.file.next();
    if (!row) throw new Error(`the walk's work file ended with ${this.left} files still counted`);
    this.ahead = row;
    return row;
  }
}
