import type { CodeVectorIndex } from "../search/code-vector-index.js";
import type { PersistentFullText } from "../search/persistent-full-text.js";
import type { SqliteDatabase } from "../store/database.js";
import type { FileRepository, ManifestEntry } from "../store/file-repository.js";
import type { VectorStore } from "../store/vector-store.js";
import type { ProcessedFile } from "./file-processor.js";
import type { SkippedFile } from "./scanner.js";

export interface BatchOutcome {
  indexed: number;
  unchangedContent: number;
  skipped: number;
  failed: number;
  chunks: number;
  failures: Array<{ path: string; reason: string }>;
}

/**
 * The main thread's only writer. A batch of processed files is committed in
 * one transaction (manifest rows, chunks, symbols, vectors); the in-memory
 * full-text index is updated only after the commit succeeded, so a file is
 * "done" exactly when its rows are durable.
 */
export class IndexWriter {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly files: FileRepository,
    private readonly vectors: VectorStore,
    private readonly fullText: PersistentFullText,
    private readonly vectorIndex: CodeVectorIndex,
  ) {}

  commitBatch(results: readonly ProcessedFile[], manifest: ReadonlyMap<string, ManifestEntry>): BatchOutcome {
    const outcome: BatchOutcome = { indexed: 0, unchangedContent: 0, skipped: 0, failed: 0, chunks: 0, failures: [] };
    const added: Array<{ id: number; terms: string; length: number }> = [];
    const addedVectors: Array<{ id: number; vector: Float32Array }> = [];
    const removed: number[] = [];

    this.db.transaction(() => {
      for (const result of results) {
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
          // Touched but not changed (checkout, `touch`): keep the chunks, remember the new stat.
          this.files.upsertFile(record);
          outcome.unchangedContent++;
          continue;
        }
        const fileId = this.files.upsertFile(record);
        const oldChunkIds = this.files.chunkIdsOf(fileId);
        if (oldChunkIds.length > 0) {
          this.vectors.deleteChunks(oldChunkIds);
          removed.push(...oldChunkIds);
        }
        const chunkIds = this.files.replaceChunks(fileId, result.chunks);
        this.files.replaceSymbols(fileId, result.symbols);
        result.chunks.forEach((chunk, index) => {
          const id = chunkIds[index] as number;
          if (chunk.vector) {
            this.vectors.insertChunk(id, chunk.vector);
            addedVectors.push({ id, vector: chunk.vector });
          }
          added.push({ id, terms: chunk.terms, length: chunk.termCount });
        });
        outcome.chunks += chunkIds.length;
        if (result.status === "indexed") outcome.indexed++;
        else if (result.status === "skipped") outcome.skipped++;
        else {
          outcome.failed++;
          outcome.failures.push({ path: result.path, reason: result.reason ?? "unknown error" });
        }
      }
    })();

    this.fullText.apply(removed, added);
    this.vectorIndex.apply(removed, addedVectors);
    return outcome;
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
