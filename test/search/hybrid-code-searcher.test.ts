import { realpathSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { HybridCodeSearcher } from "../../src/search/hybrid-code-searcher.js";
import { trustGatedProjectSettings } from "../../src/config/load-config.js";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import { drainIndex } from "../helpers/drain.js";
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from "../helpers/fake-embedding-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

// Only cache.ts has the query's words; in a project this small every chunk is among the vectors' neighbours.
const FILES = {
  "src/cache.ts": "// Evicts stale entries from the cache.\nexport function evictStaleEntries() { return 0; }\n",
  "src/router.ts": "export function matchRoute(path: string) { return path; }\n",
  "src/ledger.ts": "export function exportLedger(rows: number[]) { return rows.join(','); }\n",
};

let project: TempProject;
let services: ProjectServices;
let server: FakeEmbeddingServer | undefined;

afterEach(async () => {
  await services.close();
  await server?.close();
  server = undefined;
  project.cleanup();
});

async function open(embedding?: Record<string, unknown>, files: Record<string, string> = FILES): Promise<void> {
  project = createTempProject(files);
  if (embedding) {
    project.write(".sylkrc", JSON.stringify({ embedding }));
    // A project's own embedding endpoint applies in a folder the user trusts.
    new FolderTrustStore(project.sylkHome).trust(realpathSync(project.root), trustGatedProjectSettings(project.root, project.env), "test");
  }
  services = openProject({ root: project.root, env: project.env });
  await drainIndex(services);
  // A configured model's vectors are filled after indexing, as `sylk index` does.
  for await (const _progress of services.backfill.run());
}

const paths = async (query: string, signals?: Array<"fulltext" | "vector">) =>
  (await services.codeSearcher.search(query, { limit: 10, ...(signals ? { signals } : {}) })).hits.map((hit) => hit.path);

describe("HybridCodeSearcher's fusion, by what the embedder knows", () => {
  it("lets the built-in embedder's vectors only re-order what full text found", async () => {
    await open();
    expect(services.embedder.evidence).toBe("spelling");
    expect(await paths("evict stale entries", ["fulltext"])).toEqual(["src/cache.ts"]);
    expect((await paths("evict stale entries", ["vector"])).length).toBeGreaterThan(1);
    expect(await paths("evict stale entries")).toEqual(["src/cache.ts"]);
  });

  it("lets the built-in embedder's vectors answer alone when full text finds nothing", async () => {
    await open();
    // Misspellings no full-text term matches; their trigrams still have neighbours.
    const query = "evcit stael entires";
    expect(await paths(query, ["fulltext"])).toEqual([]);
    const vector = await paths(query, ["vector"]);
    expect(vector.length).toBeGreaterThan(0);
    expect(await paths(query)).toEqual(vector);
  });

  it("gives the built-in embedder's vote to every file full text found, also those beyond its own nearest", async () => {
    // Full text ranks far.ts first (both words), near.ts second; a dozen files of look-alike words
    // (ledge, grounding: other stems, shared trigrams) fill the vectors' nearest ten, without far.ts.
    const lookAlikes = Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => [
        `src/look-alike-${index}.ts`,
        `// ledge grounding ledges ${index}\nexport const ledge${index} = "grounding";\n`,
      ]),
    );
    const unrelated = Array.from({ length: 4 }, (_, index) => `parse${index} tokenize${index} schedule${index}`).join(" ");
    await open(undefined, {
      ...lookAlikes,
      "src/far.ts": `// ledger rounding\n// ${unrelated}\n`,
      "src/near.ts": "// ledger ledge grounding\nexport const ledge = 1;\n",
      ".sylkrc": JSON.stringify({ search: { vectorCandidates: 10 } }),
    });
    const query = "ledger rounding";
    expect(await paths(query, ["fulltext"])).toEqual(["src/far.ts", "src/near.ts"]);
    const nearestTen = (await services.codeSearcher.search(query, { limit: 10, signals: ["vector"] })).hits.map((hit) => hit.path);
    expect(nearestTen).not.toContain("src/far.ts");
    for (const warm of [false, true]) {
      if (warm) services.codeSearcher.warm();
      // limit 2: the vectors' own nearest are 10 (max(vectorCandidates, 4 × limit)).
      const hits = (await services.codeSearcher.search(query, { limit: 2 })).hits;
      expect(hits.map((hit) => hit.path)).toEqual(["src/far.ts", "src/near.ts"]);
      expect(hits.map((hit) => hit.signals.vector?.rank)).toEqual([expect.any(Number), expect.any(Number)]);
    }
  });

  it("fuses a configured model's neighbours with full text's hits at equal weight", async () => {
    server = await startFakeEmbeddingServer();
    await open({ provider: "openai-compatible", baseUrl: server.baseUrl, model: "fake-26", dimensions: 26, timeoutMs: 2000 });
    expect(services.embedder.evidence).toBe("meaning");
    const vector = await paths("evict stale entries", ["vector"]);
    expect(vector.length).toBeGreaterThan(1);
    const hybrid = await paths("evict stale entries");
    expect(hybrid[0]).toBe("src/cache.ts");
    expect(new Set(hybrid)).toEqual(new Set(vector));
  });
});

