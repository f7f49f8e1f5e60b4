import { setImmediate as nextTurnOfEventLoop } from "node:timers/promises";
import type { CodeVectorIndex } from "../search/code-vector-index.js";
import type { PersistentFullText } from "../search/persistent-full-text.js";
import type { SqliteDatabase } from "../store/database.js";
import type { FileRecord, FileRepository, ManifestEntry } from "../store/file-repository.js";
import { FileSketches } from "../store/file-sketches.js";
import type { VectorStore } from "../store/vector-store.js";
import type { ProcessedFile } from "./file-processor.js";
import type { IndexPause } from "./index-pause.js";
import type { SkippedFile } from "./scan-results.js";

/**
 * Main-thread work one commit transaction may take before yielding, when
 * someone is typing. Without a screen to keep responsive a batch commits at
 * once: fewer, larger transactions made a cold index ≈ 15 % faster.
 */
export const INTERACTIVE_COMMIT_SLICE_MS = 4;
/** Chunks added to the full-text index between two looks at the clock. */
const FULL_TEXT_GROUP = 32;
/**
 * Main-thread work between two looks at a pausable run's `IndexPause` (a
 * session's index process, paused while its grep runs): the word to pause
 * arrives on this thread's event loop, so a batch committed in one piece
 * went on for 100–400 ms of CPU after the session asked.
 */
export const PAUSABLE_COMMIT_SLICE_MS = 20;

/** A run that may be paused, and the signal that stops it (a run stopped while paused commits what it has and ends). */
export interface Pausable {
  pause: IndexPause;
  signal?: AbortSignal | undefined;
}

interface SliceChanges {
  added: Array<{ id: number; terms: string; length: number }>;
  addedVectors: Array<{ id: number; vector: Float32Array }>;
  removed: number[];
}

/** What processing files added to the index: a batch's, and a run's in total (`IndexSummary`). */
export interface BatchOutcome {
  /** Files (re)indexed. */
  indexed: number;
  /** Touched files whose content hash had not changed. */
  unchangedContent: number;
  skipped: number;
  failed: number;
  chunks: number;
  failures: Array<{ path: string; reason: string }>;
}

/**
 * The main thread's only writer. Processed files are committed in
 * transactions (manifest rows, chunks, symbols, vectors); the in-memory
 * full-text index is updated only after the commit succeeded, so a file is
 * "done" exactly when its rows are durable.
 */
