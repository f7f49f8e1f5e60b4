import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import {
  openDatabase,
  openPlainDatabase,
  releaseMappedPages,
  releaseMappedPagesWhenIdle,
  type SqliteDatabase,
} from "../../src/store/database.js";
import { DirectoryStateRepository, type StoredDirectorySnapshot } from "../../src/store/directory-state-repository.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { SCHEMA_VERSION } from "../../src/store/migrations.js";
import { PipelineRepository } from "../../src/store/pipeline-repository.js";
import { SessionRepository } from "../../src/store/session-repository.js";

const directories: string[] = [];
const scratch = () => {
  const directory = mkdtempSync(join(tmpdir(), "sylk-db-"));
  directories.push(directory);
  return directory;
};

/** Back to schema 7's `directory_states`: no snapshot columns. */
function dropDirectorySnapshots(db: SqliteDatabase): void {
  for (const column of ["files", "directories", "ino", "mtime_ms", "ctime_ms", "recorded_at_ms"])
    db.exec(`ALTER TABLE directory_states DROP COLUMN ${column}`);
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("openDatabase", () => {
  it("makes the database, its WAL and its shared memory readable by the user alone, whatever the umask; and narrows files left open", () => {
    const previous = process.umask(0o022);
    try {
      const modeOf = (path: string) => statSync(path).mode & 0o777;
      for (const open of [openDatabase, openPlainDatabase]) {
        const path = join(scratch(), "store.db");
        const db = open(path);
        db.exec("CREATE TABLE IF NOT EXISTS probe (x); INSERT INTO probe VALUES (1)");
        expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
        db.close();
      }
      const old = join(scratch(), "old.db");
      new Database(old).close();
      writeFileSync(`${old}-wal`, "");
      chmodSync(old, 0o644);
      chmodSync(`${old}-wal`, 0o644);
      openDatabase(old).close();
      expect(modeOf(old)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it("creates new files with 16 KiB pages in WAL mode", () => {
    const db = openDatabase(join(scratch(), "vector.db"));
    expect(db.pragma("page_size", { simple: true })).toBe(16_384);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("opens a file made with another page size as it is", () => {
    const path = join(scratch(), "vector.db");
    const old = new Database(path);
    old.pragma("page_size = 4096");
    old.pragma("journal_mode = WAL");
    old.exec("CREATE TABLE kept (value TEXT); INSERT INTO kept VALUES ('still here');");
    old.close();

    const db = openDatabase(path);
    expect(db.pragma("page_size", { simple: true })).toBe(4096);
    expect(db.prepare("SELECT value FROM kept").pluck().get()).toBe("still here");
    db.close();
  });

  it("upgrades an index whose full-text snapshot is FlexSearch's export (schema 5): the export goes, the tables by term come", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropEvictionRuns(current);
    dropDirectorySnapshots(current);
    dropTablesAfterSchema8(current);
    // Back to schema 5 as it shipped: the export's table, its noted size, no tables by term.
    current.exec(`
      DROP TABLE fts_documents; DROP TABLE fts_postings; DROP TABLE fts_removed; DROP TABLE file_checkpoints;
      CREATE TABLE fts_snapshot (index_name TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (index_name, key)) WITHOUT ROWID;
      INSERT INTO fts_snapshot VALUES ('code', '1.map', '[]');
      INSERT INTO meta VALUES ('fts_snapshot_bytes:code', '2'), ('fts_deferred:code', '5'), ('kept', 'yes');
      PRAGMA user_version = 5;
    `);
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'fts_%' AND type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(["fts_documents", "fts_postings", "fts_removed"]);
    expect(db.prepare("SELECT key FROM meta ORDER BY key").pluck().all()).toEqual(["kept"]);
    db.close();
  });

  it("upgrades schema 11: every session is a root the user talked to, and a child session made after is not listed or continued", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropSessionTrees(current);
    current.exec(
      `INSERT INTO sessions (id, created_at, updated_at, title, provider, model) VALUES ('old', 0, 0, 't', 'p', 'm'); PRAGMA user_version = 11;`,
    );
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const sessions = new SessionRepository(db);
    expect(sessions.get("old")).toMatchObject({ kind: "main", parentSessionId: null, agentId: null, agentType: null });
    sessions.create(
      {
        id: "child",
        title: "task",
        provider: "p",
        model: "m",
        parent: { parentSessionId: "old", parentToolUseId: "toolu_1", agentId: "librarian-1", agentType: "librarian", kind: "delegate" },
      },
      10,
    );
    expect(sessions.latest()?.id).toBe("old");
    expect(sessions.list(10).map((session) => session.id)).toEqual(["old"]);
    expect(sessions.findByPrefix("chi")).toEqual([]);
    expect(sessions.descendants("old").map((session) => session.id)).toEqual(["child"]);
    expect(sessions.agentIdsInTree("old")).toEqual(["librarian-1"]);
    db.close();
  });

  it("upgrades schema 12: sessions are kept, and pipelines can be recorded in them", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropPipelines(current);
    current.exec(
      `INSERT INTO sessions (id, created_at, updated_at, title, provider, model) VALUES ('old', 0, 0, 't', 'p', 'm'); PRAGMA user_version = 12;`,
    );
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(new SessionRepository(db).get("old")).toMatchObject({ kind: "main" });
    const pipelines = new PipelineRepository(db);
    expect(pipelines.listForSession("old")).toEqual([]);
    pipelines.create({ id: "p1", rootSessionId: "old", task: "Add a flag" }, 5);
    const ordinal = pipelines.startStage(
      { pipelineId: "p1", stage: "plan", agentType: "orchestrator", agentId: "orchestrator-1", childSessionId: null, round: 0 },
      6,
    );
    expect(ordinal).toBe(0);
    expect(pipelines.listForSession("old")).toMatchObject([
      { id: "p1", status: "running", stages: [{ stage: "plan", status: "running" }] },
    ]);
    db.close();
  });

  it("upgrades schema 10: each evicted message's mark becomes part of a run of its reference, and the messages read back the same", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropEvictionRuns(current);
    current.exec(`
      INSERT INTO sessions (id, created_at, updated_at, title, provider, model) VALUES ('s1', 0, 0, 't', 'p', 'm'), ('s2', 0, 0, 't', 'p', 'm');
      PRAGMA user_version = 10;
    `);
    // s1: 0-2 by a, 3 kept, 4-5 by a again, 6 by b, 7 kept; s2: 0-1 by a (another session, same reference id).
    const marks: Array<[string, number, string | null]> = [
      ["s1", 0, "a"],
      ["s1", 1, "a"],
      ["s1", 2, "a"],
      ["s1", 3, null],
      ["s1", 4, "a"],
      ["s1", 5, "a"],
      ["s1", 6, "b"],
      ["s1", 7, null],
      ["s2", 0, "a"],
      ["s2", 1, "a"],
    ];
    const insert = current.prepare(
      "INSERT INTO session_messages (session_id, ordinal, role, content, turn, entry_ids, evicted_by) VALUES (?, ?, 'user', ?, 1, '[]', ?)",
    );
    for (const [session, ordinal, evictedBy] of marks)
      insert.run(session, ordinal, JSON.stringify([{ type: "text", text: `m${ordinal}` }]), evictedBy);
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(
      db
        .prepare("SELECT session_id, first_ordinal, last_ordinal, reference_id FROM session_evictions ORDER BY session_id, first_ordinal")
        .raw()
        .all(),
    ).toEqual([
      ["s1", 0, 2, "a"],
      ["s1", 4, 5, "a"],
      ["s1", 6, 6, "b"],
      ["s2", 0, 1, "a"],
    ]);
    const columns = db.prepare("SELECT name FROM pragma_table_info('session_messages')").pluck().all();
    expect(columns).not.toContain("evicted_by");
    const sessions = new SessionRepository(db);
    for (const session of ["s1", "s2"]) {
      const expected = marks.filter(([id]) => id === session).map(([, ordinal, evictedBy]) => ({ ordinal, evictedBy }));
      expect(sessions.messageRows(session).map((row) => ({ ordinal: row.ordinal, evictedBy: row.evictedBy }))).toEqual(expected);
    }
    db.close();
  });

  it("upgrades schema 17: indexed files keep their rows and have no trigram sketch until indexed again", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropFileSketches(current);
    current.exec(`
      INSERT INTO files (path, directory, size, mtime_ms, status, indexed_at) VALUES ('src/a.ts', 'src', 1, 1, 'indexed', 0);
      PRAGMA user_version = 17;
    `);
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.prepare("SELECT path FROM files").all()).toEqual([{ path: "src/a.ts" }]);
    expect(db.prepare("SELECT count(*) AS sketches FROM file_sketches").get()).toEqual({ sketches: 0 });
    db.close();
  });

  it("upgrades schema 19: an index whose first run was stopped has no first walk's states, and grep lists it as before (by rg or a walk)", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropFirstWalkStates(current);
    current.exec("PRAGMA user_version = 19;");
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const firstWalk = new DirectoryStateRepository(db, "first_walk_states");
    expect(firstWalk.all().size).toBe(0);
    db.close();
  });

  it("upgrades schema 18: an agent instance stored before keeps its row, with no onset start (a continued session replays its predecessors)", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropOnsetStarts(current);
    current.exec(`
      INSERT INTO agent_instances (session_id, agent_id, agent_type, model, handoff_index, started_at)
        VALUES ('old', 'engineer-1', 'engineer', 'm', 0, 0);
      PRAGMA user_version = 18;
    `);
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.prepare("SELECT agent_id, onset_start FROM agent_instances").all()).toEqual([{ agent_id: "engineer-1", onset_start: null }]);
    db.close();
  });

  it("upgrades schema 16: full-text snapshots written without checksums go, and the tables are kept for the next load to rebuild them", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropSnapshotChecksums(current);
    current.exec(`
      INSERT INTO fts_documents (index_name, max_id, document_count, total_length, buckets, documents) VALUES ('code', 0, 1, 3, 1, x'0000404001');
      INSERT INTO fts_postings (index_name, bucket, data) VALUES ('code', 0, x'00');
      INSERT INTO fts_removed (index_name, id) VALUES ('code', 7);
      INSERT INTO meta VALUES ('fts_snapshot_bytes:code', '6'), ('fts_deferred:code', '2'), ('kept', 'yes');
      PRAGMA user_version = 16;
    `);
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const rows = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    expect([rows("fts_documents"), rows("fts_postings"), rows("fts_removed")]).toEqual([0, 0, 0]);
    expect(db.prepare("SELECT key FROM meta ORDER BY key").pluck().all()).toEqual(["kept"]);
    expect(new FullTextRepository(db).loadSnapshot("code")).toBeUndefined();
    db.close();
  });

  it("upgrades schema 7: stored directory states are kept, without snapshots until a walk lists them", () => {
    const path = join(scratch(), "vector.db");
    const current = openDatabase(path);
    dropEvictionRuns(current);
    dropDirectorySnapshots(current);
    dropTablesAfterSchema8(current);
    current.exec(
      `INSERT INTO directory_states (path, listing, rules, left_out) VALUES ('src', 'abc', 'def', '["x.log"]'); PRAGMA user_version = 7;`,
    );
    current.close();

    const db = openDatabase(path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const directories = new DirectoryStateRepository(db);
    expect(directories.all()).toEqual(new Map([["src", { listing: "abc", rules: "def", leftOut: ["x.log"] }]]));
    const snapshot = {
      files: ["a.ts", "b c.md"],
      directories: [],
      ino: 42,
      mtimeMs: 1_700_000_000_123.456,
      ctimeMs: 1_700_000_001_000.5,
      recordedAtMs: 1_700_000_009_000,
    };
    directories.save([{ path: "src", state: { listing: "abc", rules: "def", leftOut: ["x.log"], snapshot } }], []);
    const stored = directories.all().get("src");
    expect({ ...stored, snapshot: stored?.snapshot && fieldsOf(stored.snapshot) }).toEqual({
      listing: "abc",
      rules: "def",
      leftOut: ["x.log"],
      snapshot,
    });
    db.close();
  });
});

