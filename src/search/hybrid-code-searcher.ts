import type { SearchConfig } from "../config/schema.js";
import type { Embedder } from "../embedding/embedder.js";
import type { FileRepository, StoredChunk } from "../store/file-repository.js";
import type { VectorStore } from "../store/vector-store.js";
import { fullTextQuery } from "./full-text-document.js";
import type { CodeVectorIndex } from "./code-vector-index.js";
import { documentKindWeight, orderByDocumentKind } from "./document-kind.js";
import type { PersistentFullText } from "./persistent-full-text.js";
import type { SearchOutcome } from "./search-outcome.js";
import { relativeScoreFusion } from "./relative-score-fusion.js";
import type { RankedList, SignalEvidence } from "./rrf.js";
import { snippetFor } from "./snippet.js";
import { errorMessage } from "../errors.js";

export type CodeSignal = "fulltext" | "vector";
export const CODE_SIGNALS: readonly CodeSignal[] = ["fulltext", "vector"];

/** A vector search under way; wrapped so that awaiting its start does not await its hits. */
interface VectorRun {
  hits: Promise<Array<{ id: number; score: number }>>;
  /** The embedded query, once embedding succeeded. */
  query?: Float32Array;
}

export interface CodeSearchHit {
  chunkId: number;
  path: string;
  startLine: number;
  endLine: number;
  language: string | null;
  symbols: string[];
  /** Fused score (relative score fusion); comparable only within one result list. */
  score: number;
  /** Each signal's own rank and score for this hit. */
  signals: Partial<Record<CodeSignal, SignalEvidence>>;
  snippet: string;
  content: string;
  fileLineCount: number;
  fileDescription: string | null;
}

export interface CodeSearchOptions {
  limit?: number;
  /** Signals to use; all by default. */
  signals?: readonly CodeSignal[];
  /** Hits per file; 1 by default (the best chunk of each file). */
  perFile?: number;
  /** Multiplies a signal's share of the fused score (1 by default): what self-tuning retrieval learns for prefetch. */
  signalWeights?: Partial<Record<CodeSignal, number>>;
}

export interface HybridCodeSearcherDeps {
  files: FileRepository;
  fullText: PersistentFullText;
  vectors: VectorStore;
  /** The in-memory hot tier of the vector signal, used once warm; a one-off search has none. */
  vectorIndex?: CodeVectorIndex;
  embedder: Embedder;
  config: SearchConfig;
  /**
   * Called after a search that read the database in bulk: one that loaded
   * the full-text index or the vector tier, or whose vector signal scanned
   * sqlite-vec's table (every stored vector) because the tier is not loaded;
   * and after `warm`. The process may then drop the pages of the file it
   * mapped for them (`releaseMappedPagesWhenIdle`).
   */
  afterBulkRead?: () => void;
}

/**
 * Code search over both signals: BM25 over FlexSearch postings and sqlite-vec
 * k-NN, fused by their relative scores (`relative-score-fusion.ts`), so that
 * full text's clear lead survives the vectors' mild disagreement. Each signal
 * returns hits or an error; a failed signal degrades the search to the other
 * and says so.
 *
 * How much the vectors may say depends on the embedder. A trained model's
 * neighbours are evidence of their own and fuse with equal weight. The
 * built-in embedder's vectors know only spelling, like full text, so they
 * only corroborate: they re-order the files full text found and bring in none
 * of their own (unless full text found nothing). With equal weights their
 * neighbours outside full text's hits pushed its finds out of the top ten on
 * a large repository (docs/BENCHMARKS.md, "Fusion that trusts each signal").
 *
 * Every signal ranks its hits by score weighted by the kind of file they are
 * in (`document-kind.ts`): a changelog, a docs page or a test that shares a
 * description's words counts half of the source file it describes.
 */