export class IndexWriter {
  private readonly sketches: FileSketches;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly files: FileRepository,
    private readonly vectors: VectorStore,
    private readonly fullText: PersistentFullText,
    private readonly vectorIndex: CodeVectorIndex,
    /** How long one slice of a commit may hold the thread (see `INTERACTIVE_COMMIT_SLICE_MS`); unbounded by default. */
    private readonly commitSliceMs = Number.POSITIVE_INFINITY,
  ) {
    this.sketches = new FileSketches(db);
  }

  /**
   * Commits a batch in slices of about `commitSliceMs` of main-thread
   * work, each its own transaction, letting the event loop run in between:
   * the interactive session indexes while the user types, and a whole batch
   * at once held keystrokes back for up to ~200 ms on a large repository.
   * A file is still all or nothing: its rows commit together.
   */
  async commitBatch(
    results: readonly ProcessedFile[],
    manifest: ReadonlyMap<string, ManifestEntry>,
    pausable?: Pausable,
  ): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { indexed: 0, unchangedContent: 0, skipped: 0, failed: 0, chunks: 0, failures: [] };
    const sliceMs = pausable ? Math.min(this.commitSliceMs, PAUSABLE_COMMIT_SLICE_MS) : this.commitSliceMs;
    let next = 0;
    while (next < results.length) {
      const started = performance.now();
      const changes: SliceChanges = { added: [], addedVectors: [], removed: [] };
      this.db.transaction(() => {
        do {
          this.writeFile(results[next] as ProcessedFile, manifest, outcome, changes);
          next++;
        } while (next < results.length && performance.now() - started < sliceMs / 2);
      })();
      await this.applyInMemory(changes, sliceMs, pausable);
      if (next < results.length) await this.between(pausable);
    }
    return outcome;
  }

  /** Lets the event loop run between two slices (keys, the word to pause), and waits there while paused. */
  private async between(pausable: Pausable | undefined): Promise<void> {
    await nextTurnOfEventLoop();
    await pausable?.pause.whenRunning(pausable.signal);
  }

  /**
   * The committed slice into the in-memory indexes. Adding to FlexSearch is
   * most of the main thread's indexing work (a few hundred terms a chunk),
   * so it is sliced by time too: a file of hundreds of chunks must not hold
   * the event loop either.
   */
  private async applyInMemory(changes: SliceChanges, sliceMs: number, pausable: Pausable | undefined): Promise<void> {
    this.vectorIndex.apply(changes.removed, changes.addedVectors);
    this.fullText.apply(changes.removed, []);
    const { added } = changes;
    let from = 0;
    while (from < added.length) {
      const started = performance.now();
      do {
        this.fullText.apply([], added.slice(from, from + FULL_TEXT_GROUP));
        from += FULL_TEXT_GROUP;
      } while (from < added.length && performance.now() - started < sliceMs);
      if (from < added.length) await this.between(pausable);
    }
  }

  private writeFile(
    result: ProcessedFile,
    manifest: ReadonlyMap<string, ManifestEntry>,
    outcome: BatchOutcome,
    changes: SliceChanges,
  ): void {
    const known = manifest.get(result.path);
    const record = {
      path: result.path,
      size: result.size,
      mtimeMs: result.mtimeMs,
      contentHash: result.contentHash,
      language: result.language,
      status: result.status,
      reason: result.reason,
      lineCount: result.lineCount,
      description: result.description,
      priority: result.priority,
    };
    if (result.status === "indexed" && known?.status === "indexed" && known.contentHash === result.contentHash) {
      // Touched but not changed (checkout, `touch`): keep the chunks, remember the new stat (and a sketch an index
      // written before sketches lacks).
      const fileId = this.files.upsertFile(record);
      this.sketches.replace(fileId, result.sketch);
      outcome.unchangedContent++;
      return;
    }
    const chunkIds = this.writeRows(record, result, known === undefined, changes);
    result.chunks.forEach((chunk, index) => {
      const id = chunkIds[index] as number;
      if (chunk.vector) {
        this.vectors.insertChunk(id, chunk.vector);
        changes.addedVectors.push({ id, vector: chunk.vector });
      }
      changes.added.push({ id, terms: chunk.terms, length: chunk.termCount });
    });
    outcome.chunks += chunkIds.length;
    if (result.status === "indexed") outcome.indexed++;
    else if (result.status === "skipped") outcome.skipped++;
    else {
      outcome.failed++;
      outcome.failures.push({ path: result.path, reason: result.reason ?? "unknown error" });
    }
  }

  /**
   * The file's manifest row, sketch, chunks and symbols; returns the chunks'
   * ids. A file the manifest did not know gets a new row, and nothing of a
   * new row exists to look up or delete (`FileRepository.insertNewFile`):
   * on a first index that was three statements a file for nothing, and an
   * upsert where an insert does.
   */
  private writeRows(record: FileRecord, result: ProcessedFile, unknown: boolean, changes: SliceChanges): number[] {
    const newFileId = unknown ? this.files.insertNewFile(record) : undefined;
    if (newFileId !== undefined) {
      if (result.status === "indexed" && result.sketch) this.sketches.replace(newFileId, result.sketch);
      const chunkIds = this.files.insertChunks(newFileId, result.chunks);
      this.files.insertSymbols(newFileId, result.symbols);
      return chunkIds;
    }
    const fileId = this.files.upsertFile(record);
    this.sketches.replace(fileId, result.status === "indexed" ? result.sketch : null);
    const oldChunkIds = this.files.chunkIdsOf(fileId);
    if (oldChunkIds.length > 0) {
      this.vectors.deleteChunks(oldChunkIds);
      changes.removed.push(...oldChunkIds);
    }
    const chunkIds = this.files.replaceChunks(fileId, result.chunks);
    this.files.replaceSymbols(fileId, result.symbols);
    return chunkIds;
  }

  /** Records files ruled out by name or size, dropping anything indexed for them before. */
  recordSkipped(skipped: readonly SkippedFile[]): void {
    const removed: number[] = [];
    this.db.transaction(() => {
      for (const file of skipped) {
        const fileId = this.files.upsertFile({
          path: file.path,
          size: file.size,
          mtimeMs: file.mtimeMs,
          contentHash: null,
          language: null,
          status: "skipped",
          reason: file.reason,
          lineCount: 0,
          description: null,
          priority: 0,
        });
        this.sketches.replace(fileId, null);
        const chunkIds = this.files.chunkIdsOf(fileId);
        if (chunkIds.length > 0) {
          this.vectors.deleteChunks(chunkIds);
          this.files.replaceChunks(fileId, []);
          this.files.replaceSymbols(fileId, []);
          removed.push(...chunkIds);
        }
      }
    })();
    this.fullText.apply(removed, []);
    this.vectorIndex.apply(removed, []);
  }

  /** Removes deleted (or newly ignored) files with everything indexed for them. */
  deleteFiles(paths: readonly string[]): number {
    const removed: number[] = [];
    this.db.transaction(() => {
      for (const path of paths) {
        const chunkIds = this.files.deleteFile(path);
        this.vectors.deleteChunks(chunkIds);
        removed.push(...chunkIds);
      }
    })();
    this.fullText.apply(removed, []);
    this.vectorIndex.apply(removed, []);
    return removed.length;
  }
}
