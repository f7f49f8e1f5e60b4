import { createHash, randomUUID } from "node:crypto";
import type { SearchConfig } from "../config/schema.js";
import type { Embedder } from "../embedding/embedder.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { entryTermCounts } from "../parsing/term-counts.js";
import { fullTextQuery, termsFromCounts } from "../search/full-text-document.js";
import type { SearchOutcome } from "../search/search-outcome.js";
import type { PersistentFullText } from "../search/persistent-full-text.js";
import { relativeScoreFusion } from "../search/relative-score-fusion.js";
import type { RankedList, SignalEvidence } from "../search/rrf.js";
import { snippetFor } from "../search/snippet.js";
import type {
  ContentEntry,
  ContentFilters,
  ContentType,
  ContextReference,
  DerivedContentType,
  EntrySummary,
  NewContentEntry,
} from "../store/content-types.js";
import type { SqliteDatabase } from "../store/database.js";
import type { EntryRepository } from "../store/entry-repository.js";
import type { VectorStore } from "../store/vector-store.js";
import { estimateTokens } from "../tokens/estimate-tokens.js";
import { extractEntities, extractKeywords } from "./keywords.js";
import { maskSecrets } from "../security/secrets.js";
import { maskSecretsIn } from "../security/mask-values.js";
import { errorMessage } from "../errors.js";

export type HistorySignal = "fulltext" | "vector";

export interface ContentSearchHit {
  entry: ContentEntry;
  score: number;
  signals: Partial<Record<HistorySignal, SignalEvidence>>;
  snippet: string;
}

export interface UniversalContentStoreDeps {
  db: SqliteDatabase;
  entries: EntryRepository;
  fullText: PersistentFullText;
  vectors: VectorStore;
  embedder: Embedder;
  config: SearchConfig;
}

/**
 * The universal content store: everything that enters any agent's
 * context (prompts, responses, tool calls and results, fetched pages, files)
 * is written here as it happens and stays retrievable byte for byte, by id,
 * by turn range, or by hybrid search with `RetrievalFilters`.
 *
 * Every entry passes through `indexContents`, which masks its secrets before
 * anything is derived from it (hash, terms, keywords, vector) or written:
 * whatever a caller hands in, the store holds no key or token.
 */
export class UniversalContentStore {
  constructor(private readonly deps: UniversalContentStoreDeps) {}

  /**
   * Stores an entry and indexes it for full-text and vector search. The row
   * is durable before any embedding is attempted: a failing embedder costs
   * the entry its vector (filled in later), never its content.
   */
  async indexContent(input: NewContentEntry): Promise<ContentEntry> {
    const [entry] = await this.indexContents([input]);
    return entry as ContentEntry;
  }

  /**
   * Stores entries in one transaction with `alongside`, the caller's rows
   * that refer to them (the session message holding them), so that a crash
   * leaves all or none; then indexes them like `indexContent`.
   */
  async indexContents(inputs: readonly NewContentEntry[], alongside: () => void = () => undefined): Promise<ContentEntry[]> {
    const prepared = inputs.map((raw) => {
      const input = withSecretsMasked(raw);
      const entry: ContentEntry = {
        ...input,
        id: input.id ?? randomUUID(),
        contentHash: createHash("sha256").update(input.content).digest("hex"),
        tokenCount: input.tokenCount ?? estimateTokens(input.content),
        timestamp: input.timestamp ?? Date.now(),
        keywords: input.keywords ?? extractKeywords(input.content),
        entities: input.entities ?? extractEntities(input.content),
        childIds: input.childIds ?? [],
        relatedFiles: input.relatedFiles ?? [],
        metadata: input.metadata ?? {},
      };
      const terms = termsFromCounts(entryTermCounts(entry.content, entry.relatedFiles));
      return { entry, terms: terms.distinct.join(" "), length: terms.count };
    });
    const docs = this.deps.db.transaction(() => {
      const inserted = prepared.map(({ entry, terms, length }) => this.deps.entries.insert(entry, terms, length));
      alongside();
      return inserted;
    })();
    this.deps.fullText.apply(
      [],
      prepared.map(({ terms, length }, index) => ({ id: docs[index] as number, terms, length })),
    );
    const entries = prepared.map(({ entry }) => entry);
    if (entries.length === 0) return entries;
    try {
      const vectors = await this.deps.embedder.embed(
        entries.map((entry) => entry.content),
        "document",
      );
      entries.forEach((entry, index) => {
        const vector = vectors[index];
        if (vector)
          this.deps.vectors.upsertEntry(docs[index] as number, vector, { sessionId: entry.sessionId, contentType: entry.contentType });
      });
    } catch {
      // The entries are stored and searchable by full text; `sylk index` backfills missing vectors.
    }
    return entries;
  }

  /** Runs `work` in one transaction of the store's database (sessions live there too). */
  atomically<T>(work: () => T): T {
    return this.deps.db.transaction(work)();
  }

  /** Entries without their content: what eviction needs to describe them. */
  getSummariesByIds(ids: readonly string[]): EntrySummary[] {
    return this.deps.entries.getSummariesByIds(ids);
  }

  getByIds(ids: readonly string[]): ContentEntry[] {
    return this.deps.entries.getByIds(ids).map((stored) => stored.entry);
  }

