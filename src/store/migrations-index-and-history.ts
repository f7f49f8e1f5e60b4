import type { Migration } from "./migration.js";

/** Schemas 1–8: the index, the history, sessions and checkpoints. Never edit one that has shipped. */
export const INDEX_AND_HISTORY_MIGRATIONS: Migration[] = [
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

      -- The universal content store. \`id\` is unique per entry, not a hash of
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

      -- Context references: pointers to evicted content.
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
];
