import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { compareAsDirectories, compareUtf8 } from "../../src/files/utf8-order.js";
import { scanTree } from "../../src/indexer/scanner.js";
import { DirectoryStatesInPathOrder } from "../../src/store/directory-state-pages.js";
import { drainIndex } from "../helpers/drain.js";
import { openProjectDatabase, withProjectDatabase } from "../helpers/project-database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * Sibling names whose paths do not sort as their names do: `-`, `.` and a
 * space sort below `/`, so `a/x` comes after `a-b`, `a.c` and `a b`; `ä`
 * is two bytes, U+E000 three, and 😀 four (a surrogate pair in UTF-16,
 * which orders it below U+E000).
 */
const TRICKY_FILES: Record<string, string> = {
  "a/x/one.ts": "export const one = 1;\n",
  "a/two.ts": "export const two = 2;\n",
  "a-b/three.ts": "export const three = 3;\n",
  "a.c/four.ts": "export const four = 4;\n",
  "a b/five.ts": "export const five = 5;\n",
  "ab/six.ts": "export const six = 6;\n",
  "ä/seven.ts": "export const seven = 7;\n",
  "\uE000/eight.ts": "export const eight = 8;\n",
  "😀/nine.ts": "export const nine = 9;\n",
  "b/c/d/ten.ts": "export const ten = 10;\n",
};
const PAGE_ROWS = 3;

let project: TempProject;
let services: ProjectServices;

