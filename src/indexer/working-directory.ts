import { isMainThread } from "node:worker_threads";

/**
 * The walk's `stat` calls name a file relative to the process's working
 * directory, entered once per directory: the kernel then resolves one name
 * instead of every component of a long path (a few per cent of the walk's
 * system calls on a 28k-file tree). The working directory is shared by the whole process, so
 * it is put back before any other code can run (the walk yields) and at the
 * end; worker threads cannot change it, and there the walk uses full paths.
 */
export class WorkingDirectory {
  private readonly original = isMainThread ? currentDirectory() : undefined;
  private entered: string | undefined;

  /** Makes `absolute` the working directory when it may; returns the path to list it by. */
  enter(absolute: string): string {
    if (this.original === undefined) return absolute;
    try {
      process.chdir(absolute);
    } catch {
      this.entered = undefined;
      return absolute;
    }
    this.entered = absolute;
    return ".";
  }

  /** The path to stat a name in the directory last entered. */
  pathOf(directory: string, name: string): string {
    return this.entered === directory ? name : `${directory}/${name}`;
  }

  restore(): void {
    if (this.original === undefined || this.entered === undefined) return;
    this.entered = undefined;
    process.chdir(this.original);
  }
}

/** The working directory, or undefined when it no longer exists (then the walk uses full paths). */
function currentDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}
