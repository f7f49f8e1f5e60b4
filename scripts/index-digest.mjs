#!/usr/bin/env node
// What an index holds, as two digests, to show that two builds indexed a
// tree the same: SHA-256 (first 16 hex digits) of every chunk's path,
// ordinal, lines, kind, symbols, content, terms, term count, token count
// and vector bytes, in path and ordinal order; and of the manifest's rows
// (path, size, hash, language, status, reason, lines, description,
// priority), in path order. Ids, times and the full-text snapshot's bytes
// are left out (ids are given in commit order, which the workers' timing
// decides).
//
//   node scripts/index-digest.mjs --home <SYLK_HOME>   (its one project)
//   node scripts/index-digest.mjs --db <vector.db>
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parseArgs } from "node:util";

const require = createRequire(import.meta.url);
const Database = require("better-sqlite3");
const sqliteVec = require("sqlite-vec");

const { values } = parseArgs({ options: { home: { type: "string" }, db: { type: "string" } } });
let path = values.db;
if (!path && values.home) {
  const projects = readdirSync(join(values.home, "projects"));
  if (projects.length !== 1) throw new Error(`${values.home} holds ${projects.length} projects; give --db`);
  path = join(values.home, "projects", projects[0], "vector.db");
}
if (!path) {
  console.error("Usage: node scripts/index-digest.mjs --home <SYLK_HOME> | --db <vector.db>");
  process.exit(2);
}

const db = new Database(path, { readonly: true });
sqliteVec.load(db);

/** Each value length-prefixed, so that no two rows can hash alike by shifting text between fields. */
function feed(hash, values) {
  for (const value of values) {
    const bytes = value instanceof Uint8Array ? value : Buffer.from(value === null ? "\u0000null" : String(value), "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  }
}

const chunkHash = createHash("sha256");
const vector = db.prepare("SELECT embedding FROM chunk_vectors WHERE rowid = ?").pluck();
let chunks = 0;
let vectors = 0;
const rows = db
  .prepare(
    `SELECT c.id, f.path, c.ordinal, c.start_line, c.end_line, c.kind, c.symbols, c.content, c.terms, c.term_count, c.token_count
     FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal`,
  )
  .raw();
for (const [id, ...fields] of rows.iterate()) {
  const bytes = vector.get(id);
  if (bytes) vectors++;
  feed(chunkHash, [...fields, bytes ?? "no vector"]);
  chunks++;
}

const manifestHash = createHash("sha256");
let files = 0;
const manifest = db
  .prepare("SELECT path, size, content_hash, language, status, reason, line_count, description, priority FROM files ORDER BY path")
  .raw();
for (const row of manifest.iterate()) {
  feed(manifestHash, row);
  files++;
}

console.log(
  JSON.stringify({
    chunks,
    vectors,
    files,
    chunkDigest: chunkHash.digest("hex").slice(0, 16),
    manifestDigest: manifestHash.digest("hex").slice(0, 16),
  }),
);
