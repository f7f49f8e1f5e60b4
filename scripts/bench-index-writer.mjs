#!/usr/bin/env node
// The main thread's commit work of a first index, alone: every file of an
// indexed project (its manifest rows, chunks, symbols and sketches, read
// back from its database) committed again through a build's `IndexWriter`
// into a new database, in batches of 100 as `sylk index` commits them, with
// a manifest that knows none of them. One child process per build and
// round, builds alternated; each prints the main thread's CPU for the
// commits (`process.threadCpuUsage`), the figure that compares under load.
// Vectors are made up (seeded, 256 dimensions as the built-in embedder's):
// their bytes cost the same to write. The full-text index is the in-memory
// one, as a first index below 5,000 files builds it; with --segmented, the
// snapshot built on disk a segment at a time and saved at the end, as a first
// index above 5,000 files (`sylk index` on biome) builds it. With --split,
// each round also prints where the main thread's time went: each statement's
// calls by the table it writes (wall time around every call, which on one
// thread is its CPU less what other threads take of the core: read it at a
// low load), the transactions' COMMIT (better-sqlite3 prepares its own, so
// it has a line like any statement), the in-memory indexes' `apply`, and
// the snapshot's save. With --segmented, a build that defers a first index's
// secondary indexes (`store/deferred-indexes.js`) drops them before the
// commits and builds them after, as the indexer does, inside the figure.
//
//   npm run build && node scripts/bench-index-writer.mjs --database <an indexed project's vector.db>
//        [--rounds 3] [--build <another checkout, built> …] [--segmented] [--split]
//
// Without --build, this checkout. The database is only read.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { loadAverages } from "./lib/proc-stats.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    database: { type: "string" },
    rounds: { type: "string", default: "3" },
    build: { type: "string", multiple: true },
    segmented: { type: "boolean", default: false },
    split: { type: "boolean", default: false },
    child: { type: "string" },
  },
});
if (!values.database) {
  console.error("Usage: node scripts/bench-index-writer.mjs --database <vector.db> [--rounds 3] [--build <checkout> …]");
  process.exit(2);
}

if (values.child) {
  await replay(resolve(values.child), resolve(values.database));
} else {
  const builds = (values.build ?? [repo]).map((path) => resolve(path));
  const cpu = new Map(builds.map((build) => [build, []]));
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const build of builds) {
      const flags = [values.segmented ? ["--segmented"] : [], values.split ? ["--split"] : []].flat();
      const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--database", values.database, "--child", build, ...flags], {
        encoding: "utf8",
      });
      if (run.status !== 0) throw new Error(`${build}: ${run.stderr}`);
      const lines = run.stdout.trim().split("\n");
      const seconds = Number(lines.pop());
      for (const line of lines) console.log(`  ${line}`);
      cpu.get(build).push(seconds);
      console.log(`round ${round}, load ${readLoad()}: ${build} ${seconds.toFixed(2)} s of main-thread CPU`);
    }
  }
  for (const [build, runs] of cpu)
    console.log(`${build}: median ${median(runs).toFixed(2)} s (${runs.map((s) => s.toFixed(2)).join(", ")})`);
}