export class HybridCodeSearcher {
  /**
   * Chunk id → file id, remembered: a chunk never moves to another file and
   * ids are never reused, so entries never go stale. Looking them up in
   * SQLite took ≈ 0.6 ms of every search.
   */
  private readonly fileOfChunk = new Map<number, number>();
  /** Chunk id → the weight of its file's kind, for chunks of files that are not source code (the rest weigh 1); remembered as above. */
  private readonly kindWeightOfChunk = new Map<number, number>();
  /** File id → its path, which decides between equally scored hits (`inTieOrder`); remembered as above. */
  private readonly pathOfFile = new Map<number, string>();

  constructor(private readonly deps: HybridCodeSearcherDeps) {}

  /**
   * Loads what a long-lived process searches from (the full-text index, the
   * in-memory vector tier, the chunk → file map), so that no search pays for
   * it. A one-off search skips this and reads from the store instead.
   */
  warm(): void {
    if (!this.deps.fullText.isLoaded) this.deps.fullText.load();
    this.deps.vectorIndex?.warm();
    for (const [chunkId, fileId, path, language] of this.deps.files.chunkFiles()) this.remember(chunkId, fileId, path, language);
    this.deps.afterBulkRead?.();
  }

  /** How many of the full-text index and the vector tier are in memory. */
  private get partsLoaded(): number {
    return Number(this.deps.fullText.isLoaded) + Number(this.deps.vectorIndex?.isWarm ?? false);
  }

  async search(query: string, options: CodeSearchOptions = {}): Promise<SearchOutcome<CodeSearchHit>> {
    const loadedBefore = this.partsLoaded;
    const scansStore = (options.signals ?? CODE_SIGNALS).includes("vector") && !this.deps.vectorIndex?.isWarm;
    try {
      return await this.searchLoaded(query, options);
    } finally {
      // sqlite-vec's scan reads every stored vector (88 MB on a 27k-file project) through the map as well,
      // as it did when the vector tier was dropped during the search to be loaded again (`CodeVectorIndex`).
      if (scansStore || this.partsLoaded !== loadedBefore) this.deps.afterBulkRead?.();
    }
  }

  private async searchLoaded(query: string, options: CodeSearchOptions): Promise<SearchOutcome<CodeSearchHit>> {
    const limit = options.limit ?? this.deps.config.defaultLimit;
    const perFile = options.perFile ?? 1;
    const signals = options.signals ?? CODE_SIGNALS;
    const candidates = {
      fulltext: Math.max(this.deps.config.candidatesPerSignal, limit * 4),
      vector: Math.max(this.deps.config.vectorCandidates, limit * 4),
    };
    const lists: Array<RankedList<number>> = [];
    const degraded: string[] = [];
    let fulltextIdealScore: number | undefined;

    // The vector scan may run on another thread (CodeVectorIndex.nearestAsync):
    // embed, post the scan, then score full text here while it runs.
    const vectorRun = signals.includes("vector") ? await this.startVectorSearch(query, candidates.vector) : undefined;
    const running = signals.map(async (signal) => {
      if (signal === "vector") return { signal, hits: await (vectorRun as VectorRun).hits };
      const result = this.deps.fullText.searchWithIdealScore(fullTextQuery(query), candidates.fulltext);
      fulltextIdealScore = result.idealScore;
      return { signal, hits: result.hits };
    });
    // Full text was scored synchronously just above: this thread now helps the
    // vector scan with whatever blocks the scan thread has not reached.
    if (vectorRun) this.deps.vectorIndex?.helpScan();
    const attempts = await Promise.allSettled(running);
    attempts.forEach((attempt, index) => {
      if (attempt.status === "rejected") {
        degraded.push(`${signals[index]} search failed: ${errorMessage(attempt.reason)}`);
        return;
      }
      const { signal, hits } = attempt.value;
      const weight = options.signalWeights?.[signal];
      const corroboratesOnly = signal === "vector" && this.deps.embedder.evidence === "spelling";
      lists.push({ signal, hits, ...(weight !== undefined ? { weight } : {}), ...(corroboratesOnly ? { corroboratesOnly } : {}) });
    });
    if (lists.length === 0 && degraded.length > 0) throw new Error(`Search failed: ${degraded.join("; ")}`);
    this.learnFilesOf(lists.flatMap((list) => list.hits.map((hit) => hit.id)));
    // Each signal kept every hit that ties its last: cut them here, in the order of their paths.
    for (const list of lists) list.hits = this.inTieOrder(list.hits).slice(0, candidates[list.signal as CodeSignal]);
    const corroborating = lists.find((list) => list.corroboratesOnly);
    const fulltext = lists.find((list) => list.signal === "fulltext");
    if (corroborating && fulltext && vectorRun?.query) {
      corroborating.hits = this.voteOnEvery(vectorRun.query, corroborating.hits, fulltext.hits);
    }
    const kindWeight = (chunkId: number) => this.kindWeightOfChunk.get(chunkId) ?? 1;
    for (const list of lists) list.hits = orderByDocumentKind(list.hits, kindWeight);

    const hits = this.fuseByFile(lists, limit, perFile, query);
    // Known once full text answered; a full-text signal that failed has no ideal score to give.
    if (fulltextIdealScore === undefined) return { hits, degraded };
    return { hits, degraded, fulltextIdealScore };
  }

