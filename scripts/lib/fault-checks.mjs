// What scripts/bench-faults.mjs checks after a trial: SQLite's own integrity, the index against
// its manifest (and against a complete reference index), and a session's recorded turns against
// what the process reported before it died. Every check reads the database directly with the
// project's own driver and sqlite-vec; the full-text check loads the index through the project's
// own modules (dist/), as the next `sylk` would.
import { readdirSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** The one project's database under a SYLK_HOME (`projects/<hash>/vector.db`), or undefined. */
export function projectDatabases(home) {
  const projects = join(home, "projects");
  if (!existsSync(projects)) return [];
  return readdirSync(projects)
    .map((hash) => join(projects, hash, "vector.db"))
    .filter((path) => existsSync(path));
}

export function openDriver(repo) {
  const require = createRequire(join(repo, "package.json"));
  const Database = require("better-sqlite3");
  const sqliteVec = require("sqlite-vec");
  return (path) => {
    const db = new Database(path);
    sqliteVec.load(db);
    db.pragma("busy_timeout = 10000");
    return db;
  };
}

/** `PRAGMA integrity_check` and `foreign_key_check`; true when both are clean. */
export function integrity(db) {
  const rows = db.pragma("integrity_check");
  const ok = rows.length === 1 && rows[0].integrity_check === "ok";
  const foreignKeys = db.pragma("foreign_key_check").length;
  return {
    ok: ok && foreignKeys === 0,
    detail: ok
      ? foreignKeys
        ? `${foreignKeys} foreign-key violations`
        : "ok"
      : rows
          .slice(0, 3)
          .map((row) => row.integrity_check)
          .join("; "),
  };
}

/** Per indexed file of a complete index: content hash → chunk count, to compare partial indexes with. */
export function chunkCountsByPath(db) {
  const rows = db
    .prepare(
      "SELECT f.path, f.content_hash AS hash, count(c.id) AS chunks FROM files f LEFT JOIN chunks c ON c.file_id = f.id WHERE f.status = 'indexed' GROUP BY f.id",
    )
    .all();
  return new Map(rows.map((row) => [row.path, { hash: row.hash, chunks: row.chunks }]));
}

/**
 * The index agrees with its manifest: each indexed file has exactly the chunks a complete index
 * has for the same content (all or nothing), no other file has chunks, and every chunk has one
 * vector and no vector lacks its chunk.
 */
export function indexAgreesWithManifest(db, reference) {
  const problems = [];
  // Killed between creating the file and creating its tables: a database without them, which the
  // next run creates as in a new one. Without chunks, nothing in it can disagree.
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
  if (!tables.has("files") || !tables.has("chunks")) return { ok: true, problems, indexed: 0, chunks: 0 };
  if (!tables.has("chunk_vectors")) {
    const chunks = db.prepare("SELECT count(*) AS n FROM chunks").get().n;
    if (chunks > 0) problems.push(`${chunks} chunks and no vector table`);
    return { ok: problems.length === 0, problems, indexed: 0, chunks };
  }
  const stray = db.prepare("SELECT count(*) AS n FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.status != 'indexed'").get().n;
  if (stray) problems.push(`${stray} chunks of files not indexed`);
  const withoutVector = db
    .prepare("SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.rowid = c.id)")
    .get().n;
  if (withoutVector) problems.push(`${withoutVector} chunks without a vector`);
  const orphanVectors = db
    .prepare("SELECT count(*) AS n FROM chunk_vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.rowid)")
    .get().n;
  if (orphanVectors) problems.push(`${orphanVectors} vectors without a chunk`);
  let partialFiles = 0;
  if (reference) {
    for (const [path, { hash, chunks }] of chunkCountsByPath(db)) {
      const expected = reference.get(path);
      if (expected && expected.hash === hash && expected.chunks !== chunks) partialFiles++;
    }
    if (partialFiles) problems.push(`${partialFiles} files whose chunks differ from a complete index`);
  }
  const counts = db
    .prepare("SELECT (SELECT count(*) FROM files WHERE status = 'indexed') AS indexed, (SELECT count(*) FROM chunks) AS chunks")
    .get();
  return { ok: problems.length === 0, problems, ...counts };
}

/**
 * Opens the project as `sylk` does and loads both full-text indexes (snapshot, then reconciled
 * with the tables): each must hold exactly its table's documents. Also reports freshness.
 */
export async function fullTextAgrees(repo, root, env) {
  const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
  const services = openProject({ root, env });
  try {
    const code = services.codeFullText.load();
    const history = services.historyFullText.load();
    const chunks = services.files.counts().chunks;
    const entries = services.entries.count();
    const problems = [];
    if (services.codeFullText.size !== chunks) problems.push(`code full text holds ${services.codeFullText.size} of ${chunks} chunks`);
    if (services.historyFullText.size !== entries)
      problems.push(`history full text holds ${services.historyFullText.size} of ${entries} entries`);
    const freshness = await services.indexer.checkFreshness();
    return {
      ok: problems.length === 0,
      problems,
      reconciled: code.added + code.removed + history.added + history.removed,
      state: freshness.state,
    };
  } finally {
    await services.close();
  }
}

/**
 * A session as stored. A turn is committed once its assistant message is in `session_messages`
 * (the recorder appends it after the response's entries). Reports, against the turns the process
 * printed (`assistant` events of stream-json) before it was killed:
 * lost (printed, not stored), duplicated (stored twice), gaps (missing numbers between stored
 * turns), a turn counter that disagrees with the messages, entries recorded for a turn whose
 * message is missing, calls left without results, and evictions pointing at missing references.
 */
export function sessionState(db, sessionId, printedTurns = []) {
  const session = db.prepare("SELECT turns FROM sessions WHERE id = ?").get(sessionId);
  if (!session)
    return {
      exists: false,
      lost: printedTurns.length,
      duplicated: 0,
      gaps: 0,
      counterOff: false,
      orphanEntries: 0,
      unansweredCalls: 0,
      danglingEvictions: 0,
      turns: [],
    };
  const rows = db
    .prepare("SELECT ordinal, role, content, turn, entry_ids FROM session_messages WHERE session_id = ? ORDER BY ordinal")
    .all(sessionId);
  const assistantTurns = rows.filter((row) => row.role === "assistant").map((row) => row.turn);
  // A turn the model never answered is closed with a note: an assistant message whose entry is marked
  // `unanswered`, numbered with the turn it closes (after a kill, the last one recorded). It is stored, so
  // its turn is neither lost nor a gap; but it is no answer, so it is neither a second one to that turn
  // nor counted by the session's turn counter, which counts answers.
  const notes = new Set(
    db
      .prepare("SELECT id FROM content_entries WHERE session_id = ? AND json_extract(metadata, '$.unanswered') IS NOT NULL")
      .all(sessionId)
      .map((entry) => entry.id),
  );
  const answerTurns = rows
    .filter((row) => row.role === "assistant" && !JSON.parse(row.entry_ids).some((id) => notes.has(id)))
    .map((row) => row.turn);
  const stored = new Set(assistantTurns);
  const duplicated = answerTurns.length - new Set(answerTurns).size;
  const lost = printedTurns.filter((turn) => !stored.has(turn)).length;
  const max = Math.max(0, ...assistantTurns);
  let gaps = 0;
  for (let turn = 1; turn <= max; turn++) if (!stored.has(turn)) gaps++;
  const inMessages = new Set(rows.flatMap((row) => JSON.parse(row.entry_ids)));
  const responses = db
    .prepare("SELECT id FROM content_entries WHERE session_id = ? AND content_type IN ('agent_response', 'tool_call')")
    .all(sessionId);
  const orphanEntries = responses.filter((entry) => !inMessages.has(entry.id)).length;
  let unansweredCalls = 0;
  rows.forEach((row, index) => {
    if (row.role !== "assistant") return;
    const calls = JSON.parse(row.content)
      .filter((block) => block.type === "tool_use")
      .map((block) => block.id);
    const next = rows[index + 1];
    const answered = new Set(
      next?.role === "user"
        ? JSON.parse(next.content)
            .filter((block) => block.type === "tool_result")
            .map((block) => block.toolUseId)
        : [],
    );
    unansweredCalls += calls.filter((id) => !answered.has(id)).length;
  });
  const references = new Set(
    db
      .prepare("SELECT id FROM context_references WHERE session_id = ?")
      .all(sessionId)
      .map((row) => row.id),
  );
  // Evictions are runs of message ordinals (session_evictions); each message of a run whose reference is missing counts.
  const danglingEvictions = db
    .prepare("SELECT first_ordinal, last_ordinal, reference_id FROM session_evictions WHERE session_id = ?")
    .all(sessionId)
    .filter((run) => !references.has(run.reference_id))
    .reduce((sum, run) => sum + run.last_ordinal - run.first_ordinal + 1, 0);
  return {
    exists: true,
    lost,
    duplicated,
    gaps,
    counterOff: session.turns !== answerTurns.length,
    orphanEntries,
    unansweredCalls,
    danglingEvictions,
    turns: assistantTurns,
    references: references.size,
  };
}

/** A stack trace in what a command printed: the user should see a sentence, not `at …` frames. */
export function hasStackTrace(text) {
  return /^\s+at .+\(?.+:\d+:\d+\)?$/m.test(text) || /^(TypeError|RangeError|ReferenceError|SqliteError|Error): /m.test(text);
}
