import type { Migration } from "./migration.js";

/**
 * Schemas 9 on: what the agents learn and keep (the handoff controller,
 * self-tuning retrieval, the team, knowledge). Append here; never edit one
 * that has shipped.
 */
export const AGENT_MIGRATIONS: Migration[] = [
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
      -- Routing decisions: which agent the guide gave a prompt to, how sure it was and why.
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
      -- One table for the searchable layers: user knowledge (rules, preferences, definitions,
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
  {
    version: 16,
    description: "checkpoints keep a file's bytes with its secrets masked, and a keyed fingerprint of the real ones",
    sql: `
      -- before_content is stored with secret values masked; a restore fills them in from the file as
      -- it is and checks the result against before_fingerprint, an HMAC under the user's key (kept
      -- outside this database, so a weak password cannot be guessed from it). New rows' after_hash
      -- is such an HMAC too ('hmac-sha256:…'); a bare hex SHA-256 is a row from before. A row with
      -- content and no fingerprint holds the raw bytes an older Sylk stored: it is masked at the next
      -- session's start, found through the partial index.
      ALTER TABLE file_checkpoints ADD COLUMN before_fingerprint TEXT;
      CREATE INDEX idx_file_checkpoints_unmasked ON file_checkpoints(id) WHERE before_fingerprint IS NULL AND before_content IS NOT NULL;
    `,
  },
  {
    version: 17,
    description: "full-text snapshot rows carry a checksum, so that a damaged snapshot is found when it is read",
    sql: `
      -- The snapshot is a cache of the tables (see version 7): it is dropped, and the first process
      -- to load an index rebuilds it from the stored terms and saves it with its checksums.
      DELETE FROM fts_documents;
      DELETE FROM fts_postings;
      DELETE FROM fts_removed;
      DELETE FROM meta WHERE key LIKE 'fts_snapshot_bytes:%' OR key LIKE 'fts_deferred:%';
      -- CRC-32 of the documents blob and the numbers beside it (store/snapshot-checksum.ts).
      ALTER TABLE fts_documents ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0;
      -- How many fts_postings rows were written with it: a row that went missing is damage too.
      ALTER TABLE fts_documents ADD COLUMN postings_rows INTEGER NOT NULL DEFAULT 0;
      -- CRC-32 of the row's bucket number and data.
      ALTER TABLE fts_postings ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 18,
    description: "trigram sketches of indexed files, so that grep rules out the files that cannot hold a literal without reading them",
    sql: `
      -- search/trigram-sketch.ts: a bit set of the three-byte sequences of the file's bytes as they were
      -- indexed. Valid while the manifest row's size and time still match the disk, as the file's terms
      -- are. A file indexed before this version has none until it is indexed again: grep reads it.
      CREATE TABLE file_sketches (
        file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
        sketch BLOB NOT NULL
      );
    `,
  },
  {
    version: 19,
    description: "an agent instance keeps the onset posterior it started from, so a continued session starts it again as it was",
    sql: `
      -- JSON OnsetMemory (src/handoff/onset-posterior.ts): the prior of the chain's first instance and
      -- what the session's earlier instances saw of the onset. Null on rows from before: those replay
      -- their predecessors' observations under the profile of the day instead.
      ALTER TABLE agent_instances ADD COLUMN onset_start TEXT;
    `,
  },
  {
    version: 20,
    description: "what the walk of a run with no complete run behind it saw, so grep lists the tree while a first index runs",
    sql: `
      -- The shape of directory_states, written by a run that starts before any complete run, right
      -- after its walk, and emptied when a run completes. Never read by the fresh check: a run killed
      -- half way must not make the next walk trust directories whose files it never indexed.
      CREATE TABLE first_walk_states (
        path TEXT PRIMARY KEY,
        listing TEXT NOT NULL,
        rules TEXT NOT NULL,
        left_out TEXT NOT NULL DEFAULT '[]',
        files TEXT,
        directories TEXT,
        ino INTEGER,
        mtime_ms REAL,
        ctime_ms REAL,
        recorded_at_ms REAL
      ) WITHOUT ROWID;
    `,
  },
];