  /**
   * Fusion happens per file: each signal's chunk ranking becomes a file
   * ranking (a file scores what its best chunk does), and those are fused, so
   * two signals agreeing on a file count even when they liked different parts
   * of it. Each file is then shown by its chunks in chunk-level fused order.
   */
  private fuseByFile(lists: ReadonlyArray<RankedList<number>>, limit: number, perFile: number, query: string): CodeSearchHit[] {
    const fileOf = this.fileOfChunk;
    const fileLists = lists.map((list): RankedList<number> => {
      const seen = new Set<number>();
      const hits = list.hits.flatMap((hit) => {
        const fileId = fileOf.get(hit.id);
        if (fileId === undefined || seen.has(fileId)) return [];
        seen.add(fileId);
        return [{ ...hit, id: fileId }];
      });
      return { ...list, hits };
    });
    const files = relativeScoreFusion(fileLists).slice(0, limit);
    const chunksByFile = new Map<number, number[]>();
    for (const hit of relativeScoreFusion(lists)) {
      const fileId = fileOf.get(hit.id);
      if (fileId === undefined) continue;
      const list = chunksByFile.get(fileId) ?? [];
      if (list.length < perFile) list.push(hit.id);
      chunksByFile.set(fileId, list);
    }
    const shown = files.flatMap((file) => chunksByFile.get(file.id) ?? []);
    const chunks = new Map(this.deps.files.getChunks(shown).map((chunk) => [chunk.id, chunk]));
    return files.flatMap((file) =>
      (chunksByFile.get(file.id) ?? []).flatMap((chunkId) => {
        const chunk = chunks.get(chunkId);
        return chunk ? [toHit(chunk, file.score, file.signals as CodeSearchHit["signals"], query)] : [];
      }),
    );
  }

  /**
   * A corroborating vector signal ranks every chunk full text found, not only
   * those among its own nearest: each gets its similarity, and the list is
   * its nearest and these, best first. Voting only where its top k happened to
   * reach made a vote a bonus that lifted a file far above full text's better
   * hits the vectors did not reach, which cost recall on a large repository
   * (docs/BENCHMARKS.md, "Fusion that trusts each signal").
   */
  private voteOnEvery(
    query: Float32Array,
    nearest: ReadonlyArray<{ id: number; score: number }>,
    found: ReadonlyArray<{ id: number; score: number }>,
  ): Array<{ id: number; score: number }> {
    const scored = new Set(nearest.map((hit) => hit.id));
    const unscored = [...new Set(found.map((hit) => hit.id))].filter((id) => !scored.has(id));
    const { vectorIndex } = this.deps;
    // The source the nearest came from, so that all these similarities compare.
    const similarities = vectorIndex?.isWarm
      ? vectorIndex.similarities(query, unscored)
      : this.deps.vectors.chunkSimilarities(query, unscored);
    const rest = similarities.map((hit) => ({ id: hit.id, score: hit.similarity }));
    return this.inTieOrder([...nearest, ...rest]);
  }