describe("HybridCodeSearcher's prior on the kind of file", () => {
  // The changelog and the test say the query's words more often than the source that implements them.
  const files = {
    "src/cache.ts": "export function evictStaleEntries(cache: Map<string, number>) {\n  return cache.size;\n}\n",
    "CHANGELOG.md": "## 1.2.0\n\n- Evict stale entries.\n- Stale entries: evict them.\n- Evict stale entries again.\n",
    "src/cache.test.ts":
      "it('evicts stale entries', () => {\n  // stale entries: evict stale entries\n  expect(evictStaleEntries(new Map())).toBe(0);\n});\n",
  };

  it("ranks the source above prose and tests that outscore it, in each signal and in the fusion", async () => {
    await open(undefined, files);
    const query = "evict stale entries";
    const fulltext = (await services.codeSearcher.search(query, { limit: 10, signals: ["fulltext"] })).hits;
    const score = (path: string) => fulltext.find((hit) => hit.path === path)?.signals.fulltext?.score ?? 0;
    // Full text's own scores put the changelog and the test first; each signal's score is kept as it gave it.
    expect(score("CHANGELOG.md")).toBeGreaterThan(score("src/cache.ts"));
    expect(score("src/cache.test.ts")).toBeGreaterThan(score("src/cache.ts"));
    expect(fulltext[0]?.path).toBe("src/cache.ts");
    expect(fulltext.map((hit) => hit.signals.fulltext?.rank)).toEqual([1, 2, 3]);
    for (const warm of [false, true]) {
      if (warm) services.codeSearcher.warm();
      expect((await paths(query, ["vector"]))[0]).toBe("src/cache.ts");
      expect(await paths(query)).toEqual(expect.arrayContaining(Object.keys(files)));
      expect((await paths(query))[0]).toBe("src/cache.ts");
    }
  });
});

describe("HybridCodeSearcher's bulk reads", () => {
  it("tells its caller after each search that read the database in bulk, and after no other", async () => {
    await open();
    let bulkReads = 0;
    const searcher = new HybridCodeSearcher({
      files: services.files,
      fullText: services.codeFullText,
      vectors: services.vectors,
      vectorIndex: services.codeVectorIndex,
      embedder: services.embedder,
      config: services.loadedConfig.config.search,
      afterBulkRead: () => bulkReads++,
    });
    services.codeFullText.unload();
    const search = async (signals?: Array<"fulltext" | "vector">) =>
      (await searcher.search("evict stale entries", signals ? { signals } : {})).hits.map((hit) => hit.path);

    expect(await search(["fulltext"])).toEqual(["src/cache.ts"]);
    expect(bulkReads).toBe(1); // the full-text index was loaded
    await search(["fulltext"]);
    expect(bulkReads).toBe(1); // served from memory
    await search();
    await search(["vector"]);
    expect(bulkReads).toBe(3); // sqlite-vec scanned every stored vector, twice
    services.codeVectorIndex.warm();
    expect(await search()).toEqual(["src/cache.ts"]);
    expect(bulkReads).toBe(3); // the in-memory tier answered
    searcher.warm();
    expect(bulkReads).toBe(4);
  });
});
