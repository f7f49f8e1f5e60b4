import type { Embedder } from "../embedding/embedder.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { tokenize, tokenizePath } from "../parsing/code-tokenizer.js";
import { chunkTermCounts } from "../parsing/term-counts.js";
import type { SqliteDatabase } from "../store/database.js";
import type { EntryRepository } from "../store/entry-repository.js";
import type { FileRepository } from "../store/file-repository.js";
import type { VectorStore } from "../store/vector-store.js";
import { embeddingText } from "./file-processor.js";

export interface BackfillProgress {
  embedded: number;
  remaining: number;
}

/**
 * Fills in vectors that are missing: every chunk and entry when the
 * configured embedder is not the built-in one (its vectors come from a
 * server, not the workers), and any left behind by an interrupted run or an
 * unreachable server. Resumable by construction: it only looks at what is
 * missing.
 */
export class VectorBackfill {
  constructor(
    private readonly deps: {
      db: SqliteDatabase;
      files: FileRepository;
      entries: EntryRepository;
      vectors: VectorStore;
      embedder: Embedder;
      batchSize: number;
    },
  ) {}

  missingCount(): number {
    return this.deps.vectors.countMissing("chunk_vectors") + this.deps.vectors.countMissing("entry_vectors");
  }

  async *run(signal?: AbortSignal): AsyncGenerator<BackfillProgress> {
    const { vectors, embedder, files, entries, batchSize } = this.deps;
    let embedded = 0;
    for (;;) {
      signal?.throwIfAborted();
      const chunkIds = vectors.chunksWithoutVectors(batchSize);
      if (chunkIds.length === 0) break;
      const chunks = files.getChunks(chunkIds);
      const embeddings = await chunkVectors(embedder, chunks, signal);
      this.deps.db.transaction(() => {
        chunks.forEach((chunk, index) => {
          vectors.upsertChunk(chunk.id, embeddings[index] as Float32Array);
        });
      })();
      embedded += chunks.length;
      yield { embedded, remaining: this.missingCount() };
    }
    for (;;) {
      signal?.throwIfAborted();
      const docs = vectors.entriesWithoutVectors(batchSize);
      if (docs.length === 0) break;
      const stored = entries.getByDocs(docs);
      const embeddings = await embedder.embed(
        stored.map((row) => row.entry.content),
        "document",
        signal,
      );
      this.deps.db.transaction(() => {
        stored.forEach((row, index) => {
          vectors.upsertEntry(row.doc, embeddings[index] as Float32Array, {
            sessionId: row.entry.sessionId,
            contentType: row.entry.contentType,
          });
        });
      })();
      embedded += stored.length;
      yield { embedded, remaining: this.missingCount() };
    }
  }
}

/**
 * Vectors for stored chunks. The built-in embedder reads a chunk through the
 * same term counts the workers used, so a backfilled vector equals the one
 * indexing would have made; other embedders get the chunk as text.
 */
async function chunkVectors(
  embedder: Embedder,
  chunks: ReadonlyArray<{ path: string; symbols: string[]; content: string }>,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  if (embedder instanceof HashingEmbedder) {
    return chunks.map((chunk) => embedder.embedCounts(chunkTermCounts(tokenizePath(chunk.path), chunk.symbols, tokenize(chunk.content))));
  }
  const texts = chunks.map((chunk) => embeddingText(chunk.path, chunk.symbols, chunk.content));
  return embedder.embed(texts, "document", signal);
}