async function replay(build, source) {
  const load = (path) => import(pathToFileURL(join(build, "dist/src", path)).href);
  const Database = createRequire(join(build, "package.json"))("better-sqlite3");
  const { openDatabase } = await load("store/database.js");
  const { FileRepository } = await load("store/file-repository.js");
  const { VectorStore } = await load("store/vector-store.js");
  const { FullTextRepository } = await load("store/full-text-repository.js");
  const { PersistentFullText } = await load("search/persistent-full-text.js");
  const { CodeVectorIndex } = await load("search/code-vector-index.js");
  const { IndexWriter } = await load("indexer/index-writer.js");

  const results = processedFiles(new Database(source, { readonly: true }));
  const timings = values.split ? timeStatements(Database) : undefined;
  const scratch = mkdtempSync(join(tmpdir(), "bench-index-writer-"));
  try {
    const db = openDatabase(join(scratch, "vector.db"));
    const files = new FileRepository(db);
    const vectors = new VectorStore(db, "hashing-trigram-256", 256);
    const repository = new FullTextRepository(db);
    const fullText = new PersistentFullText(repository, "code");
    const vectorIndex = new CodeVectorIndex(vectors, () => repository.dataVersion());
    if (values.segmented && !fullText.beginSegmentedBuild()) throw new Error("no segmented build on a new database");
    // As the indexer does around a first index it builds on disk, in a build that defers the secondary indexes.
    const deferred = values.segmented ? await load("store/deferred-indexes.js").catch(() => undefined) : undefined;
    if (timings) {
      timings.wrap(fullText, "apply", "full-text apply");
      timings.wrap(vectorIndex, "apply", "vector index apply");
    }
    const writer = new IndexWriter(db, files, vectors, fullText, vectorIndex);
    const before = process.threadCpuUsage();
    deferred?.dropDeferredIndexes(db);
    for (let start = 0; start < results.length; start += 100) await writer.commitBatch(results.slice(start, start + 100), new Map());
    if (values.segmented) await (timings ? timings.timed("full-text snapshot saved", () => fullText.checkpoint()) : fullText.checkpoint());
    if (deferred)
      timings ? timings.timed("deferred indexes built", () => deferred.ensureDeferredIndexes(db)) : deferred.ensureDeferredIndexes(db);
    const used = process.threadCpuUsage(before);
    db.close();
    if (timings) timings.report((used.user + used.system) / 1e3);
    console.log(`user ${(used.user / 1e6).toFixed(2)} s, system ${(used.system / 1e6).toFixed(2)} s`);
    console.log((used.user + used.system) / 1e6);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Wall time around every call of a statement's run/get/all, by the table
 * its SQL writes or reads (the transactions' BEGIN and COMMIT are
 * better-sqlite3's own prepared statements, so they count too), and around
 * the methods wrapped.
 */
function timeStatements(Database) {
  const spent = new Map();
  const calls = new Map();
  const add = (key, ms) => {
    spent.set(key, (spent.get(key) ?? 0) + ms);
    calls.set(key, (calls.get(key) ?? 0) + 1);
  };
  const tableOf = (sql) => {
    const match = /^\s*(INSERT INTO|DELETE FROM|UPDATE|SELECT .*? FROM)\s+(\w+)/is.exec(sql);
    return match ? `${match[1].split(" ")[0].toUpperCase()} ${match[2]}` : sql.slice(0, 40);
  };
  const timed = (key, run) => {
    const started = performance.now();
    try {
      return run();
    } finally {
      add(key, performance.now() - started);
    }
  };
  const patched = new WeakSet();
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (sql, ...rest) {
    const statement = prepare.call(this, sql, ...rest);
    const prototype = Object.getPrototypeOf(statement);
    if (!patched.has(prototype)) {
      patched.add(prototype);
      for (const method of ["run", "get", "all"]) {
        const original = prototype[method];
        prototype[method] = function (...args) {
          return timedStatement(this, original, args);
        };
      }
    }
    return statement;
  };
  // A statement run inside a wrapped method (the snapshot's save) counts under both.
  const timedStatement = (statement, original, args) => {
    const started = performance.now();
    try {
      return original.apply(statement, args);
    } finally {
      const ms = performance.now() - started;
      add(tableOf(statement.source), ms);
    }
  };
  return {
    timed,
    wrap(object, method, key) {
      const original = object[method].bind(object);
      object[method] = (...args) => timed(key, () => original(...args));
    },
    report(cpuMs) {
      const rows = [...spent].sort((a, b) => b[1] - a[1]);
      for (const [key, ms] of rows) console.log(`${key.padEnd(32)} ${(ms / 1000).toFixed(3)} s in ${calls.get(key)} calls`);
      console.log(`${"main-thread CPU in all".padEnd(32)} ${(cpuMs / 1000).toFixed(3)} s`);
    },
  };
}

/** The project's files as the workers handed them to the writer, in the order a cold index commits them (by priority). */
function processedFiles(source) {
  const grouped = (sql) => {
    const byFile = new Map();
    for (const row of source.prepare(sql).iterate()) {
      if (!byFile.has(row.fileId)) byFile.set(row.fileId, []);
      byFile.get(row.fileId).push(row);
    }
    return byFile;
  };
  const chunks = grouped(
    `SELECT file_id AS fileId, ordinal, start_line AS startLine, end_line AS endLine, kind, symbols, content,
       token_count AS tokenCount, terms, term_count AS termCount FROM chunks ORDER BY file_id, ordinal`,
  );
  const symbols = grouped("SELECT file_id AS fileId, name, kind, start_line AS startLine, end_line AS endLine FROM symbols ORDER BY id");
  const sketches = new Map(source.prepare("SELECT file_id, sketch FROM file_sketches").raw().all());
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff - 0.5;
  };
  return source
    .prepare(
      `SELECT id, path, size, mtime_ms AS mtimeMs, content_hash AS contentHash, language, status, reason,
         line_count AS lineCount, description, priority FROM files ORDER BY priority DESC, path`,
    )
    .all()
    .map(({ id, ...file }) => ({
      ...file,
      secretsMasked: 0,
      sketch: sketches.get(id) ?? null,
      chunks: (chunks.get(id) ?? []).map(({ fileId, ...chunk }) => ({
        ...chunk,
        symbols: JSON.parse(chunk.symbols),
        vector: Float32Array.from({ length: 256 }, random),
      })),
      symbols: (symbols.get(id) ?? []).map(({ fileId, ...symbol }) => symbol),
    }));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function readLoad() {
  return loadAverages().split(" ")[0];
}
