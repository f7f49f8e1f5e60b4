import { renameSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import type { IndexSummary } from "../../src/indexer/project-indexer.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { withProjectDatabase } from "../helpers/project-database.js";

let project: TempProject;
let services: ProjectServices;

async function index(): Promise<IndexSummary> {
  return drainIndex(services);
}

/** Files whose text matches (full text: the vector signal always returns nearest neighbours). */
async function paths(query: string): Promise<string[]> {
  const outcome = await services.codeSearcher.search(query, { limit: 20, signals: ["fulltext"] });
  return outcome.hits.map((hit) => hit.path);
}

async function topHybrid(query: string): Promise<string | undefined> {
  return (await services.codeSearcher.search(query, { limit: 5 })).hits[0]?.path;
}

beforeEach(() => {
  project = createTempProject({
    "src/alpha.ts": "export function computeAlphaChecksum(input: string) {\n  return input.length;\n}\n",
    "src/beta.py": "def render_beta_invoice(order):\n    return order.total\n",
    "docs/guide.md": "# Guide\n\nHow to configure the gamma reactor.\n",
  });
  services = openProject({ root: project.root, env: project.env });
});

afterEach(async () => {
  await services.close();
  project.cleanup();
});

describe("refresh", () => {
  it("builds once, then is fresh without touching anything", async () => {
    const first = await index();
    expect(first).toMatchObject({ before: "missing", indexed: 3, failed: 0, interrupted: false });
    const freshness = await services.indexer.checkFreshness();
    expect(freshness.state).toBe("fresh");
    const second = await index();
    expect(second).toMatchObject({ before: "fresh", indexed: 0, added: 0, changed: 0, deleted: 0 });
  });

  it("drops deleted and renamed files and picks up new and changed ones", async () => {
    await index();
    expect(await paths("computeAlphaChecksum")).toContain("src/alpha.ts");

    project.remove("docs/guide.md");
    renameSync(join(project.root, "src/beta.py"), join(project.root, "src/invoices.py"));
    project.write("src/alpha.ts", "export function computeOmegaDigest(input: string) {\n  return 1;\n}\n");
    project.write("src/new.go", "package main\n\nfunc LaunchDeltaProbe() {}\n");

    const report = await services.indexer.checkFreshness();
    expect(report.state).toBe("stale");
    expect(report.diff.deleted.sort()).toEqual(["docs/guide.md", "src/beta.py"]);
    expect(report.diff.added.map((file) => file.path).sort()).toEqual(["src/invoices.py", "src/new.go"]);
    expect(report.diff.changed.map((file) => file.path)).toEqual(["src/alpha.ts"]);
    expect(report.changedDirectories.sort()).toEqual(["docs", "src"]);

    const summary = await index();
    expect(summary).toMatchObject({ before: "stale", added: 2, changed: 1, deleted: 2, indexed: 3 });

    expect(await paths("gamma reactor")).not.toContain("docs/guide.md");
    expect(await paths("render_beta_invoice")).toEqual(["src/invoices.py"]);
    expect(await paths("checksum")).not.toContain("src/alpha.ts");
    expect(await paths("computeOmegaDigest")).toEqual(["src/alpha.ts"]);
    expect(await paths("LaunchDeltaProbe")).toEqual(["src/new.go"]);
    expect(await topHybrid("LaunchDeltaProbe")).toBe("src/new.go");
    expect(await topHybrid("render beta invoice")).toBe("src/invoices.py");
    expect(services.files.counts()).toMatchObject({ files: 3, indexed: 3 });
    expect((await services.indexer.checkFreshness()).state).toBe("fresh");
  });

  it("re-stats a touched file without re-chunking unchanged content", async () => {
    await index();
    const before = services.files.getChunks([1])[0];
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(project.root, "src/alpha.ts"), future, future);
    const summary = await index();
    expect(summary).toMatchObject({ changed: 1, indexed: 0, unchangedContent: 1 });
    expect(services.files.getChunks([1])[0]).toEqual(before);
    expect((await services.indexer.checkFreshness()).state).toBe("fresh");
  });

  it("removes a file from the index when it becomes ignored", async () => {
    await index();
    project.write(".sylkignore", "docs/\n");
    const summary = await index();
    expect(summary.deleted).toBe(1);
    expect(await paths("gamma reactor")).not.toContain("docs/guide.md");
  });

  it("refreshes just the paths a watcher reports, honouring the same rules", async () => {
    await index();
    project.write("src/alpha.ts", "export function computeOmegaDigest() {}\n");
    project.remove("src/beta.py");
    project.write("src/gamma.rs", "pub fn spin_gamma_wheel() {}\n");
    project.write(".env.local", "TOKEN=abc\n");
    project.write("node_modules/x/index.js", "ignored\n");
    const summary = await services.indexer.refreshPaths([
      "src/alpha.ts",
      "src/beta.py",
      "src/gamma.rs",
      ".env.local",
      "node_modules/x/index.js",
      "docs/guide.md",
    ]);
    expect(summary).toMatchObject({ added: 1, changed: 1, deleted: 1, skipped: 1, indexed: 2, failed: 0 });
    expect(await paths("computeOmegaDigest")).toEqual(["src/alpha.ts"]);
    expect((await paths("spin_gamma_wheel"))[0]).toBe("src/gamma.rs");
    expect(await paths("render_beta_invoice")).toEqual([]);
    expect((await services.indexer.checkFreshness()).state).toBe("fresh");
    expect(await services.indexer.refreshPaths(["src/alpha.ts"])).toMatchObject({ before: "fresh", indexed: 0 });
  });

  it("survives a restart: the full-text snapshot is loaded, not rebuilt from the files", async () => {
    await index();
    await services.close();
    services = openProject({ root: project.root, env: project.env });
    const loaded = services.codeFullText.load();
    expect(loaded).toEqual({ added: 0, removed: 0 });
    expect(await paths("render_beta_invoice")).toEqual(["src/beta.py"]);
  });
});

describe("a refresh of a handful of files", () => {
  it("parses them on this thread, with the same chunks, terms and vectors the workers give", async () => {
    const edited = "export function computeOmegaDigest(input: string) {\n  return input.split('').reverse().join('');\n}\n";
    const reference = createTempProject({ "src/alpha.ts": edited, "src/beta.py": "def f():\n    return 1\n" });
    const referenceServices = openProject({ root: reference.root, env: reference.env });
    try {
      await drainIndex(referenceServices);

      await index();
      await services.close();
      // A new process, as `sylk index` after an edit is.
      services = openProject({ root: project.root, env: project.env });
      project.write("src/alpha.ts", edited);
      const summary = await index();
      expect(summary).toMatchObject({ changed: 1, indexed: 1 });
      expect((services.indexer as unknown as { pool: unknown }).pool).toBeUndefined();

      const rows = (target: ProjectServices) =>
        withProjectDatabase(target.paths, (db) =>
          db
            .prepare(
              "SELECT c.ordinal, c.start_line, c.end_line, c.kind, c.symbols, c.content, c.terms, c.term_count, v.embedding FROM chunks c JOIN files f ON f.id = c.file_id JOIN chunk_vectors v ON v.rowid = c.id WHERE f.path = 'src/alpha.ts' ORDER BY c.ordinal",
            )
            .raw()
            .all(),
        );
      expect(rows(services)).toEqual(rows(referenceServices));
      expect(rows(services).length).toBeGreaterThan(0);
    } finally {
      await referenceServices.close();
      reference.cleanup();
    }
  });
});
