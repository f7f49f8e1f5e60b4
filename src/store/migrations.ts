import type { SqliteDatabase } from "./database.js";
import { AGENT_MIGRATIONS } from "./migrations-agents.js";
import { INDEX_AND_HISTORY_MIGRATIONS } from "./migrations-index-and-history.js";

/**
 * The schema, versioned with `PRAGMA user_version`. Append migrations (in
 * `migrations-agents.ts`); never edit one that has shipped. Vector tables
 * (`vec0`) are created by `VectorStore` because their dimension depends on
 * the configured embedder.
 */
const MIGRATIONS = [...INDEX_AND_HISTORY_MIGRATIONS, ...AGENT_MIGRATIONS];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function applyMigrations(db: SqliteDatabase): void {
  const migrate = db.transaction(() => {
    // Re-read inside the (immediate) transaction: another process may have migrated meanwhile.
    const current = db.pragma("user_version", { simple: true }) as number;
    if (current > SCHEMA_VERSION) {
      throw new Error(`This index was written by a newer Sylk (schema ${current}, this version knows ${SCHEMA_VERSION}). Upgrade Sylk.`);
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
  });
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current !== SCHEMA_VERSION) migrate.immediate();
}
