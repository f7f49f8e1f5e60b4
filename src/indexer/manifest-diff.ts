import type { ManifestEntry } from "../store/file-repository.js";
import type { ScannedFile, SkippedFile, TreeScan } from "./scan-results.js";

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
  const diff: ManifestDiff = { added: [], changed: [], deleted: [], newlySkipped: [], unchanged: 0 };
  const seen = new Set<string>();
  for (const directory of scan.changed) {
    for (const file of directory.files) {
      seen.add(file.path);
      const known = manifest.get(file.path);
      if (!known) diff.added.push(file);
      else if (known.status === "failed" || known.size !== file.size || known.mtimeMs !== file.mtimeMs) diff.changed.push(file);
      else diff.unchanged++;
    }
    for (const file of directory.skipped) {
      seen.add(file.path);
      const known = manifest.get(file.path);
      if (known?.status === "skipped" && known.size === file.size && known.mtimeMs === file.mtimeMs) diff.unchanged++;
      else diff.newlySkipped.push(file);
    }
  }
  for (const path of manifest.keys()) if (!seen.has(path)) diff.deleted.push(path);
  return diff;
}

export function isFresh(diff: ManifestDiff): boolean {
  return diff.added.length + diff.changed.length + diff.deleted.length + diff.newlySkipped.length === 0;
}
