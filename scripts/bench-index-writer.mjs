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
// one, as a first index below 5,000 files builds it.
//
//   npm run build && node scripts/bench-index-writer.mjs --database <an indexed project's vector.db>
//        [--rounds 3] [--build <another checkout, built> …]
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
      const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--database", values.database, "--child", build], {
        encoding: "utf8",
      });
      if (run.status !== 0) throw new Error(`${build}: ${run.stderr}`);
      const seconds = Number(run.stdout.trim());
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
  const scratch = mkdtempSync(join(tmpdir(), "bench-index-writer-"));
  try {
    const db = openDatabase(join(scratch, "vector.db"));
    const files = new FileRepository(db);
    const vectors = new VectorStore(db, "hashing-trigram-256", 256);
    const repository = new FullTextRepository(db);
    const writer = new IndexWriter(
      db,
      files,
      vectors,
      new PersistentFullText(repository, "code"),
      new CodeVectorIndex(vectors, () => repository.dataVersion()),
    );
    const before = process.threadCpuUsage();
    for (let start = 0; start < results.length; start += 100) await writer.commitBatch(results.slice(start, start + 100), new Map());
    const used = process.threadCpuUsage(before);
    db.close();
    console.log((used.user + used.system) / 1e6);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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
