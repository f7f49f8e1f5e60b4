import type { FullTextIndexDamage } from "../store/snapshot-damage.js";
import type { UnindexableReason } from "./directory-listing.js";
import type { BatchOutcome } from "./index-writer.js";
import type { IndexState } from "./project-indexer.js";
import type { SkippedFile, SkipReason } from "./scan-results.js";

/** What an index run reports (`sylk index --json`'s summary), and how a run adds to it. */
export interface IndexSummary extends BatchOutcome {
  /** What the index was before this run. */
  before: IndexState;
  scanned: number;
  added: number;
  changed: number;
  deleted: number;
  /** Newly seen entries that are not files Sylk can read or name (FIFOs, sockets, devices, names that are not UTF-8): counted in `skipped`, a few shown. */
  unindexable: { count: number; examples: Array<{ path: string; reason: UnindexableReason }> };
  /** Full-text indexes whose snapshot was damaged, rebuilt from their tables' stored terms in this run. */
  repairedFullText: FullTextIndexDamage[];
  interrupted: boolean;
  durationMs: number;
  /**
   * Set when the run found more files to index than `RunOptions.handOffAbove`
   * and did nothing, for another process to do. When the index was missing
   * the walk stopped there, so `scanned` and `added` count only that far.
   */
  handedOff?: true;
}

/** A summary of a run that did nothing yet: what each run starts from, and what one handed off or stopped early reports. */
export function emptyIndexSummary(before: IndexState): IndexSummary {
  return {
    before,
    scanned: 0,
    added: 0,
    changed: 0,
    deleted: 0,
    indexed: 0,
    unchangedContent: 0,
    skipped: 0,
    failed: 0,
    chunks: 0,
    failures: [],
    unindexable: { count: 0, examples: [] },
    repairedFullText: [],
    interrupted: false,
    durationMs: 0,
  };
}

/** How many unindexable entries a summary names. */
const UNINDEXABLE_EXAMPLES = 10;
const UNINDEXABLE_REASONS: ReadonlySet<SkipReason> = new Set<UnindexableReason>(["fifo", "socket", "device", "name-not-utf8"]);

export function unindexableOf(skipped: readonly SkippedFile[]): IndexSummary["unindexable"] {
  const entries = skipped.flatMap((file) =>
    UNINDEXABLE_REASONS.has(file.reason) ? [{ path: file.path, reason: file.reason as UnindexableReason }] : [],
  );
  return { count: entries.length, examples: entries.slice(0, UNINDEXABLE_EXAMPLES) };
}

export function addOutcome(summary: IndexSummary, outcome: BatchOutcome): void {
  summary.indexed += outcome.indexed;
  summary.unchangedContent += outcome.unchangedContent;
  summary.skipped += outcome.skipped;
  summary.failed += outcome.failed;
  summary.chunks += outcome.chunks;
  summary.failures.push(...outcome.failures);
}
