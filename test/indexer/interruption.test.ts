import type { ChildProcess } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, runCli, startCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const FILES = 3000;
let project: TempProject;

function moduleSource(index: number): string {
  const lines = [`// module ${index}: handles the marker${index} workflow`];
  for (let line = 0; line < 30; line++) lines.push(`export function step${line}Of${index}(value: number) { return value + ${line}; }`);
  return `${lines.join("\n")}\n`;
}

beforeEach(() => {
  project = createTempProject();
  for (let index = 0; index < FILES; index++) project.write(`src/m${Math.floor(index / 100)}/module${index}.ts`, moduleSource(index));
});

afterEach(() => project.cleanup());

/** Everything a started process prints, once it exits. */
function collect(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Resolves with the first JSON progress event that shows work done but not finished. */
function firstPartialProgress(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        const event = JSON.parse(line) as { type: string; phase?: string; indexed?: number; total?: number };
        if (
          event.type === "progress" &&
          event.phase === "indexing" &&
          (event.indexed ?? 0) > 0 &&
          (event.indexed ?? 0) < (event.total ?? 0)
        ) {
          resolve();
        }
      }
    });
    child.on("close", () => reject(new Error("indexing finished before it could be interrupted")));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on("close", (code) => resolve(code)));
}

async function status(): Promise<{ state: string; files: { indexed: number }; chunks: number }> {
  const run = await runCli(["status", "--json"], { cwd: project.root, env: project.env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { state: string; files: { indexed: number }; chunks: number };
}

describe("interrupted indexing", () => {
  it("a process killed mid-index leaves an index that the next run completes", async () => {
    const child = startCli(["index", "--yes", "--json"], { cwd: project.root, env: project.env });
    const closed = exited(child);
    await firstPartialProgress(child);
    child.kill("SIGKILL");
    await closed;

    const partial = await status();
    expect(partial.state).toBe("stale");
    expect(partial.files.indexed).toBeGreaterThan(0);
    expect(partial.files.indexed).toBeLessThan(FILES);

    const rerun = await runCli(["index", "--json"], { cwd: project.root, env: project.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = jsonLines(rerun.stdout).find((event) => event.type === "summary");
    expect(summary).toMatchObject({ before: "stale", failed: 0, interrupted: false });
    expect((summary?.indexed as number) + partial.files.indexed).toBe(FILES);

    const complete = await status();
    expect(complete).toMatchObject({ state: "fresh", files: { indexed: FILES } });
    expect(complete.chunks).toBe(FILES);
    for (const index of [0, 1234, FILES - 1]) {
      const search = await runCli(["search", "--json", "--signals", "fulltext", `marker${index}`], { cwd: project.root, env: project.env });
      const results = (JSON.parse(search.stdout) as { results: Array<{ path: string }> }).results;
      expect(results[0]?.path).toBe(`src/m${Math.floor(index / 100)}/module${index}.ts`);
    }
  });

  it("Ctrl-C stops after the files in progress, keeps them, and exits 130", async () => {
    const child = startCli(["index", "--yes", "--json"], { cwd: project.root, env: project.env });
    const closed = exited(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await firstPartialProgress(child);
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    const summary = jsonLines(output).find((event) => event.type === "summary");
    expect(summary).toMatchObject({ interrupted: true });
    const partial = await status();
    expect(partial.files.indexed).toBe(summary?.indexed);

    const rerun = await runCli(["index", "--json"], { cwd: project.root, env: project.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await status()).toMatchObject({ state: "fresh", files: { indexed: FILES }, chunks: FILES });
  });

  it("two processes indexing the same project at once leave one consistent index", async () => {
    // The second starts once the first holds the lock and is indexing, however loaded the machine.
    const firstChild = startCli(["index", "--yes", "--json"], { cwd: project.root, env: project.env });
    const firstDone = collect(firstChild);
    await firstPartialProgress(firstChild);
    const [second, first] = await Promise.all([runCli(["index", "--yes", "--json"], { cwd: project.root, env: project.env }), firstDone]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(`${first.stderr}${second.stderr}`).toContain("is indexing this project; waiting");
    const summaries = [first, second].map((run) => jsonLines(run.stdout).find((event) => event.type === "summary"));
    expect(summaries.map((summary) => summary?.indexed).sort()).toEqual([0, FILES]);
    expect(await status()).toMatchObject({ state: "fresh", files: { indexed: FILES }, chunks: FILES });
  });
});
