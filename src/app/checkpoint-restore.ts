import { lstatSync, mkdirSync, readlinkSync, rmSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { fileKind, readRegularFile } from "../files/regular-file.js";
import { replaceFile } from "../files/replace-file.js";
import { LinkLoopError, resolveLinks } from "../files/resolve-links.js";
import type { FileCheckpoint } from "../store/checkpoint-repository.js";
import type { CheckpointFingerprints } from "./checkpoint-fingerprint.js";
import { fillMaskedLines, holdsMaskMarkers, maskedLinesOf, type UnfilledLine } from "./checkpoint-masking.js";

/** What restoring one file would do: write its old bytes, remove it (the agent created it), or nothing, and why. */
export type RestorePlan =
  | { kind: "write"; bytes: Buffer; conflict: boolean }
  | { kind: "remove"; conflict: boolean }
  | { kind: "refused"; reason: string };

/** The masked lines a refusal shows, at most. */
const SHOWN_LINES = 5;

/**
 * How one file goes back to its earliest checkpoint among `history`
 * (oldest first), judged without following any link: a file that became a
 * link (to a file outside the project holding the very bytes Sylk wrote,
 * say) or sits under a directory that became one is refused, never written
 * through. `conflict`: the file is no longer what the latest write left.
 * A masked checkpoint is filled in from the file as it is now and must
 * then match the fingerprint of what it was; otherwise it is refused
 * with the lines that could not be restored.
 */
export function planRestore(history: readonly FileCheckpoint[], fingerprints: CheckpointFingerprints): RestorePlan {
  const earliest = history[0] as FileCheckpoint;
  const latest = history.at(-1) as FileCheckpoint;
  const now = currentFile(earliest.absolute);
  if ("refused" in now) return { kind: "refused", reason: now.refused };
  const conflict = now.bytes === null || !fingerprints.matches(now.bytes, latest.afterHash);
  if (earliest.before === null) return { kind: "remove", conflict };
  if (earliest.beforeFingerprint === null || !holdsMaskMarkers(earliest.before)) return { kind: "write", bytes: earliest.before, conflict };
  const masked = maskedLinesOf(earliest.before);
  if (now.bytes === null) return { kind: "refused", reason: secretsLost("the file is gone, so they cannot be filled in", masked) };
  const filled = fillMaskedLines(earliest.before, now.bytes);
  if ("unfilled" in filled)
    return { kind: "refused", reason: secretsLost("these lines are no longer in the file to fill them in from", filled.unfilled) };
  if (!fingerprints.matches(filled.bytes, earliest.beforeFingerprint)) {
    return { kind: "refused", reason: secretsLost("the values in the file now are not the ones it had", masked) };
  }
  return { kind: "write", bytes: filled.bytes, conflict };
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
  if (realParent !== parent)
    return { refused: `a directory on its path is now a symbolic link (to ${realParent}); a restore never writes through a link.` };
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { bytes: null };
    throw error;
  }
  if (stats.isSymbolicLink()) {
    return {
      refused: `it is now a symbolic link (to ${readlinkSync(path)}); a restore never writes through a link. Remove the link and restore again.`,
    };
  }
  if (!stats.isFile()) return { refused: `it is now ${fileKind(stats)}, not a regular file.` };
  return { bytes: readRegularFile(path, { noFollow: true }) };
}

function secretsLost(why: string, lines: readonly UnfilledLine[]): string {
  const shown = lines.slice(0, SHOWN_LINES).map((line) => `  line ${line.line}: ${line.text}`);
  const more = lines.length > SHOWN_LINES ? [`  … and ${lines.length - SHOWN_LINES} more`] : [];
  return [`Sylk stored it with its secrets masked, and ${why}:`, ...shown, ...more].join("\n");
}