  /** Deletes a session's observations or reflections (derived notes; the messages they came from stay), or only those with the given ids, from the index too. */
  deleteDerived(sessionId: string, contentType: DerivedContentType, ids?: readonly string[]): number {
    const docs = this.deps.db.transaction(() => {
      const deleted = this.deps.entries.deleteDerived(sessionId, contentType, ids);
      this.deps.vectors.deleteEntries(deleted);
      return deleted;
    })();
    this.deps.fullText.apply(docs, []);
    return docs.length;
  }

  /** A session's newest entries of a type, oldest first. */
  recentOfType(sessionId: string, contentType: ContentType, limit: number): ContentEntry[] {
    return this.deps.entries.recentOfType(sessionId, contentType, limit);
  }

  getByTurnRange(sessionId: string, fromTurn: number, toTurn: number): ContentEntry[] {
    return this.deps.entries.getByTurnRange(sessionId, fromTurn, toTurn).map((stored) => stored.entry);
  }

  /**
   * Hybrid search (full text + vectors) restricted by `RetrievalFilters`, fused as code search
   * fuses: by relative scores, the built-in embedder's vectors only re-ordering what the query's
   * words found (unless they found nothing), a configured model's bringing entries of their own.
   */
  async search(query: string, filters: ContentFilters = {}, limit = 10): Promise<SearchOutcome<ContentSearchHit>> {
    const candidates = Math.max(this.deps.config.candidatesPerSignal, limit * 10);
    const vectorCandidates = Math.max(this.deps.config.vectorCandidates, limit * 10);
    const lists: Array<RankedList<number>> = [];
    const degraded: string[] = [];

    try {
      // Full text over every match, then filtered: exact even for narrow filters.
      const hits = this.deps.fullText.search(fullTextQuery(query), Number.MAX_SAFE_INTEGER);
      const passing = new Set(
        this.deps.entries.filterDocs(
          hits.map((hit) => hit.id),
          filters,
        ),
      );
      lists.push({ signal: "fulltext", hits: hits.filter((hit) => passing.has(hit.id)).slice(0, candidates) });
    } catch (error) {
      degraded.push(`fulltext search failed: ${errorMessage(error)}`);
    }
    try {
      // Questions about a conversation are mostly common words: weighting the built-in
      // embedder's query by IDF lifted LoCoMo recall@10 0.595 → 0.666 (code queries are
      // not weighted: there it hurt; docs/BENCHMARKS.md).
      const vector =
        this.deps.embedder instanceof HashingEmbedder
          ? this.deps.embedder.embedWeightedQuery(query, (term) => 1 + this.deps.fullText.idealScore(fullTextQuery(term)))
          : (await this.deps.embedder.embed([query], "query"))[0];
      if (!vector) throw new Error("the embedder returned no vector");
      const nearest = this.deps.vectors.nearestEntries(vector, vectorCandidates, {
        ...(filters.sessionId ? { sessionId: filters.sessionId } : {}),
        ...(filters.contentTypes ? { contentTypes: filters.contentTypes } : {}),
      });
      const passing = new Set(
        this.deps.entries.filterDocs(
          nearest.map((hit) => hit.id),
          filters,
        ),
      );
      lists.push({
        signal: "vector",
        ...(this.deps.embedder.evidence === "spelling" ? { corroboratesOnly: true } : {}),
        hits: nearest.filter((hit) => passing.has(hit.id)).map((hit) => ({ id: hit.id, score: hit.similarity })),
      });
    } catch (error) {
      degraded.push(`vector search failed: ${errorMessage(error)}`);
    }
    if (lists.length === 0) throw new Error(`History search failed: ${degraded.join("; ")}`);

    const fused = relativeScoreFusion(lists).slice(0, limit);
    const stored = new Map(this.deps.entries.getByDocs(fused.map((hit) => hit.id)).map((row) => [row.doc, row.entry]));
    const hits = fused.flatMap((hit): ContentSearchHit[] => {
      const entry = stored.get(hit.id);
      return entry ? [{ entry, score: hit.score, signals: hit.signals, snippet: snippetFor(entry.content, query) }] : [];
    });
    return { hits, degraded, fulltextIdealScore: this.deps.fullText.idealScore(fullTextQuery(query)) };
  }

  storeReference(reference: ContextReference): void {
    this.deps.entries.saveReference(maskSecretsIn(reference).value);
  }

  getReference(id: string): ContextReference | undefined {
    return this.deps.entries.getReference(id);
  }

  listReferences(sessionId: string): ContextReference[] {
    return this.deps.entries.listReferences(sessionId);
  }

  count(): number {
    return this.deps.entries.count();
  }
}

/** An entry with its secrets masked: its content, and whatever else it carries that is text. */
function withSecretsMasked(input: NewContentEntry): NewContentEntry {
  const { keywords, entities, relatedFiles, metadata } = input;
  return {
    ...input,
    content: maskSecrets(input.content).text,
    ...(keywords ? { keywords: maskSecretsIn(keywords).value } : {}),
    ...(entities ? { entities: maskSecretsIn(entities).value } : {}),
    ...(relatedFiles ? { relatedFiles: maskSecretsIn(relatedFiles).value } : {}),
    ...(metadata ? { metadata: maskSecretsIn(metadata).value } : {}),
  };
}
