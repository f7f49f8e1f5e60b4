import { randomUUID } from "node:crypto";
import { textTermCounts } from "../parsing/term-counts.js";
import { fullTextQuery, termsFromCounts } from "../search/full-text-document.js";
import type { PersistentFullText } from "../search/persistent-full-text.js";
import { maskSecrets } from "../security/secrets.js";
import { maskSecretsIn } from "../security/mask-values.js";
import type { SqliteDatabase } from "../store/database.js";
import type { KnowledgeItem, KnowledgeLayer, KnowledgeRepository } from "../store/knowledge-repository.js";

export interface NewKnowledge {
  layer: KnowledgeLayer;
  kind: string;
  key: string;
  content: string;
  source: string;
  category?: string | null;
  confidence?: number;
  details?: Record<string, unknown>;
  sessionId?: string | null;
}

export interface KnowledgeHit {
  item: KnowledgeItem;
  score: number;
}

/** Candidates a layer-filtered search reads per result it wants (items of other layers are skipped). */
const CANDIDATES_PER_RESULT = 8;

/**
 * The knowledge that lasts across sessions: items stored with
 * their terms and indexed in the "knowledge" full-text collection, so the
 * layers are searched by ranked keywords (BM25), not by substring. Secrets
 * are masked before anything is stored.
 */
export class KnowledgeStore {
  constructor(private readonly deps: { db: SqliteDatabase; repository: KnowledgeRepository; fullText: PersistentFullText }) {}

  /** Stores an item, secrets masked (its details too); throws when nothing but secrets was given. */
  save(input: NewKnowledge, now: number = Date.now()): KnowledgeItem {
    const key = maskSecrets(input.key.trim()).text;
    const masked = maskSecrets(input.content.trim());
    if (masked.text.replace(/\[REDACTED:[^\]]*\]/g, "").trim() === "") {
      throw new Error(masked.findings.length > 0 ? "nothing to save but a secret: secrets are never stored" : "nothing to save");
    }
    const item: KnowledgeItem = {
      id: randomUUID(),
      layer: input.layer,
      kind: input.kind,
      key,
      content: masked.text,
      source: input.source,
      category: input.category ? maskSecrets(input.category).text : null,
      confidence: input.confidence ?? 1,
      details: maskSecretsIn(input.details ?? {}).value,
      sessionId: input.sessionId ?? null,
      uses: 0,
      createdAt: now,
      updatedAt: now,
    };
    const terms = termsFromCounts(textTermCounts(`${item.key}\n${item.content}`));
    const doc = this.deps.repository.insert(item, terms.distinct.join(" "), terms.count);
    this.deps.fullText.apply([], [{ id: doc, terms: terms.distinct.join(" "), length: terms.count }]);
    return item;
  }

  delete(id: string): boolean {
    const doc = this.deps.repository.remove(id);
    if (doc === undefined) return false;
    this.deps.fullText.apply([doc], []);
    return true;
  }

  get(id: string): KnowledgeItem | undefined {
    return this.deps.repository.get(id);
  }

  /** The newest item of a layer with this key (a skill by its name). */
  byKey(layer: KnowledgeLayer, key: string): KnowledgeItem | undefined {
    return this.deps.repository.byKey(layer, key);
  }

  list(options: { layer?: KnowledgeLayer; limit: number }): KnowledgeItem[] {
    return this.deps.repository.list(options);
  }

  /** The user's own notes, newest first. */
  userNotes(limit: number): KnowledgeItem[] {
    return this.deps.repository.userNotes(limit);
  }

  /** Changes whenever an item is added, removed or re-judged, here or by another process (see `KnowledgeRepository.changeStamp`). */
  changeStamp(): string {
    return this.deps.repository.changeStamp();
  }

  /** The best items for the keywords, ranked, of the given layers (all when none). */
  search(keywords: readonly string[], options: { layers?: readonly KnowledgeLayer[]; limit: number }): KnowledgeHit[] {
    const terms = fullTextQuery(keywords.join(" "));
    if (terms.length === 0 || options.limit <= 0) return [];
    // Each keyword on its own, scores summed: an item matching any keyword counts (keyword retrieval), ranked by
    // BM25. One search of all terms would skip terms common in a small collection, and a new user's is small.
    const scores = new Map<number, number>();
    for (const term of terms) {
      for (const hit of this.deps.fullText.search([term], options.limit * CANDIDATES_PER_RESULT))
        scores.set(hit.id, (scores.get(hit.id) ?? 0) + hit.score);
    }
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([doc]) => doc);
    const wanted = options.layers ? new Set(options.layers) : undefined;
    return this.deps.repository
      .byDocs(ranked)
      .filter(({ item }) => !wanted || wanted.has(item.layer))
      .slice(0, options.limit)
      .map(({ doc, item }) => ({ item, score: scores.get(doc) ?? 0 }));
  }

  learning(tool: string, signature: string): KnowledgeItem | undefined {
    return this.deps.repository.learning(tool, signature);
  }

  rejudge(item: KnowledgeItem, confidence: number, details: Record<string, unknown>, now: number = Date.now()): void {
    this.deps.repository.rejudge(item.id, confidence, maskSecretsIn(details).value, now);
  }

  /** The items were put in front of the model. */
  used(items: readonly KnowledgeItem[]): void {
    this.deps.repository.used(items.map((item) => item.id));
  }
}
