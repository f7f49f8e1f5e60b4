import type { ManifestEntry } from "../store/file-repository.js";
import type { ChangedDirectory, ScannedFile, SkippedFile, TreeScan } from "./scan-results.js";

export interface ManifestDiff {
  /** On disk, never indexed. */
  added: ScannedFile[];
  /** On disk with a different size or modification time (or a failed earlier attempt). */
  changed: ScannedFile[];
  /** In the manifest, gone from disk (deleted, renamed away, or now ignored). */
  deleted: string[];
  /** Skipped by name or size, and not yet recorded as such. */
  newlySkipped: SkippedFile[];
  /** Files of changed directories that need nothing. */
  unchanged: number;
}

/**
 * Compares the changed directories of a scan with their manifest rows: the
 * whole fresh/stale decision, no file read. `manifest` holds the rows of the
 * changed and vanished directories (every row, when the scan had no previous
 * states): whatever it holds that the scan did not find is gone.
 */
export function diffManifest(scan: TreeScan, manifest: ReadonlyMap<string, ManifestEntry>): ManifestDiff {
  const added: ScannedFile[] = [];
  const changed: ScannedFile[] = [];
  const differ = new ManifestDiffer(manifest, (file, isNew) => (isNew ? added : changed).push(file));
  for (const directory of scan.changed) differ.take(directory);
  return { ...differ.finish(), added, changed };
}

/** What `ManifestDiffer` keeps: the diff but for the files to index, which it hands on as it meets them. */
export type DiffWithoutWork = Omit<ManifestDiff, "added" | "changed"> & { added: number; changed: number };

/**
 * `diffManifest` a directory at a time, as a walk finds them: each file to
 * index (`isNew` when the manifest has no row for it) goes to `toIndex` and
 * is not kept. Of the rest it keeps the files newly skipped (few: secrets,
 * large and unreadable files) and which of the manifest's paths it met.
 */
export class ManifestDiffer {
  private readonly diff: DiffWithoutWork = { added: 0, changed: 0, deleted: [], newlySkipped: [], unchanged: 0 };
  /** Paths met that the manifest holds; only those can tell a row from a deleted file. */
  private readonly met = new Set<string>();

  constructor(
    private readonly manifest: ReadonlyMap<string, ManifestEntry>,
    private readonly toIndex: (file: ScannedFile, isNew: boolean) => void,
  ) {}

  take(directory: Pick<ChangedDirectory, "files" | "skipped">): void {
    const { diff, manifest, met } = this;
    for (const file of directory.files) {
      const known = manifest.get(file.path);
      if (known) met.add(file.path);
      if (!known) {
        diff.added++;
        this.toIndex(file, true);
      } else if (known.status === "failed" || known.size !== file.size || known.mtimeMs !== file.mtimeMs) {
        diff.changed++;
        this.toIndex(file, false);
      } else diff.unchanged++;
    }
    for (const file of directory.skipped) {
      const known = manifest.get(file.path);
      if (known) met.add(file.path);
      if (known?.status === "skipped" && known.size === file.size && known.mtimeMs === file.mtimeMs) diff.unchanged++;
      else diff.newlySkipped.push(file);
    }
  }

  /** The diff of every directory taken: the manifest's paths not met are deleted. */
  finish(): DiffWithoutWork {
    for (const path of this.manifest.keys()) if (!this.met.has(path)) this.diff.deleted.push(path);
    return this.diff;
  }
}

/** The files to index, counted: `diffManifest` keeps them, a `ManifestDiffer` only their counts. */
export function toIndexCounts(diff: ManifestDiff | DiffWithoutWork): { added: number; changed: number } {
  const count = (files: number | readonly unknown[]) => (typeof files === "number" ? files : files.length);
  return { added: count(diff.added), changed: count(diff.changed) };
}

export function isFresh(diff: ManifestDiff | DiffWithoutWork): boolean {
  const { added, changed } = toIndexCounts(diff);
  return added + changed + diff.deleted.length + diff.newlySkipped.length === 0;
}
