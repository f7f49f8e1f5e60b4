import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIRST_INDEX_PROCESS_MARK } from "../../src/app/first-index-process.js";
import { openProject } from "../../src/app/project-services.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { jsonLines, startCli } from "../helpers/run-cli.js";
import { createModulesProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
const canRestart = process.platform === "linux" && glibc !== undefined && typeof (process as { execve?: unknown }).execve === "function";

interface Seen {
  environ: Map<string, string>;
  maps: string;
  code: number | null;
  stdout: string;
}

/**
 * Runs `sylk index --json` and, at its first line on stdout (the run's first
 * event), stops it and reads what it runs with from /proc: its environment
 * and its mappings; then lets it finish.
 */
async function indexAndLook(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Seen> {
  if (!project) throw new Error("no project");
  const env: NodeJS.ProcessEnv = { ...project.env, SYLK_INDEX_BATCH_SIZE: "10", ...extraEnv };
  delete env.GLIBC_TUNABLES;
  delete env[FIRST_INDEX_PROCESS_MARK];
  const child: ChildProcess = startCli(["index", "--json", ...args], { cwd: project.root, env });
  child.stdin?.end();
  let stdout = "";
  let looked: { environ: Map<string, string>; maps: string } | undefined;
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (looked || !stdout.includes("\n") || child.pid === undefined) return;
    const pid = child.pid;
    process.kill(pid, "SIGSTOP");
    try {
      const environ = new Map(
        readFileSync(`/proc/${pid}/environ`, "utf8")
          .split("\0")
          .filter((entry) => entry.includes("="))
          .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)] as [string, string]),
      );
      looked = { environ, maps: readFileSync(`/proc/${pid}/maps`, "utf8") };
    } finally {
      process.kill(pid, "SIGCONT");
    }
  });
  const [code] = (await once(child, "close")) as [number | null];
  if (!looked) throw new Error(`no event seen; stdout:\n${stdout}`);
  return { ...looked, code, stdout };
}

function summaryOf(stdout: string): Record<string, unknown> | undefined {
  return jsonLines(stdout).find((event) => event.type === "summary");
}

/**
 * A preload (`NODE_OPTIONS=--require`, inherited by the restarted process,
 * where it is not called) that notes, at the moment the process replaces
 * itself, whether the project's data directory and database exist.
 */
const EXECVE_WITNESS = `
const { existsSync, writeFileSync } = require("node:fs");
const execve = process.execve;
process.execve = function (...args) {
  writeFileSync(process.env.WITNESS_OUT, JSON.stringify({
    dataDir: existsSync(process.env.WITNESS_DATA_DIR),
    database: existsSync(process.env.WITNESS_DATABASE),
  }));
  return execve.apply(process, args);
};
`;

/** `sylk index --json` with the witness preloaded: what existed when it restarted (undefined if it did not). */
async function indexWithWitness(): Promise<{ seen: Seen; atRestart: { dataDir: boolean; database: boolean } | undefined }> {
  if (!project) throw new Error("no project");
  const paths = resolveProjectPaths(project.root, project.env);
  const preload = join(project.root, "..", "execve-witness.cjs");
  const out = join(project.root, "..", "execve-witness.json");
  writeFileSync(preload, EXECVE_WITNESS);
  const seen = await indexAndLook([], {
    NODE_OPTIONS: `--require=${preload}`,
    WITNESS_OUT: out,
    WITNESS_DATA_DIR: paths.dataDir,
    WITNESS_DATABASE: paths.database,
  });
  const atRestart = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as { dataDir: boolean; database: boolean }) : undefined;
  return { seen, atRestart };
}

describe.skipIf(!canRestart)("sylk index: a large first index in a process set up for it", () => {
  it("decides a large first index before it opens the store: no data directory or database made before the restart", async () => {
    project = createModulesProject(1_200);
    const { seen, atRestart } = await indexWithWitness();
    expect(seen.code).toBe(0);
    expect(summaryOf(seen.stdout)).toMatchObject({ indexed: 1_200, failed: 0 });
    expect(seen.environ.get(FIRST_INDEX_PROCESS_MARK)).toBe("1");
    expect(atRestart).toEqual({ dataDir: false, database: false });
  }, 120_000);

  it("asks a store that exists but holds no index once it is open, and restarts", async () => {
    project = createModulesProject(1_200);
    // Another command opened the project first: a database with an empty file table.
    await openProject({ root: project.root, env: project.env }).close();
    const { seen, atRestart } = await indexWithWitness();
    expect(seen.code).toBe(0);
    expect(summaryOf(seen.stdout)).toMatchObject({ indexed: 1_200, failed: 0 });
    expect(seen.environ.get(FIRST_INDEX_PROCESS_MARK)).toBe("1");
    expect(atRestart).toEqual({ dataDir: true, database: true });
  }, 120_000);

  it("runs a first index of more than 1,000 files under glibc's settings, reading its database without the map", async () => {
    project = createModulesProject(3_000);
    const database = resolveProjectPaths(project.root, project.env).database;
    const first = await indexAndLook([]);
    expect(first.code).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ indexed: 3_000, failed: 0, interrupted: false });
    expect(first.environ.get(FIRST_INDEX_PROCESS_MARK)).toBe("1");
    expect(first.environ.get("GLIBC_TUNABLES")?.split(":")).toContain("glibc.malloc.arena_max=2");
    // WAL's shared memory is always mapped; the database itself is read through the page cache.
    expect(first.maps).toContain(`${database}-shm`);
    expect(first.maps.split("\n").filter((line) => line.endsWith(database))).toEqual([]);

    // A refresh is not restarted, nor does it map the database.
    project.write("src/m0/module0.ts", "export const changed = 1;\n");
    const refresh = await indexAndLook([]);
    expect(refresh.code).toBe(0);
    expect(summaryOf(refresh.stdout)).toMatchObject({ indexed: 1, failed: 0 });
    expect(refresh.environ.has(FIRST_INDEX_PROCESS_MARK)).toBe(false);
    expect(refresh.environ.has("GLIBC_TUNABLES")).toBe(false);
    expect(refresh.maps.split("\n").filter((line) => line.endsWith(database))).toEqual([]);
  }, 120_000);

  it("indexes a first index of 1,000 files or fewer in place", async () => {
    project = createModulesProject(1_000);
    const small = await indexAndLook([]);
    expect(small.code).toBe(0);
    expect(summaryOf(small.stdout)).toMatchObject({ indexed: 1_000, failed: 0 });
    expect(small.environ.has(FIRST_INDEX_PROCESS_MARK)).toBe(false);
  }, 120_000);
});
