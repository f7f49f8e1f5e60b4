import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FIRST_INDEX_MALLOC_TUNABLES,
  FIRST_INDEX_PROCESS_MARK,
  firstIndexProcessStart,
  type RestartAbility,
  restartAbility,
  restartForFirstIndex,
  startedForFirstIndex,
} from "../../src/app/first-index-process.js";
import { runIndexProcess } from "../../src/app/index-process.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const onGlibc = restartAbility().glibc !== undefined;

/**
 * The minor page faults of a Node process started with `GLIBC_TUNABLES` = `tunables`, over `rounds` rounds of
 * allocating a 1 MiB block (malloc: `Buffer.allocUnsafeSlow`), writing every page of it and freeing it (a forced
 * collection frees its memory).
 */
function faultsOfReusedBlocks(tunables: string, rounds: number): number {
  const script = [
    "const before = process.resourceUsage().minorPageFault;",
    `for (let round = 0; round < ${rounds}; round++) { Buffer.allocUnsafeSlow(1 << 20).fill(round); globalThis.gc(); }`,
    "console.log(process.resourceUsage().minorPageFault - before);",
  ].join("\n");
  const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    env: { PATH: process.env.PATH ?? "", GLIBC_TUNABLES: tunables },
    encoding: "utf8",
  });
  if (child.status !== 0) throw new Error(`the child failed: ${child.stderr}`);
  return Number(child.stdout.trim());
}

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const OURS = Object.entries(FIRST_INDEX_MALLOC_TUNABLES).map(([name, value]) => `${name}=${value}`);

/** An `execve` that records its call instead of replacing the test's process. */
function recordingAbility(glibc?: string): {
  ability: RestartAbility;
  calls: Array<{ file: string; args: readonly string[]; env: NodeJS.ProcessEnv }>;
} {
  const calls: Array<{ file: string; args: readonly string[]; env: NodeJS.ProcessEnv }> = [];
  const execve = ((file: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}) => {
    calls.push({ file, args, env });
  }) as RestartAbility["execve"];
  return { ability: { execve, ...(glibc ? { glibc } : {}) }, calls };
}

describe("the settings of a process that runs a large first index", () => {
  it("adds glibc's malloc tunables and the mark, keeping a tunable the user set as set", () => {
    const start = firstIndexProcessStart({ PATH: "/bin", GLIBC_TUNABLES: "glibc.malloc.arena_max=8:glibc.cpu.x86_shstk=off" });
    const pairs = start.env.GLIBC_TUNABLES?.split(":") ?? [];
    expect(pairs).toContain("glibc.malloc.arena_max=8");
    expect(pairs).not.toContain("glibc.malloc.arena_max=2");
    expect(pairs).toContain("glibc.cpu.x86_shstk=off");
    expect(pairs).toContain("glibc.malloc.trim_threshold=16777216");
    expect(pairs).toContain("glibc.malloc.mmap_threshold=8388608");
    expect(start.env.PATH).toBe("/bin");
    expect(startedForFirstIndex(start.env)).toBe(true);
    expect(firstIndexProcessStart({}).env.GLIBC_TUNABLES?.split(":").sort()).toEqual([...OURS].sort());
  });

  it.runIf(onGlibc)("reuses a freed block of a few MiB instead of faulting its pages in again", () => {
    const rounds = 64;
    const pagesTouched = rounds * ((1 << 20) / 4096);
    const ours = firstIndexProcessStart({}).env.GLIBC_TUNABLES ?? "";
    // The settings before: every block above 128 KiB mapped afresh and its pages faulted in, round after round.
    const mappedEachTime = faultsOfReusedBlocks(
      "glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072",
      rounds,
    );
    expect(mappedEachTime).toBeGreaterThan(pagesTouched * 0.9);
    expect(faultsOfReusedBlocks(ours, rounds)).toBeLessThan(pagesTouched * 0.2);
  });

  it("replaces the process once, with the script, its arguments and the settings, only on glibc", () => {
    const { ability, calls } = recordingAbility("2.36");
    restartForFirstIndex({ HOME: "/h" }, "/pkg/bin/sylk.js", ["index", "--json", "/p"], ability);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.file).toBe(process.execPath);
    expect(call?.args.slice(-4)).toEqual(["/pkg/bin/sylk.js", "index", "--json", "/p"]);
    expect(call?.args[0]).toBe(process.execPath);
    expect(call?.env.GLIBC_TUNABLES?.split(":").sort()).toEqual([...OURS].sort());
    expect(call?.env[FIRST_INDEX_PROCESS_MARK]).toBe("1");
    expect(call?.env.HOME).toBe("/h");

    // Already restarted: never again.
    restartForFirstIndex(call?.env ?? {}, "/pkg/bin/sylk.js", ["index"], ability);
    expect(calls).toHaveLength(1);
    // Not glibc, and no Node flag chosen: nothing the settings would change.
    const other = recordingAbility();
    restartForFirstIndex({}, "/pkg/bin/sylk.js", ["index"], other.ability);
    expect(other.calls).toHaveLength(0);
    // No execve (an older Node): the caller indexes in place.
    expect(() => restartForFirstIndex({}, "/pkg/bin/sylk.js", ["index"], { glibc: "2.36" })).not.toThrow();
  });

  it("starts the session's indexing process with them", async () => {
    project = createTempProject({ "a.ts": "export const a = 1;\n" });
    // A stand-in for `sylk index --for-session` that says what it was started with, then ends as a run does.
    const bin = join(project.root, "fake-sylk.mjs");
    writeFileSync(
      bin,
      [
        "const said = { tunables: process.env.GLIBC_TUNABLES ?? null, mark: process.env.SYLK_FIRST_INDEX_PROCESS ?? null, args: process.argv.slice(2) };",
        'console.log(JSON.stringify({ type: "notice", text: JSON.stringify(said) }));',
        'console.log(JSON.stringify({ type: "summary", before: "missing", scanned: 0, added: 0, changed: 0, deleted: 0, indexed: 0, unchangedContent: 0, skipped: 0, failed: 0, chunks: 0, failures: [], unindexable: { count: 0, examples: [] }, repairedFullText: [], interrupted: false, durationMs: 1 }));',
      ].join("\n"),
    );
    chmodSync(bin, 0o755);
    const notices: string[] = [];
    const env = { ...project.env };
    delete env.GLIBC_TUNABLES;
    delete env[FIRST_INDEX_PROCESS_MARK];
    await runIndexProcess({ root: project.root, env, sylkBin: bin }, new AbortController().signal, (event) => {
      if (event.type === "notice") notices.push(event.text);
    });
    expect(notices).toHaveLength(1);
    const said = JSON.parse(notices[0] ?? "{}") as { tunables: string | null; mark: string | null; args: string[] };
    expect(said.tunables?.split(":").sort()).toEqual([...OURS].sort());
    expect(said.mark).toBe("1");
    expect(said.args).toEqual(["index", "--for-session", project.root]);
  });
});
