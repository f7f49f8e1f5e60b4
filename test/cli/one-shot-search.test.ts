import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { searchProject, type SearchResponseJson } from "../../src/app/project-search.js";
import { openDatabase } from "../../src/store/database.js";
import { FullTextRepository } from "../../src/store/full-text-repository.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * `sylk search "…"` in a new process reads only its query's postings (and
 * no longer loads the whole full-text index): its answers must be those of
 * a process that has the index loaded, to the last bit of every score.
 */

// Words that recur in most files (as `crate` or `src` do in a monorepo) and a long tail.
const COMMON = ["value", "result", "config", "parse", "token"];
const TAIL = Array.from(
  { length: 120 },
  (_, index) =>
    `${["load", "render", "cache", "index", "route", "queue"][index % 6]}${["Item", "Node", "Entry", "Table", "Frame"][index % 5]}${index}`,
);

/** A seeded project of a few dozen source files in a few directories. */
function generatedFiles(seed: number): Record<string, string> {
  let state = seed;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const files: Record<string, string> = {};
  for (let file = 0; file < 36; file++) {
    const directory = pick(["src/parser", "src/render", "src/cache", "lib/queue", "docs"]);
    const lines: string[] = [];
    const functions = 2 + Math.floor(random() * 5);
    for (let fn = 0; fn < functions; fn++) {
      const name = pick(TAIL);
      lines.push(`// ${pick(COMMON)} ${pick(TAIL)} ${pick(COMMON)} for the ${pick(TAIL)}`);
      lines.push(`export function ${name}(${pick(COMMON)}: string) {`);
      for (let line = 0; line < 3 + Math.floor(random() * 30); line++) {
        lines.push(`  const ${pick(COMMON)}${line} = ${pick(TAIL)}(${pick(COMMON)}, "${pick(TAIL)} ${pick(COMMON)}");`);
      }
      lines.push(`  return ${pick(COMMON)};`, "}", "");
    }
    files[`${directory}/${pick(TAIL)}-${file}.ts`] = lines.join("\n");
  }
  return files;
}

const QUERIES = [
  "parse value",
  "renderItem1 cache",
  "loadEntry30 queue",
  "config token result parse value",
  "src parser",
  "route frame table",
  "missingword",
];

let project: TempProject;
let services: ProjectServices;
const oneShot = async (args: string[]) => {
  const run = await runCli(["search", "--json", ...args], { cwd: project.root, env: project.env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as SearchResponseJson;
};
const withoutTiming = ({ tookMs: _tookMs, ...response }: SearchResponseJson) => response;

beforeAll(async () => {
  project = createTempProject(generatedFiles(7));
  expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
  snapshotAfterFirstIndex = codeSnapshotState();
  // Changed after the first snapshot: a file edited, one removed, one added.
  const [edited, removed] = Object.keys(generatedFiles(7));
  project.write(edited as string, "export function parseValue(token: string) {\n  return token;\n}\n");
  project.remove(removed as string);
  project.write("src/cache/added.ts", "// cache value for the renderItem1\nexport const cacheValue = 1;\n");
  expect((await runCli(["index"], { cwd: project.root, env: project.env })).code).toBe(0);
  snapshotAfterEdits = codeSnapshotState();
  services = openProject({ root: project.root, env: project.env });
}, 60_000);

let snapshotAfterFirstIndex: { bytes: number; deferred: number };
let snapshotAfterEdits: { bytes: number; deferred: number };

/** The saved code snapshot's size and the changes waiting to be folded into it, as `sylk index` left them. */
function codeSnapshotState(): { bytes: number; deferred: number } {
  const db = openDatabase(resolveProjectPaths(project.root, project.env).database);
  try {
    const repository = new FullTextRepository(db);
    return { bytes: repository.snapshotBytes("code"), deferred: repository.deferredChanges("code") };
  } finally {
    db.close();
  }
}
afterAll(async () => {
  await services?.close();
  project.cleanup();
});

async function expectSameAsLoaded(): Promise<void> {
  for (const query of QUERIES) {
    for (const k of ["10", "3"]) {
      const inProcess = await searchProject(services, query, { k: Number(k), scope: "code" });
      expect(inProcess.results.length, query).toBeGreaterThan(query === "missingword" ? -1 : 0);
      expect(withoutTiming(await oneShot(["--k", k, query])), query).toEqual(withoutTiming(inProcess));
    }
  }
}

/** Changes the chunks table from another connection, as a process that defers its full-text changes (or crashed) leaves it. */
function changeBehindTheSnapshot(change: string): void {
  const db = openDatabase(services.paths.database);
  try {
    db.exec(change);
  } finally {
    db.close();
  }
}

describe("a one-shot sylk search", () => {
  it("follows edits that sylk index left for the next load, the small snapshot not rewritten", () => {
    expect(snapshotAfterFirstIndex.bytes).toBeGreaterThan(0);
    expect(snapshotAfterEdits.bytes).toBe(snapshotAfterFirstIndex.bytes);
    expect(snapshotAfterEdits.deferred).toBeGreaterThan(0);
  });

  it("ranks, scores and cuts snippets exactly as a process with the full-text index loaded", async () => {
    services.codeFullText.load();
    await expectSameAsLoaded();
  });

  it("still does once documents were added after the snapshot, and once some of its own were removed", async () => {
    // Added: copies of chunks under new ids (above the snapshot's highest).
    changeBehindTheSnapshot(`INSERT INTO chunks (file_id, ordinal, start_line, end_line, kind, symbols, content, token_count, terms, term_count)
      SELECT file_id, ordinal + 1000, start_line, end_line, kind, symbols, content, token_count, terms, term_count FROM chunks WHERE id % 3 = 0`);
    await expectSameAsLoaded();
    // Removed: a file, its chunks and their vectors.
    changeBehindTheSnapshot(`CREATE TEMP TABLE gone AS SELECT file_id FROM chunks ORDER BY id LIMIT 1 OFFSET 5;
      DELETE FROM chunk_vectors WHERE rowid IN (SELECT id FROM chunks WHERE file_id IN (SELECT file_id FROM gone));
      DELETE FROM files WHERE id IN (SELECT file_id FROM gone);`);
    await expectSameAsLoaded();
  });

  it("gives the full-text signal exactly as the warm searcher does", async () => {
    // Warm: the full-text index and the in-memory vector tier (whose int8 scores differ from sqlite-vec's).
    services.codeSearcher.warm();
    for (const query of QUERIES) {
      const inProcess = await searchProject(services, query, { k: 10, scope: "code", signals: ["fulltext"] });
      expect(withoutTiming(await oneShot(["--signals", "fulltext", query])), query).toEqual(withoutTiming(inProcess));
    }
  });
});
