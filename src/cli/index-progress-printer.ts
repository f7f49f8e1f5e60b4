import type { UnindexableReason } from "../indexer/directory-listing.js";
import type { IndexProgress, IndexSummary } from "../indexer/project-indexer.js";
import { describeProgress } from "../format/index-progress.js";
import { formatCount, formatDuration } from "../format/numbers.js";
import { terminalField } from "./terminal-text.js";
import { terminalJson } from "../format/terminal-json.js";
import { describeRepair } from "../store/snapshot-damage.js";

export type ProgressStyle = "bar" | "lines" | "json";

/** Why an entry was not indexed, in words (the JSON summary carries the reason code). */
const UNINDEXABLE_WORDS: Readonly<Record<UnindexableReason, string>> = {
  fifo: "a FIFO (named pipe), not a regular file; never read",
  socket: "a socket, not a regular file; never read",
  device: "a device, not a regular file; never read",
  "name-not-utf8": "its name is not UTF-8, which Sylk's tools cannot name; rename it to index it",
};

/**
 * Draws indexing progress: a bar redrawn in place on a terminal, plain lines
 * (at most one every few seconds) when output is piped, or one JSON event a
 * line with `--json`.
 */
export class IndexProgressPrinter {
  private lastLineAt = 0;
  private lastPhase: string | undefined;

  constructor(
    private readonly style: ProgressStyle,
    private readonly stderr: NodeJS.WritableStream,
    private readonly stdout: NodeJS.WritableStream,
  ) {}

  update(progress: IndexProgress): void {
    if (this.style === "json") {
      this.stdout.write(`${terminalJson({ type: "progress", ...progress })}\n`);
      return;
    }
    const line = describeProgress(progress);
    if (this.style === "bar") {
      this.stderr.write(`\r\x1b[2K${line}`);
      if (progress.phase === "complete") this.stderr.write("\n");
      return;
    }
    const now = Date.now();
    const phaseChanged = progress.phase !== this.lastPhase;
    if (phaseChanged || now - this.lastLineAt >= 2000 || progress.phase === "complete") {
      this.stderr.write(`${line}\n`);
      this.lastLineAt = now;
    }
    this.lastPhase = progress.phase;
  }

  /**
   * Another process holds the index lock: said on stderr in every style,
   * and as a `waiting` event too with `--json`, so that a program reading
   * the events (the interactive session's indexing process) can show it.
   */
  waiting(holderPid: number): void {
    this.stderr.write(`Another sylk process (pid ${holderPid}) is indexing this project; waiting for it to finish…\n`);
    if (this.style === "json") this.stdout.write(`${terminalJson({ type: "waiting", pid: holderPid })}\n`);
  }

  /** A stale lock was taken over: one line on stderr, and a `notice` event with `--json`. */
  notice(text: string): void {
    // The reason may quote the lock file, which names a path.
    this.stderr.write(`${terminalField(text)}\n`);
    if (this.style === "json") this.stdout.write(`${terminalJson({ type: "notice", text })}\n`);
  }

  /** Vectors embedded after the files are in (a configured embedder); with `--json`, an `embedding` event. */
  embedding(embedded: number, remaining: number): void {
    if (this.style === "json") {
      this.stdout.write(`${terminalJson({ type: "embedding", embedded, remaining })}\n`);
      return;
    }
    if (this.style === "bar") this.stderr.write(`\r\x1b[2KEmbedded ${formatCount(embedded)} (${formatCount(remaining)} left)`);
  }

  summary(summary: IndexSummary, extra: Record<string, unknown> = {}): void {
    if (this.style === "json") {
      this.stdout.write(`${terminalJson({ type: "summary", ...summary, ...extra })}\n`);
      return;
    }
    const lines: string[] = [];
    if (summary.before === "fresh") {
      lines.push(`Index is fresh (${formatCount(summary.scanned)} files checked in ${formatDuration(summary.durationMs)}).`);
    } else {
      lines.push(
        `${summary.interrupted ? "Interrupted" : "Done"}: ${formatCount(summary.indexed)} files indexed, ` +
          `${formatCount(summary.chunks)} chunks, ${formatCount(summary.deleted)} removed, ` +
          `${formatCount(summary.skipped)} skipped, ${formatCount(summary.failed)} failed ` +
          `in ${formatDuration(summary.durationMs)}.`,
      );
    }
    // Skipped and failed files are named by the repository: their paths and the reasons quoting them are shown escaped.
    for (const entry of summary.unindexable.examples)
      lines.push(`  skipped: ${terminalField(entry.path)}: ${UNINDEXABLE_WORDS[entry.reason]}`);
    if (summary.unindexable.count > summary.unindexable.examples.length) {
      lines.push(`  … and ${summary.unindexable.count - summary.unindexable.examples.length} more not indexed for the same reasons`);
    }
    for (const failure of summary.failures.slice(0, 10))
      lines.push(`  failed: ${terminalField(failure.path)}: ${terminalField(failure.reason)}`);
    if (summary.failures.length > 10) lines.push(`  … and ${summary.failures.length - 10} more (sylk status --json lists them)`);
    lines.push(...summary.repairedFullText.map(describeRepair));
    if (summary.interrupted) lines.push("Run `sylk index` again to finish; files already indexed are kept.");
    this.stdout.write(`${lines.join("\n")}\n`);
  }
}
