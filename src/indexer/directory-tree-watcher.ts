import { lstatSync, readdirSync, watch, type FSWatcher, type Stats } from "node:fs";
import { join } from "node:path";

export interface DirectoryTreeWatcherOptions {
  /** Absolute path of the tree. */
  root: string;
  /** Whether a directory (relative, '/'-separated, never '') is left unwatched, with everything below it. */
  ignoresDirectory: (path: string) => boolean;
  /** A file that may have been added, changed or removed (relative, '/'-separated). */
  onPath: (path: string) => void;
  onError: (error: Error) => void;
}

/** A watched directory: its handle, and the names of the files and directories last seen in it. */
interface WatchedDirectory {
  handle: FSWatcher | undefined;
  files: Set<string>;
  directories: Set<string>;
}

/**
 * Watches a tree with one `fs.watch` per directory and none per file: a
 * directory's watch reports what happens to its entries (inotify on Linux),
 * files included, so the names of the files are all that is kept of them.
 * chokidar, used before, watched every file as well and kept its stats and
 * listeners: on a 28k-file repository it held ~250 MB and spent ~10 s of
 * CPU starting, for the same events.
 *
 * A new directory is walked and watched, and each file found in it is
 * reported (files may have landed in it before its watch began). A
 * directory that goes (removed, moved away, or a file now) reports every
 * file it held, as each would have been reported alone.
 */
export class DirectoryTreeWatcher {
  private readonly watched = new Map<string, WatchedDirectory>();
  private closed = false;
  /** A watch refused (the inotify limit reached) is said once, not once per directory. */
  private refusalReported = false;

  constructor(private readonly options: DirectoryTreeWatcherOptions) {}

  /** Walks the tree and watches each directory the rules leave in; reports nothing for what it finds. */
  start(): void {
    this.add("", false);
  }

  /** Watched directories, relative ('' is the root), sorted. */
  directories(): string[] {
    return [...this.watched.keys()].sort();
  }

  /**
   * The rules for what is left unwatched may have changed below `directory`
   * (an ignore file there changed): directories now left out stop being
   * watched, and those now let in are watched, their files reported.
   */
  rescan(directory: string): void {
    for (const path of [...this.watched.keys()]) {
      if (path !== "" && isWithin(path, directory) && this.options.ignoresDirectory(path)) this.forget(path, false);
    }
    if (this.watched.has(directory)) this.addMissing(directory);
  }

  close(): void {
    this.closed = true;
    for (const entry of this.watched.values()) entry.handle?.close();
    this.watched.clear();
  }

  /** Watches `directory` and everything below it the rules let in; `report`: each file found is reported. */
  private add(directory: string, report: boolean): void {
    const pending = [directory];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (this.watched.has(next)) continue;
      const entry: WatchedDirectory = { handle: undefined, files: new Set(), directories: new Set() };
      this.watched.set(next, entry);
      // Watched before it is listed, so that nothing created in between goes unseen.
      entry.handle = this.watch(next);
      for (const dirent of this.list(next)) {
        const path = joinRelative(next, dirent.name);
        if (dirent.isDirectory()) {
          if (this.options.ignoresDirectory(path)) continue;
          entry.directories.add(dirent.name);
          pending.push(path);
        } else {
          entry.files.add(dirent.name);
          if (report) this.options.onPath(path);
        }
      }
    }
  }

  /** Below a watched directory, watches what is not watched yet (`rescan`). */
  private addMissing(directory: string): void {
    for (const dirent of this.list(directory)) {
      if (!dirent.isDirectory()) continue;
      const path = joinRelative(directory, dirent.name);
      if (this.options.ignoresDirectory(path)) continue;
      if (this.watched.has(path)) this.addMissing(path);
      else {
        this.watched.get(directory)?.directories.add(dirent.name);
        this.add(path, true);
      }
    }
  }

  /** Stops watching `directory` and all below it; `report`: every file they held is reported. */
  private forget(directory: string, report: boolean): void {
    const entry = this.watched.get(directory);
    if (!entry) return;
    this.watched.delete(directory);
    entry.handle?.close();
    if (report) for (const name of entry.files) this.options.onPath(joinRelative(directory, name));
    for (const name of entry.directories) this.forget(joinRelative(directory, name), report);
    const parent = this.watched.get(parentOf(directory));
    parent?.directories.delete(baseName(directory));
  }

  private watch(directory: string): FSWatcher | undefined {
    try {
      const handle = watch(join(this.options.root, directory), { persistent: true }, (_event, name) => this.changed(directory, name));
      // The directory went away under its watch (its parent's watch reports that), or the platform gave up on it.
      handle.on("error", () => this.forget(directory, true));
      return handle;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone before it could be watched: its parent's watch reports that.
      if (code === "ENOENT" || code === "ENOTDIR" || this.refusalReported) return undefined;
      this.refusalReported = true;
      this.options.onError(error as Error);
      return undefined;
    }
  }

  private list(directory: string) {
    try {
      return readdirSync(join(this.options.root, directory), { withFileTypes: true });
    } catch {
      return [];
    }
  }

  /** An event in `directory` about `name` (or about something there, unnamed). */
  private changed(directory: string, name: string | Buffer | null): void {
    if (this.closed) return;
    const entry = this.watched.get(directory);
    if (!entry) return;
    if (name === null) {
      // The platform did not say which entry: look at them all again.
      for (const known of [...entry.files, ...entry.directories]) this.entryChanged(directory, entry, known);
      this.addMissing(directory);
      return;
    }
    this.entryChanged(directory, entry, name.toString());
  }

  private entryChanged(directory: string, entry: WatchedDirectory, name: string): void {
    const path = joinRelative(directory, name);
    const stats = lstatOrUndefined(join(this.options.root, path));
    if (stats?.isDirectory()) {
      if (this.watched.has(path) || this.options.ignoresDirectory(path)) return;
      entry.directories.add(name);
      this.add(path, true);
      return;
    }
    // Whatever was a watched directory here is gone (or a file now): everything it held was removed.
    if (this.watched.has(path)) this.forget(path, true);
    if (stats) entry.files.add(name);
    else if (!entry.files.delete(name)) return;
    this.options.onPath(path);
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function joinRelative(directory: string, name: string): string {
  return directory ? `${directory}/${name}` : name;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function isWithin(path: string, directory: string): boolean {
  return directory === "" || path === directory || path.startsWith(`${directory}/`);
}
