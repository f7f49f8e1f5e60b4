import { openPlainDatabase, type SqliteDatabase } from "./database.js";
import { readProfileRows, type ProfileRow } from "./handoff-repository.js";

const SCHEMA_VERSION = 1;

/**
 * `$SYLK_HOME/profiles.db`: the handoff profiles pooled over all of one
 * user's projects (sufficient statistics per agent type and model), and
 * which instances are already in them, so that a summary applied twice
 * (a crash between the project's commit and this one) counts once.
 */
export class UserProfileDatabase {
  private constructor(private readonly db: SqliteDatabase) {}

  static open(path: string): UserProfileDatabase {
    const db = openPlainDatabase(path);
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      db.close();
      throw new Error(`${path} was written by a newer Sylk (schema ${version}); upgrade Sylk.`);
    }
    if (version < 1) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS handoff_profiles (
          agent_type TEXT NOT NULL,
          model TEXT NOT NULL,
          statistics TEXT NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (agent_type, model)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS applied_instances (
          instance_key TEXT PRIMARY KEY,   -- project / session / agent id
          contribution TEXT NOT NULL,      -- the statistics it added, replaced if the instance goes on later
          applied_at INTEGER NOT NULL
        ) WITHOUT ROWID;
      `);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    return new UserProfileDatabase(db);
  }

  profileRows(): ProfileRow[] {
    return readProfileRows(this.db);
  }

  /**
   * Puts one instance's contribution into the (type, model) statistics, in
   * one transaction with the record of what it contributed: applying the
   * same contribution again changes nothing, and a larger one (the
   * instance went on in a resumed session) replaces the smaller.
   * `combine(profile, previous, next)` returns the new profile statistics.
   */
  applyContribution(
    instanceKey: string,
    agentType: string,
    model: string,
    contribution: string,
    combine: (profile: string | undefined, previous: string | undefined, next: string) => string,
  ): void {
    this.db.transaction(() => {
      const previous = this.db.prepare("SELECT contribution FROM applied_instances WHERE instance_key = ?").pluck().get(instanceKey) as string | undefined;
      if (previous === contribution) return;
      const profile = this.db.prepare("SELECT statistics FROM handoff_profiles WHERE agent_type = ? AND model = ?").pluck().get(agentType, model) as
        | string
        | undefined;
      const now = Date.now();
      this.db
        .prepare(
          `INSERT INTO handoff_profiles (agent_type, model, statistics, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (agent_type, model) DO UPDATE SET statistics = excluded.statistics, updated_at = excluded.updated_at`,
        )
        .run(agentType, model, combine(profile, previous, contribution), now);
      this.db
        .prepare(
          `INSERT INTO applied_instances (instance_key, contribution, applied_at) VALUES (?, ?, ?)
           ON CONFLICT (instance_key) DO UPDATE SET contribution = excluded.contribution, applied_at = excluded.applied_at`,
        )
        .run(instanceKey, contribution, now);
    })();
  }

  close(): void {
    this.db.close();
  }
}