beforeEach(() => {
  project = createTempProject(TRICKY_FILES);
  services = openProject({ root: project.root, env: project.env, racyWindowMs: Number.NEGATIVE_INFINITY });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

/** The fresh check's walk against the stored states, read `PAGE_ROWS` at a time on a connection of the test's own. */
async function walkAgainstStoredStates() {
  const db = openProjectDatabase(services.paths);
  try {
    const states = new DirectoryStatesInPathOrder(db, PAGE_ROWS);
    const scan = await scanTree(project.root, services.loadedConfig.config.index, {
      previous: states,
      racyWindowMs: Number.NEGATIVE_INFINITY,
    });
    return { scan, mostHeld: states.mostHeld };
  } finally {
    db.close();
  }
}

describe("the stored directory states read as the walk reaches them", () => {
  it("hands every directory its state while holding a page and one row set aside, not the table", async () => {
    await drainIndex(services);
    const stored = withProjectDatabase(services.paths, (db) => db.prepare("SELECT count(*) FROM directory_states").pluck().get());
    expect(stored).toBe(13); // the root and 12 directories
    const { scan, mostHeld } = await walkAgainstStoredStates();
    expect(scan.changed).toEqual([]);
    expect(scan.vanished).toEqual([]);
    expect(scan.directories).toBe(13);
    // `a` is read before `a b`, `a-b` and `a.c` are walked, and waits for its turn: one row.
    expect(mostHeld).toBeLessThanOrEqual(PAGE_ROWS + 1);
  });

  it("still finds every added, changed and removed directory and file among pages", async () => {
    await drainIndex(services);
    rmSync(join(project.root, "a-b"), { recursive: true });
    rmSync(join(project.root, "b/c"), { recursive: true });
    project.write("a.c/four.ts", "export const four = 'four, longer';\n");
    mkdirSync(join(project.root, "a.d"));
    writeFileSync(join(project.root, "a.d/new.ts"), "export const added = true;\n");
    writeFileSync(join(project.root, "😀/ten.ts"), "export const ten = 10;\n");
    const { scan } = await walkAgainstStoredStates();
    expect(scan.changed.map((directory) => directory.path).sort()).toEqual(["", "a.c", "a.d", "b", "😀"].sort());
    expect([...scan.vanished].sort()).toEqual(["a-b", "b/c", "b/c/d"]);
    const report = await services.indexer.checkFreshness();
    expect(report.state).toBe("stale");
    expect(report.diff.added.map((file) => file.path).sort()).toEqual(["a.d/new.ts", "😀/ten.ts"]);
    expect(report.diff.changed.map((file) => file.path)).toEqual(["a.c/four.ts"]);
    expect([...report.diff.deleted].sort()).toEqual(["a-b/three.ts", "b/c/d/ten.ts"]);
  });

  it("a directory gone since its parent was read keeps no state", async () => {
    await drainIndex(services);
    const db = openProjectDatabase(services.paths);
    const states = new DirectoryStatesInPathOrder(db, PAGE_ROWS);
    // Taken for `b`: its subdirectory `b/c` is removed before the walk gets there.
    const removeOnTake = {
      take: (path: string) => {
        if (path === "b") rmSync(join(project.root, "b/c"), { recursive: true });
        return states.take(path);
      },
      untaken: () => states.untaken(),
    };
    const scan = await scanTree(project.root, services.loadedConfig.config.index, { previous: removeOnTake }).finally(() => db.close());
    expect([...scan.vanished].sort()).toEqual(["b/c", "b/c/d"]);
  });
});

describe("the walk's order is the database's", () => {
  const tricky = fc.string({ unit: fc.constantFrom("a", "b", "-", ".", " ", "/", "~", "ä", "\uE000", "\uFFFD", "😀"), maxLength: 6 });

  it("compareUtf8 sorts as SQLite's ORDER BY does", () => {
    const db = new Database(":memory:");
    try {
      db.exec("CREATE TABLE t (path TEXT PRIMARY KEY) WITHOUT ROWID");
      const insert = db.prepare("INSERT OR IGNORE INTO t VALUES (?)");
      fc.assert(
        fc.property(fc.uniqueArray(tricky, { maxLength: 30 }), (paths) => {
          db.exec("DELETE FROM t");
          for (const path of paths) insert.run(path);
          const bySqlite = db.prepare("SELECT path FROM t ORDER BY path").pluck().all();
          expect([...paths].sort(compareUtf8)).toEqual(bySqlite);
        }),
        { seed: 26, numRuns: 300 },
      );
    } finally {
      db.close();
    }
  });

  it("a depth-first walk in compareAsDirectories order meets each path at most one place away from where it sorts", () => {
    const name = tricky.filter((value) => value.length > 0 && !value.includes("/"));
    fc.assert(
      fc.property(fc.uniqueArray(fc.array(name, { minLength: 1, maxLength: 3 }), { maxLength: 25 }), (segmentLists) => {
        const paths = new Set<string>();
        for (const segments of segmentLists)
          for (let depth = 1; depth <= segments.length; depth++) paths.add(segments.slice(0, depth).join("/"));
        const walked = depthFirst([...paths]);
        const sorted = [...paths].sort(compareUtf8);
        // Each walked path is found by reading forward from where the last one was; what was passed waits.
        const waiting = new Set<string>();
        let next = 0;
        for (const path of walked) {
          if (waiting.delete(path)) continue;
          while (sorted[next] !== path) waiting.add(sorted[next++] as string);
          next++;
          // Only a directory whose name a sibling extends by a character below '/' waits, one per level.
          expect(waiting.size).toBeLessThanOrEqual(3);
        }
        expect(waiting.size).toBe(0);
      }),
      { seed: 26, numRuns: 300 },
    );
  });
});

/** The paths in the order the walk visits them: depth first, siblings in `compareAsDirectories` order. */
function depthFirst(paths: readonly string[]): string[] {
  const children = new Map<string, string[]>();
  for (const path of paths) {
    const slash = path.lastIndexOf("/");
    const parent = slash < 0 ? "" : path.slice(0, slash);
    children.set(parent, [...(children.get(parent) ?? []), path.slice(slash + 1)]);
  }
  const order: string[] = [];
  const visit = (parent: string) => {
    for (const child of [...(children.get(parent) ?? [])].sort(compareAsDirectories)) {
      const path = parent ? `${parent}/${child}` : child;
      order.push(path);
      visit(path);
    }
  };
  visit("");
  return order;
}
