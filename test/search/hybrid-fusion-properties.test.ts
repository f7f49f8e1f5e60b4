import { realpathSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { trustGatedProjectSettings } from "../../src/config/load-config.js";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import { drainIndex } from "../helpers/drain.js";
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from "../helpers/fake-embedding-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

// Properties of the fusion through the real search path: a configured embedding model whose vectors
// the test sets itself (a marker word in each file picks its vector; the query has none).

let project: TempProject;
let services: ProjectServices;
let server: FakeEmbeddingServer;

afterEach(async () => {
  await services.close();
  await server.close();
  project.cleanup();
});

/** The configuration's smallest model: the test's two axes and zeros. */
const DIMENSIONS = 8;

async function open(files: Record<string, string>, embed: (text: string) => [number, number]): Promise<void> {
  server = await startFakeEmbeddingServer({ embed: (text) => [...embed(text), ...new Array<number>(DIMENSIONS - 2).fill(0)] });
  project = createTempProject(files);
  project.write(
    ".sylkrc",
    JSON.stringify({ embedding: { provider: "openai-compatible", baseUrl: server.baseUrl, model: "fake-8", dimensions: DIMENSIONS } }),
  );
  new FolderTrustStore(project.sylkHome).trust(realpathSync(project.root), trustGatedProjectSettings(project.root, project.env), "test");
  services = openProject({ root: project.root, env: project.env });
  await drainIndex(services);
  for await (const _progress of services.backfill.run());
  expect(services.embedder.evidence).toBe("meaning");
}

const paths = async (query: string, signals?: Array<"fulltext" | "vector">) =>
  (await services.codeSearcher.search(query, { limit: 20, ...(signals ? { signals } : {}) })).hits.map((hit) => hit.path);

// winner.ts says the query's words most; runner.ts and middle.ts some of them; the others one common word.
const LEAD = {
  "src/winner.ts":
    "// winnermark\n// evict stale entries: evict stale entries, then evict stale entries again\nexport const evictStale = 1;\n",
  "src/runner.ts": "// runnermark\n// evict the entries\nexport const runner = 2;\n",
  "src/middle.ts": "// middlemark\n// stale\nexport const middle = 3;\n",
  ...Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`src/other-${index}.ts`, `// othermark\n// entries ${index}\n`])),
};

/** The query (no marker) points along the first axis; each file by its marker. */
function leadVectors(text: string): [number, number] {
  if (text.includes("runnermark")) return [1, 0];
  if (text.includes("middlemark")) return [0.95, 0.31];
  if (text.includes("winnermark")) return [0.9, 0.44];
  if (text.includes("othermark")) return [0, 1];
  return [1, 0];
}

describe("the hybrid's fusion, through the real search path", () => {
  it("keeps full text's order when the vectors cannot tell the files apart", async () => {
    await open(LEAD, () => [1, 0]);
    const query = "evict stale entries";
    const fulltext = await paths(query, ["fulltext"]);
    expect(fulltext[0]).toBe("src/winner.ts");
    expect(fulltext.length).toBeGreaterThanOrEqual(3);
    const hybrid = await paths(query);
    expect(hybrid.slice(0, fulltext.length)).toEqual(fulltext);
    expect(hybrid).toEqual(expect.arrayContaining(Object.keys(LEAD)));
  });

  it("keeps full text's clear first file when the vectors prefer others only a little", async () => {
    await open(LEAD, leadVectors);
    const query = "evict stale entries";
    expect((await paths(query, ["fulltext"]))[0]).toBe("src/winner.ts");
    // The vectors rank winner.ts third, behind two files full text scored far lower: rank fusion put runner.ts first.
    expect((await paths(query, ["vector"])).slice(0, 3)).toEqual(["src/runner.ts", "src/middle.ts", "src/winner.ts"]);
    expect((await paths(query))[0]).toBe("src/winner.ts");
  });

  it("lets the vectors decide between files full text cannot tell apart", async () => {
    const twins = {
      "src/twin-a.ts": "// twinamark\n// refresh the token cache\n",
      "src/twin-b.ts": "// twinbmark\n// refresh the token cache\n",
      "src/unrelated.ts": "// othermark\n// parse the ledger\n",
    };
    await open(twins, (text) => (text.includes("twinamark") ? [0.6, 0.8] : text.includes("othermark") ? [0, 1] : [1, 0]));
    const query = "refresh token cache";
    const fulltext = await paths(query, ["fulltext"]);
    expect(fulltext).toEqual(["src/twin-a.ts", "src/twin-b.ts"]);
    const scores = (await services.codeSearcher.search(query, { limit: 5, signals: ["fulltext"] })).hits.map(
      (hit) => hit.signals.fulltext?.score,
    );
    expect(scores[0]).toBeCloseTo(scores[1] ?? 0, 9);
    expect((await paths(query)).slice(0, 2)).toEqual(["src/twin-b.ts", "src/twin-a.ts"]);
  });

  it("lifts a file both signals rank high above the first file of each", async () => {
    // alpha.ts says the query's words a little more often than shared.ts; beta.ts says one of them.
    const files = {
      "src/alpha.ts": "// alphamark\n// evict stale entries, evict\n",
      "src/shared.ts": "// sharedmark\n// evict stale entries\n",
      "src/beta.ts": "// betamark\n// stale\n",
      ...Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`src/other-${index}.ts`, `// othermark\n// entries ${index}\n`])),
    };
    await open(files, (text) =>
      text.includes("sharedmark") ? [0.97, 0.24] : text.includes("alphamark") || text.includes("othermark") ? [0, 1] : [1, 0],
    );
    const query = "evict stale entries";
    expect((await paths(query, ["fulltext"])).slice(0, 2)).toEqual(["src/alpha.ts", "src/shared.ts"]);
    expect((await paths(query, ["vector"])).slice(0, 2)).toEqual(["src/beta.ts", "src/shared.ts"]);
    expect((await paths(query))[0]).toBe("src/shared.ts");
  });
});
