import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { fullTextQuery } from "../../src/search/full-text-document.js";
import { drain } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const opened: Array<{ project: TempProject; services: ProjectServices }> = [];
afterEach(async () => {
  for (const { project, services } of opened.splice(0)) {
    await services.close();
    project.cleanup();
  }
});

/** Forty modules (or `count`) whose names share parts, so terms have postings in many files and frequency slots. */
function manyModules(count = 40): Record<string, string> {
  const files: Record<string, string> = {};
  for (let module = 0; module < count; module++) {
    const name = `parser${module % 7}Token${module}`;
    files[`pkg${module % 5}/m${module}.ts`] =
      `export function ${name}(source: string): number {\n  const tokenCount${module} = source.split(" ").length;\n` +
      `  return tokenCount${module} * ${module} + parseWidget(source, "${"widget ".repeat(module % 9)}");\n}\n`;
  }
  return files;
}

function open(files: Record<string, string>, segmentedFullTextAboveFiles?: number, env: NodeJS.ProcessEnv = {}): ProjectServices {
  const project = createTempProject(files);
  const services = openProject({ root: project.root, env: { ...project.env, ...env }, segmentedFullTextAboveFiles });
  opened.push({ project, services });
  return services;
}

const QUERIES = ["parser", "token widget", "source split length", "tokenCount12 widget"].map(fullTextQuery);

function scores(services: ProjectServices, terms: string[]): string[] {
  return services.codeFullText.search(terms, 10).map((hit) => hit.score.toFixed(6));
}

/**
 * `built`'s full text, saved from a build on disk, searches as an index of the same `files` built in memory, and
 * the saved snapshot is exactly the table's: loading it again reconciles nothing.
 */
async function expectSearchesAsBuiltInMemory(built: ProjectServices, files: Record<string, string>): Promise<void> {
  const inMemory = open(files);
  await drain(inMemory.indexer.run());
  expect(inMemory.codeFullText.isLoaded).toBe(true);
  for (const terms of QUERIES) {
    expect(scores(built, terms).length).toBeGreaterThan(0);
    expect(scores(built, terms)).toEqual(scores(inMemory, terms));
  }
  const env = opened.find(({ services }) => services === built)?.project.env ?? {};
  const reopened = openProject({ root: built.paths.root, env });
  try {
    expect(reopened.codeFullText.load()).toEqual({ added: 0, removed: 0 });
  } finally {
    await reopened.close();
  }
}

