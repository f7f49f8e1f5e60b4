import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readlinkSync, rmSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { fileKind, readRegularFile } from "../files/regular-file.js";
import { replaceFile } from "../files/replace-file.js";
import { LinkLoopError, resolveLinks } from "../files/resolve-links.js";
import type { FileCheckpoint } from "../store/checkpoint-repository.js";

/** What restoring one file would do: write its old bytes, remove it (the agent created it), or nothing, and why. */
export type RestorePlan =
  | { kind: "write"; bytes: Buffer; conflict: boolean }
  | { kind: "remove"; conflict: boolean }
  | { kind: "refused"; reason: string };

/**
 * How one file goes back to its earliest checkpoint among `history`
 * (oldest first), judged without following any link: a file that became a
 * link (to a file outside the project holding the very bytes Sylk wrote,
 * say) or sits under a directory that became one is refused, never written
 * through. `conflict`: the file is no longer what the latest write left.
 */
export function planRestore(history: readonly FileCheckpoint[]): RestorePlan {
  const earliest = history[0] as FileCheckpoint;
  const latest = history.at(-1) as FileCheckpoint;
  const now = currentFile(earliest.absolute);
  if ("refused" in now) return { kind: "refused", reason: now.refused };
  const conflict = now.bytes === null || createHash("sha256").update(now.bytes).digest("hex") !== latest.afterHash;
  if (earliest.before === null) return { kind: "remove", conflict };
  return { kind: "write", bytes: earliest.before, conflict };
}

/** Carries out a plan that is not a refusal; the path was judged by `planRestore` just before. */
export function applyRestore(path: string, plan: Exclude<RestorePlan, { kind: "refused" }>): void {
  if (plan.kind === "remove") {
    rmSync(path, { force: true }); // a link swapped in since is removed itself, never followed
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  replaceFile(path, plan.bytes);
}

/** The file's bytes now (null: not there), or why it must not be touched. */
function currentFile(path: string): { bytes: Buffer | null } | { refused: string } {
  const parent = dirname(path);
  let realParent: string;
  try {
    realParent = resolveLinks(parent);
  } catch (error) {
    if (error instanceof LinkLoopError) return { refused: "its directory now leads through a loop of symbolic links." };
    throw error;
  }
  if (realParent !== parent) return { refused: `a directory on its path is now a symbolic link (to ${realParent}); a restore never writes through a link.` };
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { bytes: null };
    throw error;
  }
  if (stats.isSymbolicLink()) {
    return { refused: `it is now a symbolic link (to ${readlinkSync(path)}); a restore never writes through a link. Remove the link and restore again.` };
  }
  if (!stats.isFile()) return { refused: `it is now ${fileKind(stats)}, not a regular file.` };
  return { bytes: readRegularFile(path, { noFollow: true }) };
}