  /**
   * Hits best first, equal scores in the order of their files' paths and,
   * within a file, of its chunks. That order is the same in every index of
   * the same tree; chunk and file ids are not (they follow the order the
   * index's worker threads finished files), so ranking ties by id ranked
   * them differently in two indexes. A file's chunks are inserted together,
   * in order, so their ids follow their ordinals and decide within a file.
   * Chunks whose file is unknown (deleted since found) come last.
   */
  private inTieOrder<Hit extends { id: number; score: number }>(hits: readonly Hit[]): Hit[] {
    const pathOf = (chunkId: number) => {
      const fileId = this.fileOfChunk.get(chunkId);
      return fileId === undefined ? undefined : this.pathOfFile.get(fileId);
    };
    const inPathOrder = (a: Hit, b: Hit): number => {
      const pathA = pathOf(a.id);
      const pathB = pathOf(b.id);
      if (pathA === pathB) return a.id - b.id;
      if (pathA === undefined || pathB === undefined) return pathA === undefined ? 1 : -1;
      return pathA < pathB ? -1 : 1;
    };
    return [...hits].sort((a, b) => b.score - a.score || inPathOrder(a, b));
  }

  /** Looks up the file of each chunk not yet remembered (a chunk deleted since it was found stays unknown, and is dropped). */
  private learnFilesOf(chunkIds: readonly number[]): void {
    const unknown = [...new Set(chunkIds)].filter((id) => !this.fileOfChunk.has(id));
    for (const [chunkId, file] of this.deps.files.filesOfChunks(unknown)) this.remember(chunkId, file.fileId, file.path, file.language);
  }

  private remember(chunkId: number, fileId: number, path: string, language: string | null): void {
    this.fileOfChunk.set(chunkId, fileId);
    this.pathOfFile.set(fileId, path);
    const weight = documentKindWeight(path, language);
    if (weight !== 1) this.kindWeightOfChunk.set(chunkId, weight);
  }

  /**
   * Embeds the query and starts the k-NN search; resolves once it is under
   * way, to the promise of its hits (a failure surfaces there, so the
   * search degrades to full text).
   */
  private async startVectorSearch(query: string, candidates: number): Promise<VectorRun> {
    let vector: Float32Array | undefined;
    try {
      [vector] = await this.deps.embedder.embed([query], "query");
    } catch (error) {
      return { hits: Promise.reject(error as Error) };
    }
    if (!vector) return { hits: Promise.reject(new Error("the embedder returned no vector")) };
    const queryVector = vector;
    // Unweighted on purpose: IDF-weighting code queries lowered hybrid recall@10 0.860 → 0.833 (docs/BENCHMARKS.md).
    const { vectorIndex } = this.deps;
    const found = vectorIndex?.isWarm
      ? vectorIndex.nearestAsync(queryVector, candidates)
      : Promise.resolve().then(() => this.deps.vectors.nearestChunks(queryVector, candidates));
    return { hits: found.then((hits) => hits.map((hit) => ({ id: hit.id, score: hit.similarity }))), query: queryVector };
  }
}

function toHit(chunk: StoredChunk, score: number, signals: CodeSearchHit["signals"], query: string): CodeSearchHit {
  return {
    chunkId: chunk.id,
    path: chunk.path,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    language: chunk.language,
    symbols: chunk.symbols,
    score,
    signals,
    snippet: snippetFor(chunk.content, query),
    content: chunk.content,
    fileLineCount: chunk.fileLineCount,
    fileDescription: chunk.fileDescription,
  };
}
