import type { FileRepository, ManifestEntry } from "../store/file-repository.js";

/** How long the rows stay after the last search that read them. */
export const KEPT_MANIFEST_IDLE_MS = 30_000;

/** Directories whose rows are kept at once besides the whole project's (a model greps a few packages). */
const KEPT_DIRECTORIES = 8;

/**
 * The manifest's rows as grep reads them, kept between searches while the
 * manifest is unchanged (`FileRepository.manifestVersion`). Reading all of
 * biome's 27,864 rows took a third of a search that checks the disk first
 * (≈ 115 ms, and the collector's work after it), on every call, also while a
 * watcher vouches. A search in one directory reads and keeps only that
 * directory's rows (through the path index) unless the whole project's are
 * kept. The rows go `KEPT_MANIFEST_IDLE_MS` after the last search (a few MB
 * per 100k files), so an idle session does not hold them.
 */
export class KeptManifest {
  /** Rows by the directory they were read for ('' for the whole project). */
  private readonly kept = new Map<string, ManifestEntry[]>();
  private version: string | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly files: Pick<FileRepository, "manifestUnder" | "manifestVersion">,
    private readonly idleMs = KEPT_MANIFEST_IDLE_MS,
  ) {}

  /** The rows of the files below `directory` ('' for all), as the manifest holds them now. */
  under(directory: string): readonly ManifestEntry[] {
    const version = this.files.manifestVersion();
    if (version !== this.version) {
      this.kept.clear();
      this.version = version;
    }
    this.releaseLater();
    const whole = this.kept.get("");
    if (whole && directory !== "") {
      const prefix = `${directory}/`;
      return whole.filter((row) => row.path.startsWith(prefix));
    }
    let rows = this.kept.get(directory);
    if (!rows) {
      if (this.kept.size > KEPT_DIRECTORIES) this.kept.clear();
      rows = this.files.manifestUnder(directory);
      this.kept.set(directory, rows);
    }
    return rows;
  }

  private releaseLater(): void {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => this.kept.clear(), this.idleMs);
    this.releaseTimer.unref();
  }
}
