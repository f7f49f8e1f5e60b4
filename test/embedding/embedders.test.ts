import { realpathSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { OpenAICompatibleEmbedder } from "../../src/embedding/openai-compatible-embedder.js";
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from "../helpers/fake-embedding-server.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { trustGatedProjectSettings } from "../../src/config/load-config.js";
import { FolderTrustStore } from "../../src/project/folder-trust.js";

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

describe("HashingEmbedder (built-in)", () => {
  it("makes unit vectors of the configured size, deterministically", async () => {
    const embedder = new HashingEmbedder(384);
    const [first, again] = await Promise.all([embedder.embed(["optimizer cleanup"]), embedder.embed(["optimizer cleanup"])]);
    expect(first[0]).toHaveLength(384);
    expect(cosine(first[0] as Float32Array, first[0] as Float32Array)).toBeCloseTo(1, 5);
    expect(Array.from(first[0] as Float32Array)).toEqual(Array.from(again[0] as Float32Array));
  });

  it("puts morphological variants closer than unrelated words", async () => {
    const [optimize, optimizer, invoice] = await new HashingEmbedder().embed(["optimize", "optimizerRunner", "invoice"]);
    expect(cosine(optimize as Float32Array, optimizer as Float32Array)).toBeGreaterThan(0.5);
    expect(cosine(optimize as Float32Array, invoice as Float32Array)).toBeLessThan(0.2);
  });
});

describe("OpenAICompatibleEmbedder", () => {
  let server: FakeEmbeddingServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("posts batches to /v1/embeddings with the model and key, and normalises the vectors", async () => {
    server = await startFakeEmbeddingServer();
    const embedder = new OpenAICompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: "fake-26",
      dimensions: 26,
      apiKey: "k-123",
      batchSize: 2,
      timeoutMs: 5000,
    });
    const vectors = await embedder.embed(["aa", "ab", "zz"], "document");
    expect(server.requests.map((request) => request.input)).toEqual([["aa", "ab"], ["zz"]]);
    expect(server.requests[0]).toMatchObject({ model: "fake-26", authorization: "Bearer k-123" });
    expect(vectors[0]?.[0]).toBeCloseTo(1, 5);
    expect(embedder.id).toBe("openai-compatible:fake-26:26");
  });

  it("explains a wrong dimension and a failing server", async () => {
    server = await startFakeEmbeddingServer();
    const wrong = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 10, batchSize: 8, timeoutMs: 5000 });
    await expect(wrong.embed(["x"], "query")).rejects.toThrow(/returns 26-dimensional vectors; set embedding.dimensions to 26/);
    await server.close();
    server = await startFakeEmbeddingServer({ failWith: 503 });
    const failing = new OpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: "m", dimensions: 26, batchSize: 8, timeoutMs: 5000 });
    await expect(failing.embed(["x"], "query")).rejects.toThrow(/answered 503/);
  });
});

describe("configured embedders end to end", () => {
  let project: TempProject;
  let server: FakeEmbeddingServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    project.cleanup();
  });

  const setUp = (baseUrl: string) => {
    project = createTempProject({
      "src/cache.ts": "export function evictStaleEntries() { return 0; }\n",
      "src/router.ts": "export function matchRoute(path: string) { return path; }\n",
    });
    project.write(
      ".sylkrc",
      JSON.stringify({ embedding: { provider: "openai-compatible", baseUrl, model: "fake-26", dimensions: 26, timeoutMs: 2000 } }),
    );
    // A project's own embedding endpoint applies in a folder the user trusts.
    new FolderTrustStore(project.sylkHome).trust(realpathSync(project.root), trustGatedProjectSettings(project.root, project.env), "test");
  };

  it("fills vectors from an OpenAI-compatible server and searches with them", async () => {
    server = await startFakeEmbeddingServer();
    setUp(server.baseUrl);
    const index = await runCli(["index", "--json"], { cwd: project.root, env: project.env });
    expect(index.code, index.stderr).toBe(0);
    expect(jsonLines(index.stdout).at(-1)).toMatchObject({ type: "summary", vectorsEmbedded: 3 }); // two sources and .sylkrc
    const status = JSON.parse((await runCli(["status", "--json"], { cwd: project.root, env: project.env })).stdout);
    expect(status.vectors).toEqual({ chunks: 3, entries: 0, embedder: "openai-compatible:fake-26:26" });
    const search = await runCli(["search", "--json", "--signals", "vector", "evict stale entries"], {
      cwd: project.root,
      env: project.env,
    });
    expect(JSON.parse(search.stdout).results[0].path).toBe("src/cache.ts");
  });

  it("degrades to full text, and says so, when the embedding server is unreachable", async () => {
    server = await startFakeEmbeddingServer();
    const unreachable = server.baseUrl;
    await server.close();
    server = undefined;
    setUp(unreachable);
    const index = await runCli(["index"], { cwd: project.root, env: project.env });
    expect(index.code, index.stderr).toBe(0);
    expect(index.stderr).toContain("Vector embedding failed");
    const search = await runCli(["search", "--json", "matchRoute"], { cwd: project.root, env: project.env });
    expect(search.code, search.stderr).toBe(0);
    const response = JSON.parse(search.stdout);
    expect(response.results[0].path).toBe("src/router.ts");
    expect(response.degraded).toEqual([expect.stringMatching(/^vector search failed: /)]);
  });
});
