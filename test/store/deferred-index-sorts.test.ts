import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/store/database.js";
import {
  DEFERRED_INDEX_CACHE_KIB,
  dropDeferredIndexes,
  ensureDeferredIndexes,
  missingDeferredIndexes,
} from "../../src/store/deferred-indexes.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const onLinux = process.platform === "linux";

let project: TempProject | undefined;
let db: SqliteDatabase | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  project?.cleanup();
  project = undefined;
});

const COMPILED = (module: string) => pathToFileURL(fileURLToPath(new URL(`../../dist/src/store/${module}.js`, import.meta.url))).href;

/**
 * A child (the compiled modules: run `npm run build` first) that opens the database as the indexer does, reads the
 * symbols' table once (mapped the same in both builds), then builds the missing deferred indexes, by
 * `ensureDeferredIndexes` or as they were built before (each definition in a transaction, sorted as the connection sorts),
 * and prints how far that raised its resident high-water mark, in MiB.
 */
const BUILDER = `
import { readFileSync, writeFileSync } from "node:fs";
import { openDatabase } from ${JSON.stringify(COMPILED("database"))};
import { DEFERRED_INDEXES, ensureDeferredIndexes } from ${JSON.stringify(COMPILED("deferred-indexes"))};
const [path, how] = process.argv.slice(1);
const highWaterKib = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
const db = openDatabase(path);
db.prepare("SELECT count(*), sum(length(name)) FROM symbols").get();
// Writing 5 to clear_refs sets the high-water mark back to what is resident now (Linux 4.0 and later).
writeFileSync("/proc/self/clear_refs", "5");
const before = highWaterKib();
if (how === "ensure") ensureDeferredIndexes(db);
else db.transaction(() => { for (const { sql } of DEFERRED_INDEXES) db.exec(sql); })();
process.stdout.write(String((highWaterKib() - before) / 1024));
db.close();
`;

/** How far building the deferred indexes raised a fresh process's resident high-water mark, in MiB. */
function residentRise(path: string, how: "ensure" | "connection's cache"): number {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", BUILDER, path, how], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(`the child failed: ${child.stderr}`);
  return Number(child.stdout);
}

/** A database file, its deferred indexes dropped as a first index drops them, holding `count` symbols of one file. */
function databaseWithSymbols(count: number): SqliteDatabase {
  project = createTempProject();
  const database = openDatabase(`${project.sylkHome}/index.db`);
  dropDeferredIndexes(database);
  database.transaction(() => {
    database
      .prepare("INSERT INTO files (id, path, directory, size, mtime_ms, status, indexed_at) VALUES (1, 'a.rs', '', 1, 0, 'indexed', 0)")
      .run();
    const insert = database.prepare("INSERT INTO symbols (file_id, name, kind, start_line, end_line) VALUES (1, ?, 'function', ?, ?)");
    // Distinct names in no order, as a tree's symbols come: the sort has every key to place.
    for (let index = 0; index < count; index++) insert.run(`symbol_${(Math.imul(index, 2654435761) >>> 0).toString(36)}`, index, index);
  })();
  return database;
}

describe("the deferred indexes' sorts", () => {
  it.runIf(onLinux)("sort in runs of the smaller cache from a temporary file, where the connection sorted every key in memory", () => {
    db = databaseWithSymbols(1_000_000);
    const path = db.name;
    db.close();
    db = undefined;

    const rise = residentRise(path, "ensure");
    db = openDatabase(path);
    expect(missingDeferredIndexes(db)).toEqual([]);
    dropDeferredIndexes(db);
    db.close();
    db = undefined;
    const plainRise = residentRise(path, "connection's cache");

    // A million names sorted in memory whole: 92 MiB measured (docs/DESIGN-NOTES.md, *The sorts' memory*).
    expect(plainRise).toBeGreaterThan(40);
    // At most the smaller cache filled and a sorted run of its size: 16.7 MiB measured.
    expect(rise).toBeLessThan((2 * DEFERRED_INDEX_CACHE_KIB) / 1024 + 8);
  });

  it("build each missing index once and leave the cache and the temporary store as they were, also when a build fails", () => {
    project = createTempProject();
    db = openDatabase(`${project.sylkHome}/index.db`);
    db.pragma("cache_size = -12345");
    expect(db.pragma("temp_store", { simple: true })).toBe(2);
    dropDeferredIndexes(db);
    // A failing definition stands in for a disk that fills mid-build.
    db.exec("CREATE TABLE idx_symbols_name (x)");
    expect(() => ensureDeferredIndexes(db as SqliteDatabase)).toThrow();
    expect(db.pragma("cache_size", { simple: true })).toBe(-12_345);
    expect(db.pragma("temp_store", { simple: true })).toBe(2);
    db.exec("DROP TABLE idx_symbols_name");
    expect(ensureDeferredIndexes(db).length).toBe(5);
    expect(db.pragma("cache_size", { simple: true })).toBe(-12_345);
    expect(db.pragma("temp_store", { simple: true })).toBe(2);
    expect(ensureDeferredIndexes(db)).toEqual([]);
  });

  it("keep a connection's temporary tables, which a change of where it sorts would drop", () => {
    project = createTempProject();
    db = openDatabase(`${project.sylkHome}/index.db`);
    db.exec("CREATE TEMP TABLE held (x); INSERT INTO held VALUES (1)");
    dropDeferredIndexes(db);
    expect(ensureDeferredIndexes(db).length).toBe(5);
    expect(db.prepare("SELECT x FROM temp.held").pluck().get()).toBe(1);
    expect(db.pragma("temp_store", { simple: true })).toBe(2);
  });
});
