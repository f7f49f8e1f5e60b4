import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { FIRST_INDEX_PROCESS_MARK } from "../../src/app/first-index-process.js";
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
async function indexAndLook(args: string[]): Promise<Seen> {
  if (!project) throw new Error("no project");
  const env: NodeJS.ProcessEnv = { ...project.env, SYLK_INDEX_BATCH_SIZE: "10" };
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

describe.skipIf(!canRestart)("sylk index: a large first index in a process set up for it", () => {
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