/** A stored snapshot's fields as a plain object (the repository's keeps its names joined until they are read). */
function fieldsOf(snapshot: StoredDirectorySnapshot): StoredDirectorySnapshot {
  const { ino, mtimeMs, ctimeMs, recordedAtMs } = snapshot;
  return { files: snapshot.files, directories: snapshot.directories, ino, mtimeMs, ctimeMs, recordedAtMs };
}

/** Back to schema 10's evictions (and all before): a mark on each evicted message, no runs, no child sessions (schema 12). */
function dropEvictionRuns(db: SqliteDatabase): void {
  db.exec("DROP TABLE session_evictions; ALTER TABLE session_messages ADD COLUMN evicted_by TEXT;");
  dropSessionTrees(db);
}

/** Schema 9's tables gone: the database as schema 8 and before left it. */
function dropTablesAfterSchema8(db: SqliteDatabase): void {
  db.exec(`
    DROP TABLE agent_instances; DROP TABLE quality_observations; DROP TABLE degradation_firings;
    DROP TABLE handoff_profiles; DROP TABLE task_lists; DROP TABLE files_changed;
    DROP TABLE learning_state; -- schema 10
  `);
}

/** Schema 12's child-session columns gone (and schema 13's pipelines, which came after). */
function dropSessionTrees(db: SqliteDatabase): void {
  dropPipelines(db);
  db.exec("DROP INDEX idx_sessions_parent;");
  for (const column of ["parent_session_id", "parent_tool_use_id", "agent_id", "agent_type", "kind"])
    db.exec(`ALTER TABLE sessions DROP COLUMN ${column}`);
}

