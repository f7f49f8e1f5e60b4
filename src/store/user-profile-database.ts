import { openPlainDatabase, type SqliteDatabase } from "./database.js";
import type { ProfileRow } from "./handoff-records.js";
import { readProfileRows } from "./handoff-repository.js";

const SCHEMA_VERSION = 2;

/**
 * `$SYLK_HOME/profiles.db`: what is learned about the user across all of
 * their projects. The handoff profiles (sufficient statistics per agent
 * type and model), and which instances are already in them, so that a
 * summary applied twice (a crash between the project's commit and this
 * one) counts once; and self-tuning retrieval's user profile.
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
      db.pragma("user_version = 1");
    }
    if (version < 2) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS user_weight_profile (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          profile TEXT NOT NULL,   -- UserWeightProfile as JSON
          applied TEXT NOT NULL,   -- {project key: last observation-log line applied}: a replay applies nothing twice
          updated_at INTEGER NOT NULL
        );
      `);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    return new UserProfileDatabase(db);
  }

  /** Self-tuning retrieval's user profile (`UserWeightProfile` JSON), shared by every project of this user. */
  userWeightProfile(): string | undefined {
    return this.db.prepare<[], string>("SELECT profile FROM user_weight_profile WHERE id = 1").pluck().get();
  }

  /**
   * One episode's update of the user profile, read, changed and written in
   * one transaction, so sessions in two projects never lose each other's
   * updates; skipped when this project's episode `sequence` is already in
   * it (a replay after a crash). Returns the profile as it now is.
   */
  updateUserWeightProfile(projectKey: string, sequence: number, update: (profile: string | undefined) => string): string | undefined {
    return this.db
      .transaction(() => {
        const row = this.db
          .prepare<[], { profile: string; applied: string }>("SELECT profile, applied FROM user_weight_profile WHERE id = 1")
          .get();
        const applied = parseApplied(row?.applied);
        if ((applied[projectKey] ?? 0) >= sequence) return row?.profile;
        const profile = update(row?.profile);
        applied[projectKey] = sequence;
        this.db
          .prepare(
            `INSERT INTO user_weight_profile (id, profile, applied, updated_at) VALUES (1, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET profile = excluded.profile, applied = excluded.applied, updated_at = excluded.updated_at`,
          )
          .run(profile, JSON.stringify(applied), Date.now());
        return profile;
      })
      .immediate();
  }

  /**
   * A project's learned state started again (reset, or damaged): its log
   * positions start again too, and must not be taken for episodes the
   * profile already has.
   */
  forgetProjectPositions(projectKey: string): void {
    this.db
      .transaction(() => {
        const applied = this.db.prepare<[], string>("SELECT applied FROM user_weight_profile WHERE id = 1").pluck().get();
        if (applied === undefined) return;
        const positions = parseApplied(applied);
        delete positions[projectKey];
        this.db.prepare("UPDATE user_weight_profile SET applied = ? WHERE id = 1").run(JSON.stringify(positions));
      })
      .immediate();
  }

  /** Forgets the user profile (`sylk learning --reset`). */
  clearUserWeightProfile(): void {
    this.db.prepare("DELETE FROM user_weight_profile").run();
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
      const previous = this.db
        .prepare<[string], string>("SELECT contribution FROM applied_instances WHERE instance_key = ?")
        .pluck()
        .get(instanceKey);
      if (previous === contribution) return;
      const profile = this.db
        .prepare<[string, string], string>("SELECT statistics FROM handoff_profiles WHERE agent_type = ? AND model = ?")
        .pluck()
        .get(agentType, model);
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

function parseApplied(text: string | undefined): Record<string, number> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, number>) : {};
  } catch {
    return {};
  }
}
