import { entryTermCounts } from "../parsing/term-counts.js";
import { TERMS_FORMAT_VERSION, termsFromCounts } from "../search/full-text-document.js";
import { getMeta, setMeta, type SqliteDatabase } from "../store/database.js";

const META_KEY = "terms_format";

/**
 * Full-text terms are stored with the rows they index. When their format
 * changes (stemming, say), an old index would silently stop matching: the
 * code index is dropped (the next `sylk index` rebuilds it, as it would a
 * missing one) and history entries get their terms recomputed, since history
 * cannot be re-read from disk.
 */
export function upgradeTermsFormat(db: SqliteDatabase): { upgraded: boolean } {
  if (getMeta(db, META_KEY) === String(TERMS_FORMAT_VERSION)) return { upgraded: false };
  const hasContent =
    (db.prepare("SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM content_entries) AS n").get() as { n: number }).n > 0;
  db.transaction(() => {
    if (hasContent) {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'").get()) db.exec("DELETE FROM chunk_vectors");
      db.exec(
        "DELETE FROM symbols; DELETE FROM chunks; DELETE FROM files; DELETE FROM directory_states; DELETE FROM fts_documents; DELETE FROM fts_postings; DELETE FROM fts_removed; DELETE FROM meta WHERE key LIKE 'fts_snapshot_bytes:%' OR key LIKE 'fts_deferred:%' OR key LIKE 'fts_damage:%';",
      );
      const rows = db.prepare("SELECT doc, content, related_files FROM content_entries").all() as Array<{
        doc: number;
        content: string;
        related_files: string | null;
      }>;
      const update = db.prepare("UPDATE content_entries SET terms = ?, term_count = ? WHERE doc = ?");
      for (const row of rows) {
        const terms = termsFromCounts(entryTermCounts(row.content, row.related_files ? (JSON.parse(row.related_files) as string[]) : []));
        update.run(terms.distinct.join(" "), terms.count, row.doc);
      }
    }
    setMeta(db, META_KEY, String(TERMS_FORMAT_VERSION));
  }).immediate();
  return { upgraded: hasContent };
}
