import type Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { FileTask, ProcessedFile } from "../../src/indexer/file-processor.js";
import { ProjectIndexer } from "../../src/indexer/project-indexer.js";
import { FileWorkerPool } from "../../src/indexer/worker-pool.js";
import { type CodeSignal, HybridCodeSearcher } from "../../src/search/hybrid-code-searcher.js";
import { DirectoryStateRepository } from "../../src/store/directory-state-repository.js";
import { drainIndex } from "../helpers/drain.js";
import { codeIndexStores, openProjectDatabase } from "../helpers/project-database.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * The same file in twelve one-letter folders: a one-letter folder gives the
 * path no term, so every copy has the same full-text terms and the same
 * vector, and every signal scores them exactly alike.
 */
const COPIES = "abcdefghijkl".split("").map((letter) => `${letter}/retry.ts`);
const RETRY =
  "// Retries a request with exponential backoff.\nexport function retryWithBackoff(attempts: number) {\n  return attempts * 2;\n}\n";
const FILES: Record<string, string> = {
  ...Object.fromEntries(COPIES.map((path) => [path, RETRY])),
  "src/backoff.ts": "// Exponential backoff delays.\nexport const backoffDelay = (attempt: number) => 2 ** attempt;\n",
  "src/ledger.ts": "export function exportLedger(rows: number[]) { return rows.join(','); }\n",
  // Each signal keeps 10 candidates, so its cut falls inside the twelve tied copies.
  ".sylkrc": JSON.stringify({ search: { candidatesPerSignal: 10, vectorCandidates: 10 } }),
};
const QUERY = "retry a request with exponential backoff";

/** Hands a task's results back last file first: the order the writer commits them, and so numbers their chunks, in. */
class LastFileFirstPool extends FileWorkerPool {
  override async run(task: FileTask, signal?: AbortSignal): Promise<ProcessedFile[]> {
    return (await super.run(task, signal)).reverse();
  }
}

const projects: TempProject[] = [];
const opened: ProjectServices[] = [];
const connections: Database.Database[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((services) => services.close()));
  for (const db of connections.splice(0)) db.close();
  for (const project of projects.splice(0)) project.cleanup();
});

/**
 * A new copy of the tree, indexed on the worker pool (as a `sylk index`
 * process would, on a connection of its own) with the workers' results
 * committed in walk order or the reverse; then opened for search.
 */
async function indexedTree(order: "walk order" | "reversed"): Promise<ProjectServices> {
  const project = createTempProject(FILES);
  projects.push(project);
  const services = openProject({ root: project.root, env: project.env });
  opened.push(services);
  const db = openProjectDatabase(services.paths);
  connections.push(db);
  const { files, fullText, writer } = codeIndexStores(db, services.embedder);
  const indexer = new ProjectIndexer({
    root: project.root,
    config: services.loadedConfig.config.index,
    db,
    files,
    directories: new DirectoryStateRepository(db),
    writer: writer(),
    fullText,
    createPool: () => (order === "reversed" ? new LastFileFirstPool({ threads: 1 }) : new FileWorkerPool({ threads: 1 })),
    embeddingDimensions: services.embedder.dimensions,
    workerLingerMs: 0,
  });
  expect(await drainIndex({ indexer })).toMatchObject({ indexed: Object.keys(FILES).length });
  await indexer.close();
  return services;
}

/** Each chunk's id by its file's path. */
function chunkIdsByPath(services: ProjectServices): Map<string, number> {
  return new Map([...services.files.chunkFiles()].map(([chunkId, , path]) => [path, chunkId]));
}

/** What a search shows, tied hits included: each hit's place, path and lines. */
async function ranking(searcher: HybridCodeSearcher, signals: readonly CodeSignal[], limit: number): Promise<string[]> {
  const { hits } = await searcher.search(QUERY, { limit, signals });
  return hits.map((hit) => `${hit.path}:${hit.startLine}-${hit.endLine}`);
}

/** The same searches through the warm in-memory tiers and, for a one-off search, through sqlite-vec. */
function searchersOf(services: ProjectServices): HybridCodeSearcher[] {
  const cold = new HybridCodeSearcher({
    files: services.files,
    fullText: services.codeFullText,
    vectors: services.vectors,
    embedder: services.embedder,
    config: services.loadedConfig.config.search,
  });
  return [services.codeSearcher, cold];
}

describe("rankings of two indexes of the same tree", () => {
  it("are the same, ties included, whichever order the workers' results were committed in", async () => {
    const inWalkOrder = await indexedTree("walk order");
    const reversed = await indexedTree("reversed");
    // The two indexes number the copies in opposite orders: a tie broken by id would rank them oppositely.
    const walkIds = chunkIdsByPath(inWalkOrder);
    const reversedIds = chunkIdsByPath(reversed);
    expect(walkIds.get("a/retry.ts") as number).toBeLessThan(walkIds.get("l/retry.ts") as number);
    expect(reversedIds.get("a/retry.ts") as number).toBeGreaterThan(reversedIds.get("l/retry.ts") as number);

    const signalSets: Array<readonly CodeSignal[]> = [["fulltext"], ["vector"], ["fulltext", "vector"]];
    const [warmWalk, coldWalk] = searchersOf(inWalkOrder) as [HybridCodeSearcher, HybridCodeSearcher];
    const [warmReversed, coldReversed] = searchersOf(reversed) as [HybridCodeSearcher, HybridCodeSearcher];
    for (const signals of signalSets) {
      // Two files: the first two of the tied copies by path, from every signal, warm or not, in both indexes.
      const expected = ["a/retry.ts:1-4", "b/retry.ts:1-4"];
      expect({ signals, ranking: await ranking(warmWalk, signals, 2) }).toEqual({ signals, ranking: expected });
      expect({ signals, ranking: await ranking(warmReversed, signals, 2) }).toEqual({ signals, ranking: expected });
      expect({ signals, ranking: await ranking(coldWalk, signals, 2) }).toEqual({ signals, ranking: expected });
      expect({ signals, ranking: await ranking(coldReversed, signals, 2) }).toEqual({ signals, ranking: expected });
      // Every file the signals rank, in the same order in both indexes.
      const whole = await ranking(warmWalk, signals, 20);
      expect(whole.slice(0, COPIES.length)).toEqual(COPIES.map((path) => `${path}:1-4`));
      expect(await ranking(warmReversed, signals, 20)).toEqual(whole);
      expect(await ranking(coldReversed, signals, 20)).toEqual(await ranking(coldWalk, signals, 20));
    }
  });
});
