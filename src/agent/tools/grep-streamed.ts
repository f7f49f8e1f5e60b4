import { type Candidate, type SearchOfFiles, searchOfCandidates } from "./grep-files.js";
import type { NumberedLine } from "./grep-lines.js";
import type { FileHits } from "./grep-matcher.js";
import { capped } from "./grep-run.js";
import type { GrepOutcome, GrepThread } from "./grep-thread.js";

/** At most this many files are matched while ripgrep still lists: past them, matching in order can stop at `maxResults`. */
export const STREAMED_FILES = 2_000;

/**
 * Matching the files ripgrep names while it still reads the tree. ripgrep
 * writes them a few at a time, and used to be waited for before the first
 * was matched: on a large tree its read takes most of a search, so the
 * matching after it was time added to ripgrep's. Here each batch goes to
 * grep's threads as it comes, one block at a time (a second search at once
 * would start threads of its own), and what each file holds is kept. Once
 * the list is whole, `outcome` matches the files not yet matched, in order,
 * and puts every file's lines in the list's order, as one search of the
 * list would have.
 */
export class StreamedMatching {
  /** Lines of each file matched ahead (empty: none), by absolute path. */
  private readonly matched = new Map<string, NumberedLine[]>();
  private queued: string[] = [];
  private taken = 0;
  private draining: Promise<void> | undefined;

  constructor(
    private readonly thread: GrepThread,
    private readonly search: SearchOfFiles,
    private readonly signal: AbortSignal,
  ) {}

  /** Whether any file was matched ahead: if not, the list is searched as any other. */
  get started(): boolean {
    return this.taken > 0;
  }

  /** Files named so far: matched as soon as the threads are free. */
  readonly found = (files: readonly Candidate[]): void => {
    for (const file of files) {
      if (this.taken >= STREAMED_FILES) break;
      this.queued.push(file.absolute);
      this.taken++;
    }
    if (this.queued.length > 0) this.draining ??= this.drain();
  };

  private async drain(): Promise<void> {
    while (this.queued.length > 0 && !this.signal.aborted) {
      const files = this.queued;
      this.queued = [];
      const outcome = await this.thread.search({ ...this.search, files }, this.signal);
      // A block stopped early (a file over its time, `maxResults` reached in it) is matched again in order, where that is told.
      if (outcome.end.kind !== "done" || outcome.end.more) continue;
      const lines = new Map(outcome.hits.map((hits) => [hits.file, hits.lines]));
      files.forEach((file, index) => {
        this.matched.set(file, lines.get(index) ?? []);
      });
    }
    this.draining = undefined;
  }

  /**
   * The search of `files` (the whole list, in order): the files not matched
   * ahead are matched now, and the lines of all of them are listed up to
   * `maxResults`, as `GrepThread.search` of the list would.
   */
  async outcome(files: readonly Candidate[], search: SearchOfFiles): Promise<GrepOutcome> {
    // Names queued and not yet taken are matched in order with the rest: waiting for another block would be slower.
    this.queued = [];
    await this.draining;
    const unmatched: number[] = [];
    files.forEach((file, index) => {
      if (!this.matched.has(file.absolute)) unmatched.push(index);
    });
    const rest =
      unmatched.length === 0
        ? { hits: [], end: { kind: "done", more: false } as const }
        : await this.thread.search(
            searchOfCandidates(
              search,
              unmatched.map((index) => files[index] as Candidate),
            ),
            this.signal,
          );
    if (rest.end.kind === "cancelled") return rest;
    const lines = new Map<number, NumberedLine[]>();
    for (const hits of rest.hits) lines.set(unmatched[hits.file] as number, hits.lines);
    files.forEach((file, index) => {
      const ahead = this.matched.get(file.absolute);
      if (ahead && ahead.length > 0) lines.set(index, ahead);
    });
    // A file over its time stops the search there, as in order: what lies before it is listed.
    const stoppedAt = rest.end.kind === "slow" ? (unmatched[rest.end.file] as number) : files.length;
    const inOrder: FileHits[] = [...lines]
      .filter(([file]) => file < stoppedAt)
      .sort((a, b) => a[0] - b[0])
      .map(([file, found]) => ({ file, lines: found }));
    const hits = capped(inOrder, search.maxResults);
    const total = inOrder.reduce((sum, each) => sum + each.lines.length, 0);
    if (total > search.maxResults) return { hits, end: { kind: "done", more: true } };
    if (rest.end.kind === "slow") return { hits, end: { kind: "slow", file: stoppedAt } };
    return { hits, end: { kind: "done", more: rest.end.more } };
  }
}
