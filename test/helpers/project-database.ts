import { createRequire } from "node:module";
import Database from "better-sqlite3";
import type * as SqliteVec from "sqlite-vec";
import { IndexWriter } from "../../src/indexer/index-writer.js";
import type { ProjectPaths } from "../../src/project/project-paths.js";
import { CodeVectorIndex } from "../../src/search/code-vector-index.js";
import { PersistentFullText } from "../../src/search/persistent-full-text.js";
import { FileRepository } from "../../src/store/file-repository.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { VectorStore } from "../../src/store/vector-store.js";

const require = createRequire(import.meta.url);
const sqliteVec = require("sqlite-vec") as typeof SqliteVec;

/**
 * The project's SQLite file on a connection of the test's own, with
 * sqlite-vec loaded so that every table reads: for what no repository
 * offers, such as planting a corrupt or an old state, or reading every table
 * raw. `openProject` keeps its handle to itself. The caller closes this one.
 */
export function openProjectDatabase(paths: Pick<ProjectPaths, "database">): Database.Database {
  const db = new Database(paths.database);
  try {
    sqliteVec.load(db);
    db.pragma("busy_timeout = 10000");
    // As the project's own connection has it: deleting a file's row deletes its chunks and symbols.
    db.pragma("foreign_keys = ON");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** `use` on the project's database, on a connection opened for it and closed after. */
export function withProjectDatabase<T>(paths: Pick<ProjectPaths, "database">, use: (db: Database.Database) => T): T {
  const db = openProjectDatabase(paths);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/**
 * The code index's stores on a connection of the test's own, as another
 * process (`sylk index`) holds them, and a writer over them
 * (`commitSliceMs` as `IndexWriter` takes it).
 */
export function codeIndexStores(db: Database.Database, embedder: { id: string; dimensions: number }) {
  const files = new FileRepository(db);
  const vectors = new VectorStore(db, embedder.id, embedder.dimensions);
  const repository = new FullTextRepository(db);
  const fullText = new PersistentFullText(repository, "code");
  const vectorIndex = new CodeVectorIndex(vectors, () => repository.dataVersion());
  const writer = (commitSliceMs?: number) => new IndexWriter(db, files, vectors, fullText, vectorIndex, commitSliceMs);
  return { files, fullText, writer };
}
