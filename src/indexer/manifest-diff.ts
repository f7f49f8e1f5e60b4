import { createHash } from "node:crypto";
import type { ManifestEntry } from "../store/file-repository.js";
import type { ScanResult, ScannedFile, SkippedFile } from "./scanner.js";

export interface ManifestDiff {
  /** On disk, never indexed. */
  added: ScannedFile[];
  /** On disk with a different size or modification time (or a failed earlier attempt). */
  changed: ScannedFile[];
  /** In the manifest, gone from disk (deleted, renamed away, or now ignored). */
  deleted: string[];
  /** Skipped by name or size, and not yet recorded as such. */
  newlySkipped: SkippedFile[];
  unchanged: number;
}

/** Compares a scan with the manifest: the whole fresh/stale decision, no file read. */
export function diffManifest(scan: ScanResult, manifest: ReadonlyMap<string, ManifestEntry>): ManifestDiff {
  const diff: ManifestDiff = { added: [], changed: [], deleted: [], newlySkipped: [], unchanged: 0 };
  const seen = new Set<string>();
  for (const file of scan.files) {
    seen.add(file.path);
    const known = manifest.get(file.path);
    if (!known) diff.added.push(file);
    else if (known.status === "failed" || known.size !== file.size || known.mtimeMs !== file.mtimeMs) diff.changed.push(file);
    else diff.unchanged++;
  }
  for (const file of scan.skipped) {
    seen.add(file.path);
    const known = manifest.get(file.path);
    if (known?.status === "skipped" && known.size === file.size && known.mtimeMs === file.mtimeMs) diff.unchanged++;
    else diff.newlySkipped.push(file);
  }
  for (const path of manifest.keys()) if (!seen.has(path)) diff.deleted.push(path);
  return diff;
}

export function isFresh(diff: ManifestDiff): boolean {
  return diff.added.length + diff.changed.length + diff.deleted.length + diff.newlySkipped.length === 0;
}

/**
 * Merkle hashes of every directory over the (name, size, mtime) of what it
 * holds: equal root hashes mean an unchanged tree, and differing directory
 * hashes say where a change is.
 */
export function directoryHashes(scan: ScanResult): Map<string, { hash: string; fileCount: number }> {
  const children = new Map<string, string[]>();
  const fileCounts = new Map<string, number>();
  const addChild = (directory: string, line: string) => {
    let list = children.get(directory);
    if (!list) children.set(directory, (list = []));
    list.push(line);
  };
  for (const file of [...scan.files, ...scan.skipped]) {
    const slash = file.path.lastIndexOf("/");
    const directory = slash === -1 ? "" : file.path.slice(0, slash);
    addChild(directory, `f ${file.path.slice(slash + 1)} ${file.size} ${file.mtimeMs}`);
    for (let current = directory; ; ) {
      fileCounts.set(current, (fileCounts.get(current) ?? 0) + 1);
      if (current === "") break;
      const parentSlash = current.lastIndexOf("/");
      current = parentSlash === -1 ? "" : current.slice(0, parentSlash);
    }
  }
  // Deepest directories first, so each child's hash exists before its parent needs it.
  const directories = [...fileCounts.keys()].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1));
  const hashes = new Map<string, { hash: string; fileCount: number }>();
  for (const directory of directories) {
    const lines = (children.get(directory) ?? []).sort();
    const hash = createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 32);
    hashes.set(directory, { hash, fileCount: fileCounts.get(directory) ?? 0 });
    if (directory !== "") {
      const slash = directory.lastIndexOf("/");
      addChild(slash === -1 ? "" : directory.slice(0, slash), `d ${directory.slice(slash + 1)} ${hash}`);
    }
  }
  return hashes;
}

function depth(path: string): number {
  return path === "" ? 0 : path.split("/").length;
}
