import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchResponseJson } from "../../src/app/project-search.js";
import type { StatusJson } from "../../src/cli/commands/status-command.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
const cli = (args: string[], input?: string) => runCli(args, { cwd: project.root, env: project.env, ...(input ? { input } : {}) });

beforeAll(async () => {
  project = createTempProject({
    "src/auth/jwt.ts":
      "// Validates JSON web tokens for the auth middleware.\nexport function validateToken(token: string) {\n  return token.split('.').length === 3;\n}\n",
    "src/billing/invoice.py": 'def render_invoice(order):\n    """Render an invoice as PDF."""\n    return order.total\n',
    "docs/setup.md": "# Setup\n\nInstall the dependencies, then run the server.\n",
  });
  const run = await cli(["index"]);
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => project.cleanup());

describe("sylk index", () => {
  it("prints plain progress lines on a pipe and a summary on stdout", async () => {
    project.write("src/extra.ts", "export const extra = 1;\n");
    const run = await cli(["index"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\[█{20}\] 100% - Indexed 1 \/ 1 files \(\d+ files\/s\)/);
    expect(run.stdout).toMatch(/^Done: 1 files indexed, 1 chunks, 0 removed, 0 skipped, 0 failed in/);
  });

  it("prints JSON events with --json and says when the index is fresh", async () => {
    const run = await cli(["index", "--json"]);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout);
    expect(events.map((event) => event.phase ?? event.type)).toEqual(["scanning", "indexing", "saving", "complete", "summary"]);
    expect(events.at(-1)).toMatchObject({ type: "summary", before: "fresh", indexed: 0 });
  });

  it("clamps a workerThreads the machine cannot use, says so once, and indexes", async () => {
    const other = createTempProject({ ".sylkrc": JSON.stringify({ index: { workerThreads: 10_000 } }), "a.ts": "export const a = 1;\n" });
    try {
      const run = await runCli(["index"], { cwd: other.root, env: other.env });
      expect(run.code, run.stderr).toBe(0);
      const said = run.stderr.split("\n").filter((line) => line.includes("index.workerThreads"));
      expect(said).toEqual([
        expect.stringMatching(
          /^sylk: index\.workerThreads is 10000 \(.*\.sylkrc\), more than this machine can use; using \d+ \(2 per CPU core, \d+ cores? here\)\.$/,
        ),
      ]);
      expect(run.stdout).toMatch(/^Done: 2 files indexed/);
    } finally {
      other.cleanup();
    }
  });

  it("indexes a path given as argument and remembers consent", async () => {
    const other = createTempProject({ "a.ts": "export const a = 1;\n" });
    try {
      const run = await runCli(["index", other.root, "--yes"], { cwd: project.root, env: other.env });
      expect(run.code, run.stderr).toBe(0);
      const status = await runCli(["status", "--json"], { cwd: other.root, env: other.env });
      expect(JSON.parse(status.stdout)).toMatchObject({ state: "fresh", consent: true, files: { indexed: 1 } });
    } finally {
      other.cleanup();
    }
  });
});

describe("sylk search", () => {
  it("answers with the JSON contract: relative paths, line ranges, scores, signals, snippets", async () => {
    const run = await cli(["search", "--json", "--k", "2", "validate JSON web token"]);
    expect(run.code, run.stderr).toBe(0);
    const response = JSON.parse(run.stdout) as SearchResponseJson;
    expect(response.query).toBe("validate JSON web token");
    // Only jwt.ts has these words; the built-in vectors' next neighbour may re-order full text's files, not join them.
    expect(response.results.map((result) => result.path)).toEqual(["src/auth/jwt.ts"]);
    const [top] = response.results;
    expect(top).toMatchObject({ path: "src/auth/jwt.ts", startLine: 1, endLine: 4 });
    expect(top?.score).toBeGreaterThan(0);
    expect(top?.signals.fulltext?.rank).toBe(1);
    expect(top?.signals.vector?.rank).toBeGreaterThanOrEqual(1);
    expect(top?.snippet).toContain("validateToken");
    expect(response.degraded).toBeUndefined();
  });

  it("reads one query per stdin line with --json - and answers one object per line", async () => {
    const run = await cli(["search", "--json", "-"], "render invoice pdf\n\ninstall dependencies\n");
    expect(run.code, run.stderr).toBe(0);
    const responses = jsonLines(run.stdout) as unknown as SearchResponseJson[];
    expect(responses.map((response) => [response.query, response.results[0]?.path])).toEqual([
      ["render invoice pdf", "src/billing/invoice.py"],
      ["install dependencies", "docs/setup.md"],
    ]);
  });

  it("uses one signal when asked and prints readable text by default", async () => {
    const json = await cli(["search", "--json", "--signals", "fulltext", "render_invoice"]);
    const response = JSON.parse(json.stdout) as SearchResponseJson;
    expect(response.results.map((result) => Object.keys(result.signals))).toEqual([["fulltext"]]);

    const text = await cli(["search", "render invoice"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^1\. src\/billing\/invoice\.py:1-3 {2}\(fulltext #1 · vector #1\)\n {4}def render_invoice/);
  });

  it("rejects bad arguments with exit code 42", async () => {
    expect((await cli(["search", "--k", "0", "x"])).code).toBe(42);
    expect((await cli(["search", "--scope", "nowhere", "x"])).code).toBe(42);
    expect((await cli(["search", "--signals", "magic", "x"])).code).toBe(42);
    const stdinWithoutJson = await cli(["search", "-"]);
    expect(stdinWithoutJson.code).toBe(42);
    expect(stdinWithoutJson.stderr).toContain("needs --json");
  });

  it("tells the user to index first when there is no index", async () => {
    const empty = createTempProject({ "a.ts": "x" });
    try {
      const run = await runCli(["search", "x"], { cwd: empty.root, env: empty.env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("has not been indexed yet");
      expect(run.stderr).toContain("sylk index");
    } finally {
      empty.cleanup();
    }
  });
});

describe("sylk status", () => {
  it("reports files, chunks, entries, vectors, freshness and size", async () => {
    const run = await cli(["status", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.stdout) as StatusJson;
    expect(status).toMatchObject({ state: "fresh", entries: 0, failures: [], consent: true });
    expect(status.files.indexed).toBeGreaterThanOrEqual(3);
    expect(status.chunks).toBe(status.vectors.chunks);
    expect(status.vectors.embedder).toBe("builtin-trigram-v1:256");
    expect(status.indexBytes).toBeGreaterThan(0);
    expect(Date.parse(status.lastRefresh ?? "")).not.toBeNaN();

    project.write("src/new.ts", "export const fresh = false;\n");
    const stale = JSON.parse((await cli(["status", "--json"])).stdout) as StatusJson;
    expect(stale.state).toBe("stale");
    expect(stale.stale).toMatchObject({ added: 1, changed: 0, deleted: 0 });
    const text = await cli(["status"]);
    expect(text.stdout).toMatch(/State: +stale: 1 added, 0 changed, 0 removed \(run `sylk index`\)/);
  });

  it("fails with exit code 52 and names the key when the config is malformed", async () => {
    project.write(".sylkrc", '{ "search": { "rrfK": "sixty" } }');
    try {
      const run = await cli(["status"]);
      expect(run.code).toBe(52);
      expect(run.stderr).toMatch(/\.sylkrc: key "search\.rrfK"/);
    } finally {
      project.remove(".sylkrc");
    }
  });
});
