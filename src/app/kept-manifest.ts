import type { ProjectIndexer } from "../indexer/project-indexer.js";
import type { StoredDirectoryState } from "../store/directory-state-repository.js";
import type { FileRepository, ManifestEntry } from "../store/file-repository.js";
import type { FileSketches } from "../store/file-sketches.js";

/** How long the rows stay after the last search that read them. */
export const KEPT_MANIFEST_IDLE_MS = 30_000;

/** Directories whose rows are kept at once besides the whole project's (a model greps a few packages). */
const KEPT_DIRECTORIES = 8;

/**
 * What grep reads of the index for the files below a directory, kept
 * between searches while the manifest is unchanged
 * (`FileRepository.manifestVersion`: every write of a file's rows goes
 * through it, or is another connection's commit). A search in one
 * directory reads and keeps only that directory's rows (through the path
 * index) unless the whole project's are kept. They go `idleMs` after the
 * last search, so an idle session does not hold them.
 */
abstract class KeptByDirectory<Rows> {
  /** Rows by the directory they were read for ('' for the whole project). */
  private readonly kept = new Map<string, Rows>();
  private version: string | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly manifestVersion: () => string,
    private readonly idleMs: number,
  ) {}

  /** The rows of the files below `directory` ('' for all), as the index holds them now. */
  under(directory: string): Rows {
    const version = this.manifestVersion();
    if (version !== this.version) {
      this.kept.clear();
      this.version = version;
    }
    this.releaseLater();
    if (this.kept.has(directory)) return this.kept.get(directory) as Rows;
    if (this.kept.size > KEPT_DIRECTORIES) this.kept.clear();
    const whole = directory === "" ? undefined : this.kept.get("");
    const rows = whole === undefined ? this.read(directory) : this.within(whole, directory);
    this.kept.set(directory, rows);
    return rows;
  }

  /** Reads the rows below a directory from the database. */
  protected abstract read(directory: string): Rows;

  /** The rows below a directory, from the whole project's. */
  protected abstract within(whole: Rows, directory: string): Rows;

  private releaseLater(): void {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => this.kept.clear(), this.idleMs);
    this.releaseTimer.unref();
  }
}

/**
 * The manifest's rows as grep reads them. Reading all of biome's 27,864 rows
 * took a third of a search that checks the disk first (≈ 115 ms, and the
 * collector's work after it), on every call, also while a watcher vouches.
 * A few MB per 100k files.
 */
export class KeptManifest extends KeptByDirectory<readonly ManifestEntry[]> {
  constructor(
    private readonly files: Pick<FileRepository, "manifestUnder" | "manifestVersion">,
    idleMs = KEPT_MANIFEST_IDLE_MS,
  ) {
    super(() => files.manifestVersion(), idleMs);
  }

  protected read(directory: string): readonly ManifestEntry[] {
    return this.files.manifestUnder(directory);
  }

  protected within(whole: readonly ManifestEntry[], directory: string): readonly ManifestEntry[] {
    const prefix = `${directory}/`;
    return whole.filter((row) => row.path.startsWith(prefix));
  }
}

/**
 * The files' trigram sketches by file id, as grep's narrowing reads them
 * (3.8 MB for biome's 27,864 files). The whole project's serve a search in
 * any directory: they are looked up by id.
 */
export class KeptSketches extends KeptByDirectory<ReadonlyMap<number, Uint8Array>> {
  constructor(
    private readonly sketches: Pick<FileSketches, "under">,
    files: Pick<FileRepository, "manifestVersion">,
    idleMs = KEPT_MANIFEST_IDLE_MS,
  ) {
    super(() => files.manifestVersion(), idleMs);
  }

  protected read(directory: string): ReadonlyMap<number, Uint8Array> {
    return this.sketches.under(directory);
  }

  protected within(whole: ReadonlyMap<number, Uint8Array>): ReadonlyMap<number, Uint8Array> {
    return whole;
  }
}

/**
 * The directories' stored states (their names, times and ignore rules) as
 * the last complete run left them, for grep's listing by name: reading all
 * of biome's 2,975 directories took 13–55 ms a search. A state kept after
 * a newer run replaced it can only disagree with the disk (times and inodes
 * do not go back), which makes the listing fall back to a check: never a
 * wrong listing.
 */
export class KeptDirectoryStates extends KeptByDirectory<ReadonlyMap<string, StoredDirectoryState> | undefined> {
  constructor(
    private readonly indexer: Pick<ProjectIndexer, "storedDirectoryStates">,
    files: Pick<FileRepository, "manifestVersion">,
    idleMs = KEPT_MANIFEST_IDLE_MS,
  ) {
    super(() => files.manifestVersion(), idleMs);
  }

  protected read(): ReadonlyMap<string, StoredDirectoryState> | undefined {
    return this.indexer.storedDirectoryStates();
  }

  protected within(whole: ReadonlyMap<string, StoredDirectoryState> | undefined): ReadonlyMap<string, StoredDirectoryState> | undefined {
    return whole;
  }
}