describe("a first index of more files than segmentedFullTextAboveFiles", () => {
  it("saves the full-text snapshot built on disk, leaves the index unloaded and nothing behind, and searches as an index built in memory", async () => {
    const segmented = open(manyModules(), 10);
    const { result } = await drain(segmented.indexer.run());
    expect(result).toMatchObject({ before: "missing", indexed: 40, failed: 0 });
    expect(segmented.codeFullText.isLoaded).toBe(false);
    expect(readdirSync(segmented.paths.dataDir).filter((name) => name.startsWith("fts-build-"))).toEqual([]);

    await expectSearchesAsBuiltInMemory(segmented, manyModules());
  });

  it("is not used for a first index within the limit, nor for a later run", async () => {
    const services = open(manyModules(), 100);
    await drain(services.indexer.run());
    expect(services.codeFullText.isLoaded).toBe(true);

    const large = open(manyModules(), 10);
    await drain(large.indexer.run());
    const project = opened[1]?.project as TempProject;
    for (let module = 40; module < 60; module++) project.write(`more/m${module}.ts`, `export const zebraStripe${module} = ${module};\n`);
    const { result } = await drain(large.indexer.run());
    expect(result).toMatchObject({ before: "stale", indexed: 20 });
    // Left for the next load to reconcile, as any later run's changes to a saved snapshot are: the search finds them all.
    expect(large.codeFullText.search(["zebra"], 30)).toHaveLength(20);
  });

  it("is used again when the first index is resumed, killed or interrupted: the snapshot holds what every run committed", async () => {
    // Enough files that a run commits several batches (the workers' tasks are up to 32 files).
    const resumed = open(manyModules(200), 10, { SYLK_INDEX_BATCH_SIZE: "10" });
    // Killed, as far as the full text can tell: the run ends after a committed batch without its checkpoint.
    const killed = resumed.indexer.run();
    for (let step = await killed.next(); !step.done; step = await killed.next()) {
      if (step.value.phase === "indexing" && step.value.indexed > 0) {
        await expect(killed.throw(new Error("killed"))).rejects.toThrow("killed");
        break;
      }
    }
    expect(resumed.files.counts().indexed).toBeGreaterThan(0);
    expect(resumed.files.counts().indexed).toBeLessThan(200);
    // Interrupted (Ctrl-C) as it starts: the run ends early and saves a snapshot of what the table holds.
    const stop = new AbortController();
    const interrupted = resumed.indexer.run(stop.signal);
    let step = await interrupted.next();
    for (; !step.done; step = await interrupted.next()) if (step.value.phase === "indexing") stop.abort();
    expect(step.value).toMatchObject({ before: "stale", interrupted: true });
    expect(resumed.codeFullText.isLoaded).toBe(false);
    // The run that completes builds on disk too: nothing of the whole tree's index in this process's memory.
    const { result } = await drain(resumed.indexer.run());
    expect(result).toMatchObject({ before: "stale", interrupted: false, failed: 0 });
    expect(resumed.codeFullText.isLoaded).toBe(false);
    expect(resumed.files.counts().indexed).toBe(200);

    await expectSearchesAsBuiltInMemory(resumed, manyModules(200));
  });

  it("a run that fails once segments have spilled leaves none of them beside the database", async () => {
    // Enough distinct terms (≈ 10 MB of twelve-letter words, in batches of 20 files) that the build spills a segment
    // to disk while the run goes on.
    const word = (n: number) =>
      `q${n
        .toString(26)
        .replace(/./g, (digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)))
        .padStart(11, "a")}`;
    const files: Record<string, string> = {};
    for (let file = 0; file < 200; file++) {
      const words = Array.from({ length: 4_000 }, (_, index) => word(file * 4_000 + index));
      const lines = Array.from({ length: words.length / 8 }, (_, line) => `  "${words.slice(line * 8, line * 8 + 8).join(" ")}",`);
      files[`big/f${file}.ts`] = `export const words = [\n${lines.join("\n")}\n];\n`;
    }
    const services = open(files, 10, { SYLK_INDEX_BATCH_SIZE: "20" });
    const scratch = `${services.paths.dataDir}/fts-build-code-${process.pid}`;
    const run = services.indexer.run();
    let spilled = false;
    for (let step = await run.next(); !step.done; step = await run.next()) {
      if (existsSync(scratch)) {
        spilled = true;
        // What a full disk or a damaged database does mid-run: the run throws.
        await expect(run.throw(new Error("SQLITE_FULL: database or disk is full"))).rejects.toThrow(/disk is full/);
        break;
      }
    }
    expect(spilled).toBe(true);
    expect(readdirSync(services.paths.dataDir).filter((name) => name.startsWith("fts-build-"))).toEqual([]);
  }, 60_000);

  it("removes at the next run what a killed build left, and never a live process's", async () => {
    const services = open({ "a.ts": "export const a = 1;\n" });
    const { dataDir } = services.paths;
    const abandoned = `${dataDir}/fts-build-code-999999999`;
    const running = `${dataDir}/fts-build-code-${process.ppid}`;
    for (const directory of [abandoned, running]) {
      mkdirSync(directory, { recursive: true });
      writeFileSync(`${directory}/segment-0`, "spilled");
    }
    await drain(services.indexer.run());
    expect(readdirSync(dataDir).filter((name) => name.startsWith("fts-build-"))).toEqual([`fts-build-code-${process.ppid}`]);
  });
});
