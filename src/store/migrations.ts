import type { SqliteDatabase } from "./database.js";

interface Migration {
  version: number;
  description: string;
  sql: string;
}

/**
 * The schema, versioned with `PRAGMA user_version`. Append migrations; never
 * edit one that has shipped. Vector tables (`vec0`) are created by
 * `VectorStore` because their dimension depends on the configured embedder.
 */
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: "files manifest, chunks, symbols, content entries, context references, full-text persistence",
    sql: `
      CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      -- The manifest: one row per file seen by the scanner, indexed or not.
      CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,          -- relative to the project root, '/'-separated
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        content_hash TEXT,                  -- sha256 of the bytes on disk
        language TEXT,
        status TEXT NOT NULL CHECK (status IN ('indexed', 'skipped', 'failed')),
        reason TEXT,                        -- why skipped or failed
        line_count INTEGER NOT NULL DEFAULT 0,
        description TEXT,                   -- one line from the file's first comment
        priority INTEGER NOT NULL DEFAULT 0,
        indexed_at INTEGER NOT NULL
      );
      CREATE INDEX idx_files_status ON files(status);

      -- Merkle hashes of directories over (name, size, mtime) of what they contain.
      CREATE TABLE directories (
        path TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        file_count INTEGER NOT NULL
      );

      -- Ids are AUTOINCREMENT so they are never reused: the full-text index
      -- treats a document id as immutable and tombstones removed ones.
      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        kind TEXT NOT NULL,
        symbols TEXT NOT NULL DEFAULT '[]', -- JSON array of symbol names inside the chunk
        content TEXT NOT NULL,
        token_count INTEGER NOT NULL,
        terms TEXT NOT NULL,                -- distinct full-text terms, space-separated
        term_count INTEGER NOT NULL         -- terms with repeats (BM25 document length)
      );
      CREATE INDEX idx_chunks_file ON chunks(file_id);

      CREATE TABLE symbols (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL
      );
      CREATE INDEX idx_symbols_file ON symbols(file_id);
      CREATE INDEX idx_symbols_name ON symbols(name);

      -- Seed 002 "Universal Content Store". \`id\` is unique per entry, not a hash of
      -- the content: identical text said twice is two entries. \`doc\` is the
      -- integer key used by the full-text and vector indexes.
      CREATE TABLE content_entries (
        doc INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        content_hash TEXT NOT NULL,
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        agent_type TEXT NOT NULL,
        content_type TEXT NOT NULL,
        content TEXT NOT NULL,
        token_count INTEGER NOT NULL,
        timestamp INTEGER NOT NULL,         -- milliseconds since the epoch
        turn_number INTEGER NOT NULL,
        keywords TEXT,                      -- JSON array
        entities TEXT,                      -- JSON array
        parent_id TEXT,
        child_ids TEXT,                     -- JSON array
        related_files TEXT,                 -- JSON array
        metadata TEXT,                      -- JSON object
        terms TEXT NOT NULL,                -- distinct full-text terms, space-separated
        term_count INTEGER NOT NULL,
        created_at INTEGER DEFAULT (unixepoch())
      );
      CREATE INDEX idx_content_session ON content_entries(session_id);
      CREATE INDEX idx_content_agent ON content_entries(agent_id);
      CREATE INDEX idx_content_type ON content_entries(content_type);
      CREATE INDEX idx_content_turn ON content_entries(session_id, turn_number);
      CREATE INDEX idx_content_timestamp ON content_entries(timestamp);
      CREATE INDEX idx_content_parent ON content_entries(parent_id);
      CREATE INDEX idx_content_hash ON content_entries(content_hash);

      -- Seed 002 "Context Reference System": pointers to evicted content.
      CREATE TABLE context_references (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        content_ids TEXT NOT NULL,          -- JSON array of evicted content ids
        summary TEXT NOT NULL,
        tokens_saved INTEGER NOT NULL,
        turn_range_start INTEGER NOT NULL,
        turn_range_end INTEGER NOT NULL,
        timestamp INTEGER NOT NULL,
        topics TEXT,                        -- JSON array
        entities TEXT,                      -- JSON array
        query_hints TEXT,                   -- JSON array
        created_at INTEGER DEFAULT (unixepoch())
      );
      CREATE INDEX idx_ref_session ON context_references(session_id);
      CREATE INDEX idx_ref_agent ON context_references(agent_id);

      -- Full-text (FlexSearch) persistence: a snapshot of each in-memory index.
      -- The tables above are the truth; on load, documents missing from the
      -- snapshot are added and those no longer in the tables are tombstoned.
      CREATE TABLE fts_snapshot (
        index_name TEXT NOT NULL,
        key TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (index_name, key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description: "agent sessions and their message lists",
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        title TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        turns INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX idx_sessions_updated ON sessions(updated_at);

      -- The conversation exactly as sent to the model, for resuming. Every
      -- block is also a content entry (the searchable, lossless record).
      CREATE TABLE session_messages (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        content TEXT NOT NULL,              -- JSON array of content blocks
        PRIMARY KEY (session_id, ordinal)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    description: "context virtualization: which entries each message holds, its turn, and the reference that evicted it",
    sql: `
      ALTER TABLE session_messages ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE session_messages ADD COLUMN entry_ids TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE session_messages ADD COLUMN evicted_by TEXT;
    `,
  },
  {
    version: 4,
    description: "context references can fold into later ones",
    sql: `ALTER TABLE context_references ADD COLUMN folded_into TEXT;`,
  },
  {
    version: 5,
    description: "incremental fresh check: each file's directory, and what the last walk saw of each directory",
    sql: `
      ALTER TABLE files ADD COLUMN directory TEXT NOT NULL DEFAULT '';
      -- The parent directory: trimming the characters of the name (the path without '/') stops at the last '/'.
      UPDATE files SET directory = rtrim(rtrim(path, replace(path, '/', '')), '/');
      CREATE INDEX idx_files_directory ON files(directory);

      -- Replaces the Merkle hashes: a walk compares each directory's listing with these.
      DROP TABLE directories;
      CREATE TABLE directory_states (
        path TEXT PRIMARY KEY,              -- relative to the project root, '' for the root
        listing TEXT NOT NULL,              -- hash of its entries: names, and sizes and mtimes of taken files
        rules TEXT NOT NULL,                -- hash of its ignore files
        left_out TEXT NOT NULL DEFAULT '[]' -- JSON: names the walk did not take (excluded or ignored)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 6,
    description: "checkpoints of the files agent edits touched (/undo, /rewind, /diff)",
    sql: `
      CREATE TABLE file_checkpoints (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        prompt_turn INTEGER NOT NULL,       -- the user prompt the write answered: what /undo takes back
        tool_use_id TEXT NOT NULL,
        path TEXT NOT NULL,                 -- as the tools show it: relative to the root, or absolute outside it
        absolute_path TEXT NOT NULL,
        before_content BLOB,                -- the bytes before the write; NULL: the write created the file
        after_hash TEXT NOT NULL,           -- SHA-256 of what the write left, to see later changes
        created_at INTEGER NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX idx_file_checkpoints_session ON file_checkpoints(session_id, id);
    `,
  },
  {
    version: 7,
    description: "full-text snapshots by term, so that one search reads only its terms' postings",
    sql: `
      -- FlexSearch's own export could only be loaded whole (26 MB of JSON on a
      -- 28k-file repository). The snapshot is a cache of the tables: dropping
      -- it loses nothing, and the first process to load an index without one
      -- rebuilds it from the stored terms and saves it in this form.
      DROP TABLE fts_snapshot;
      DELETE FROM meta WHERE key LIKE 'fts_snapshot_bytes:%' OR key LIKE 'fts_deferred:%';

      -- One row per index: its documents (lengths and live flags by id, see store/postings-codec.ts).
      CREATE TABLE fts_documents (
        index_name TEXT PRIMARY KEY,
        max_id INTEGER NOT NULL,            -- highest document id: ids above it were added after the save
        document_count INTEGER NOT NULL,
        total_length INTEGER NOT NULL,      -- sum of the documents' lengths (BM25's average length)
        buckets INTEGER NOT NULL,           -- how many fts_postings rows its terms are hashed into
        documents BLOB NOT NULL
      ) WITHOUT ROWID;

      -- Postings by term, the terms hashed into buckets of a few kilobytes.
      CREATE TABLE fts_postings (
        index_name TEXT NOT NULL,
        bucket INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (index_name, bucket)
      ) WITHOUT ROWID;

      -- Documents removed since the snapshot was saved by a process that left
      -- the snapshot alone (a refresh of a few files): one search need not
      -- list every id in the table to learn which of the snapshot's are gone.
      CREATE TABLE fts_removed (
        index_name TEXT NOT NULL,
        id INTEGER NOT NULL,
        PRIMARY KEY (index_name, id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 8,
    description: "directory snapshots: a directory whose inode, mtime and ctime are unchanged need not be listed again",
    sql: `
      -- NULL in rows stored before: the next walk lists those directories and stores their snapshots.
      ALTER TABLE directory_states ADD COLUMN files TEXT;        -- its regular files' names, joined by '/' (no name holds one)
      ALTER TABLE directory_states ADD COLUMN directories TEXT;  -- its subdirectories' names, the same way
      ALTER TABLE directory_states ADD COLUMN ino INTEGER;
      ALTER TABLE directory_states ADD COLUMN mtime_ms REAL;
      ALTER TABLE directory_states ADD COLUMN ctime_ms REAL;
      ALTER TABLE directory_states ADD COLUMN recorded_at_ms REAL; -- when the walk that read the names started
    `,
  },
  {
    version: 9,
    description: "the handoff controller: agent instances, quality observations, firings, learned profiles, task lists, files changed",
    sql: `
      -- One agent instance of a session: the first, and one more per handoff.
      CREATE TABLE agent_instances (
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,             -- engineer-1, engineer-2, ... (the chain, in order)
        agent_type TEXT NOT NULL,
        model TEXT NOT NULL,
        handoff_index INTEGER NOT NULL,     -- 0 for the first instance; n: started by the n-th handoff
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        end_reason TEXT,                    -- handoff, session_end
        handoff_entry_id TEXT,              -- the agent_handoff content entry it started from
        state TEXT,                         -- that state as JSON, and as the text its window starts with
        state_text TEXT,
        prepared_fraction REAL,             -- the prepared-size arm its state was trimmed with
        summary TEXT,                       -- JSON InstanceSummary, written when it ends
        profile_applied INTEGER NOT NULL DEFAULT 0,       -- the summary is in this database's profile
        user_profile_applied INTEGER NOT NULL DEFAULT 0,  -- ... and in $SYLK_HOME/profiles.db
        PRIMARY KEY (session_id, agent_id)
      ) WITHOUT ROWID;

      -- One per model call: how well the turn went, and the signals it was made of.
      CREATE TABLE quality_observations (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        agent_type TEXT NOT NULL,
        model TEXT NOT NULL,
        turn INTEGER NOT NULL,
        context_tokens INTEGER NOT NULL,
        quality REAL NOT NULL,
        signals TEXT NOT NULL,              -- JSON: signal -> count
        created_at INTEGER NOT NULL
      );
      CREATE INDEX idx_quality_instance ON quality_observations(session_id, agent_id, id);

      -- Each time the controller fired: which condition, and what it predicted.
      CREATE TABLE degradation_firings (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        turn INTEGER NOT NULL,
        condition TEXT NOT NULL,            -- below_peak, declining_trend, high_uncertainty, forced
        action TEXT NOT NULL,               -- handoff, evict
        context_tokens INTEGER NOT NULL,
        lookahead_tokens INTEGER NOT NULL,
        predicted_mean REAL NOT NULL,
        predicted_sd REAL NOT NULL,
        lookahead_mean REAL NOT NULL,
        lookahead_sd REAL NOT NULL,
        peak REAL NOT NULL,
        threshold REAL NOT NULL,
        created_at INTEGER NOT NULL
      );

      -- AgentHandoffProfile per (agent type, model) as sufficient statistics (JSON), never raw history.
      CREATE TABLE handoff_profiles (
        agent_type TEXT NOT NULL,
        model TEXT NOT NULL,
        statistics TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (agent_type, model)
      ) WITHOUT ROWID;

      -- The task list the model keeps with todo_write, with its decisions and blockers.
      CREATE TABLE task_lists (
        session_id TEXT PRIMARY KEY,
        items TEXT NOT NULL,                -- JSON [{content, status}]
        decisions TEXT NOT NULL,            -- JSON [string]
        blockers TEXT NOT NULL,             -- JSON [string]
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- Files the session's tools changed, for the prepared context of a handoff.
      CREATE TABLE files_changed (
        session_id TEXT NOT NULL,
        path TEXT NOT NULL,
        action TEXT NOT NULL,               -- create, modify, delete
        lines_added INTEGER NOT NULL,
        lines_removed INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, path)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 10,
    description: "self-tuning retrieval: the learned state (sufficient statistics) and the observation-log position it includes",
    sql: `
      CREATE TABLE learning_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        state TEXT NOT NULL,                -- AdaptiveState as JSON
        applied_sequence INTEGER NOT NULL,  -- the last observation-log line it includes
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 11,
    description: "evictions as runs of message ordinals, not a mark on every evicted message",
    sql: `
      -- Which reference evicted which messages of a session: one row per run of consecutive
      -- ordinals. A handoff's trim evicts everything before the kept turns; marking each message
      -- row rewrote it with its whole content, so the trim cost time in proportion to the session.
      CREATE TABLE session_evictions (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        first_ordinal INTEGER NOT NULL,
        last_ordinal INTEGER NOT NULL,      -- inclusive
        reference_id TEXT NOT NULL,
        PRIMARY KEY (session_id, first_ordinal)
      ) WITHOUT ROWID;
      -- The marks stored so far, as runs: consecutive ordinals of one reference share
      -- ordinal − (their rank among that reference's messages).
      INSERT INTO session_evictions (session_id, first_ordinal, last_ordinal, reference_id)
        SELECT session_id, min(ordinal), max(ordinal), evicted_by FROM (
          SELECT session_id, ordinal, evicted_by,
                 ordinal - row_number() OVER (PARTITION BY session_id, evicted_by ORDER BY ordinal) AS run
          FROM session_messages WHERE evicted_by IS NOT NULL
        )
        GROUP BY session_id, evicted_by, run;
      ALTER TABLE session_messages DROP COLUMN evicted_by;
    `,
  },
  {
    version: 12,
    description: "sub-agents as child sessions: a session's parent, its agent, and why it was started",
    sql: `
      -- A sub-agent (a delegated task, a consulted knowledge agent, a pipeline stage, a routed agent)
      -- is a session of its own, so its window, handoffs, task list and checkpoints need nothing new.
      -- Root sessions (what the user talks to) have no parent and kind 'main'.
      ALTER TABLE sessions ADD COLUMN parent_session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
      ALTER TABLE sessions ADD COLUMN parent_tool_use_id TEXT;
      ALTER TABLE sessions ADD COLUMN agent_id TEXT;
      ALTER TABLE sessions ADD COLUMN agent_type TEXT;
      ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'main' CHECK (kind IN ('main', 'knowledge', 'delegate', 'stage', 'routed'));
      CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
    `,
  },
  {
    version: 13,
    description: "pipelines: one row per run of plan → design → implement → review (→ fix → review)* → test → summary, one per stage run",
    sql: `
      -- A pipeline started in a root session (the one the user talks to) for one task, given verbatim.
      CREATE TABLE pipelines (
        id TEXT PRIMARY KEY,
        root_session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        task TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'stopped', 'failed')),
        stop_reason TEXT,                   -- why it stopped or failed (plan mode, the stage that ended in error)
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX idx_pipelines_root ON pipelines(root_session_id, created_at);

      -- Each stage run, in order: a fix round is a 'fix' row (the engineer) and a 'review' row (the inspector) of that round.
      CREATE TABLE pipeline_stages (
        pipeline_id TEXT NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,           -- 0, 1, 2, ... in the order the stages ran
        stage TEXT NOT NULL CHECK (stage IN ('plan', 'design', 'implement', 'review', 'fix', 'test', 'summary')),
        agent_type TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        child_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        round INTEGER NOT NULL DEFAULT 0,   -- the fix round (0 before any)
        state TEXT,                         -- the stage's state as JSON (written when it ends)
        state_entry_id TEXT,                -- the content entry holding that state
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'error', 'interrupted', 'no_structure')),
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        PRIMARY KEY (pipeline_id, ordinal)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 14,
    description: "the guide's routing: each decision with its outcome, and the agents' learned affinities",
    sql: `
      -- Seed 002 RoutingDecision: which agent the guide gave a prompt to, how sure it was and why.
      -- The outcome (1 completed, 0.5 followed up, 0 failed or corrected) arrives with the next prompt.
      CREATE TABLE routing_decisions (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        turn_number INTEGER NOT NULL,
        user_query TEXT NOT NULL,           -- at most 200 characters
        selected_agent TEXT NOT NULL,
        confidence REAL NOT NULL,
        reasoning TEXT NOT NULL,
        context_id TEXT NOT NULL,
        routed_session_id TEXT,
        outcome REAL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX idx_routing_session ON routing_decisions(session_id, created_at);
      -- A Beta per agent and prompt context, learned from the outcomes.
      CREATE TABLE agent_affinities (
        agent TEXT NOT NULL,
        context_id TEXT NOT NULL,
        alpha REAL NOT NULL,
        beta REAL NOT NULL,
        observations INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (agent, context_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 15,
    description: "knowledge that lasts: the user's and the agent's knowledge, learnings and skills, and pending inquiries",
    sql: `
      -- One table for the searchable layers (seed 003): user knowledge (rules, preferences, definitions,
      -- facts), agent learnings, skill patterns and external references, indexed in the "knowledge"
      -- full-text collection by doc. Layer-specific fields are in details (JSON).
      CREATE TABLE knowledge_items (
        doc INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        layer TEXT NOT NULL CHECK (layer IN ('user_knowledge', 'agent_learnings', 'skill_patterns', 'external_knowledge')),
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        source TEXT NOT NULL,
        category TEXT,
        confidence REAL NOT NULL DEFAULT 1,
        details TEXT NOT NULL DEFAULT '{}',
        session_id TEXT,
        terms TEXT NOT NULL,
        term_count INTEGER NOT NULL,
        uses INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX idx_knowledge_layer ON knowledge_items(layer, kind);
      -- Questions for the user when knowledge is missing; an answer becomes knowledge.
      CREATE TABLE inquiries (
        id TEXT PRIMARY KEY,
        session_id TEXT,
        topic TEXT NOT NULL,
        question TEXT NOT NULL,
        context TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'answered', 'dismissed')),
        answer TEXT,
        knowledge_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX idx_inquiries_status ON inquiries(status, created_at);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function applyMigrations(db: SqliteDatabase): void {
  const migrate = db.transaction(() => {
    // Re-read inside the (immediate) transaction: another process may have migrated meanwhile.
    const current = db.pragma("user_version", { simple: true }) as number;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `This index was written by a newer Sylk (schema ${current}, this version knows ${SCHEMA_VERSION}). Upgrade Sylk.`,
      );
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