/** Schema 20's first walk's states gone: the database as schema 19 left it. */
function dropFirstWalkStates(db: SqliteDatabase): void {
  db.exec("DROP TABLE first_walk_states;");
}

/** Schema 19's onset starts gone: the database as schema 18 left it (and schema 20's first walk's states, which came after). */
function dropOnsetStarts(db: SqliteDatabase): void {
  dropFirstWalkStates(db);
  db.exec("ALTER TABLE agent_instances DROP COLUMN onset_start;");
}

/** Schema 18's sketches gone: the database as schema 17 left it (and schema 19's onset starts, which came after). */
function dropFileSketches(db: SqliteDatabase): void {
  dropOnsetStarts(db);
  db.exec("DROP TABLE file_sketches;");
}

/** Schema 17's snapshot checksums gone: the database as schema 16 left it (and what schemas 18 and 19 added after). */
function dropSnapshotChecksums(db: SqliteDatabase): void {
  dropFileSketches(db);
  db.exec(
    "ALTER TABLE fts_documents DROP COLUMN checksum; ALTER TABLE fts_documents DROP COLUMN postings_rows; ALTER TABLE fts_postings DROP COLUMN checksum;",
  );
}

/** Schema 13's pipeline tables gone: the database as schema 12 left it (and schema 14's routing, 16's checkpoint fingerprints and 17's checksums, which came after). */
function dropPipelines(db: SqliteDatabase): void {
  dropSnapshotChecksums(db);
  dropCheckpointFingerprints(db);
  db.exec("DROP TABLE knowledge_items; DROP TABLE inquiries;"); // schema 15
  db.exec("DROP TABLE routing_decisions; DROP TABLE agent_affinities;");
  db.exec("DROP TABLE pipeline_stages; DROP TABLE pipelines;");
}

/** Schema 16's fingerprint column gone (when the table is still there). */
function dropCheckpointFingerprints(db: SqliteDatabase): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('file_checkpoints')").pluck().all();
  if (columns.includes("before_fingerprint"))
    db.exec("DROP INDEX idx_file_checkpoints_unmasked; ALTER TABLE file_checkpoints DROP COLUMN before_fingerprint;");
}

/** KB of `path` resident through this process's memory maps (/proc/self/smaps). */
function residentMappedKb(path: string): number {
  let inFile = false;
  let kb = 0;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) inFile = mapping[1] === path;
    else if (inFile) kb += Number(/^Rss:\s+(\d+) kB/.exec(line)?.[1] ?? 0);
  }
  return kb;
}

describe("releaseMappedPages", () => {
  /** A database with 6 MB of rows in its main file, read once through the map. */
  function readInBulk(): { db: SqliteDatabase; path: string; read: () => number } {
    const path = join(scratch(), "store.db");
    const db = openDatabase(path);
    db.exec("CREATE TABLE bulk (data BLOB)");
    const insert = db.prepare("INSERT INTO bulk VALUES (randomblob(65536))");
    db.transaction(() => {
      for (let row = 0; row < 96; row++) insert.run();
    })();
    db.pragma("wal_checkpoint(TRUNCATE)");
    const read = () =>
      db
        .prepare<[], { data: Buffer }>("SELECT data FROM bulk")
        .all()
        .reduce((sum, row) => sum + row.data.length, 0);
    expect(read()).toBe(96 * 65536);
    return { db, path, read };
  }

  it("drops the pages a bulk read brought into the process, and reads on as before", () => {
    const { db, path, read } = readInBulk();
    expect(residentMappedKb(path)).toBeGreaterThan(4_096);
    releaseMappedPages(db);
    expect(residentMappedKb(path)).toBeLessThan(256);
    expect(db.pragma("mmap_size", { simple: true })).toBe(268435456);
    expect(read()).toBe(96 * 65536);
    db.close();
    expect(() => releaseMappedPages(db)).not.toThrow();
  });

  it("leaves the pages mapped, and throws nothing, while a statement is still iterating", async () => {
    const { db, path } = readInBulk();
    const rows = db.prepare("SELECT data FROM bulk").iterate();
    rows.next();
    releaseMappedPagesWhenIdle(db, 10)();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(residentMappedKb(path)).toBeGreaterThan(4_096);
    rows.return?.();
    releaseMappedPages(db);
    expect(residentMappedKb(path)).toBeLessThan(256);
    db.close();
  });

  it("waits until bulk reads have stopped for a while", async () => {
    const { db, path, read } = readInBulk();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const readDone = releaseMappedPagesWhenIdle(db, 1_000);
    readDone();
    await sleep(600);
    read();
    readDone(); // another read in the burst: the wait starts again
    await sleep(600); // past the first call's second, short of the second's
    expect(residentMappedKb(path)).toBeGreaterThan(4_096);
    const deadline = Date.now() + 10_000;
    while (residentMappedKb(path) >= 256 && Date.now() < deadline) await sleep(50);
    expect(residentMappedKb(path)).toBeLessThan(256);
    db.close();
  });
});
