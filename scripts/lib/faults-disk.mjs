// A full disk under SYLK_HOME, for scripts/bench-faults.mjs.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hasStackTrace, indexAgreesWithManifest, integrity, projectDatabases } from "./fault-checks.mjs";
import { count, envFor, generateProject, sum, tally } from "./fault-harness.mjs";

/**
 * SYLK_HOME on a small tmpfs (root only): a small project indexed completely, then a large tree
 * that does not fit. What the user is told, and what is left of both indexes.
 */
export async function diskScenario(bench) {
  const { tree, scratch, diskMb, diskRuns, openDb, run, log } = bench;
  const referenceChunks = bench.completeIndex;
  if (process.getuid?.() !== 0) return { skipped: "not running as root: mounting a tmpfs needs it" };
  const mountPoint = join(scratch, "small-disk");
  mkdirSync(mountPoint, { recursive: true });
  const sizeMb = diskMb;
  const mount = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", mountPoint], { encoding: "utf8" });
  if (mount.status !== 0) return { skipped: `mount -t tmpfs failed: ${(mount.stderr || mount.error?.message || "").trim()}` };
  const small = join(scratch, "disk-project");
  generateProject(small);
  const runs = [];
  try {
    for (let attempt = 0; attempt < diskRuns; attempt++) {
      const home = join(mountPoint, `run-${attempt}`, "home");
      // Messages are kept with the temporary home written as $SYLK_HOME, so that runs compare.
      const clear = (result) => ({
        exit: result.code,
        message: lastLine(result.stderr).replaceAll(home, "$SYLK_HOME"),
        stackTrace: hasStackTrace(result.stderr),
      });
      const env = envFor(home);
      // A complete index of a small project first: it must survive what follows. The ballast is
      // space to free afterwards, as a user would, before looking at the damage: half of what is
      // left, so that what is freed is at least what the failed run could write. With a fixed 4 MB,
      // the first open after it checkpointed the failed index's write-ahead log (up to ~20 MB) into
      // the database, the disk was full again, and the check below could not open a database.
      const smallIndex = await run(["index", "--yes", small], { cwd: small, env });
      const ballast = join(mountPoint, `run-${attempt}`, "ballast");
      writeFileSync(ballast, Buffer.alloc(Math.max(4 << 20, (freeKb(mountPoint) << 10) / 2)));
      const large = await run(["index", "--yes", tree], { cwd: tree, env });
      const full = freeKb(mountPoint);
      // With the disk still full: the small project's index, read by a search.
      const searchFull = await run(["search", "--json", "handler3_40"], { cwd: small, env });
      const askFull = await run(["ask", "--provider", "none", "handler3_40"], { cwd: small, env });
      rmSync(ballast);
      const outcome = {
        smallIndexExit: smallIndex.code,
        large: clear(large),
        largeDiskFullSaid: /disk (holding .* )?is full|no space left|ENOSPC/i.test(large.stderr),
        freeKbAfter: full,
        searchOnFullDisk: {
          ...clear(searchFull),
          found: firstPath(searchFull.stdout) === "src/mod3.ts",
          diskFullSaid: /disk (holding .* )?is full|no space left/i.test(searchFull.stderr),
        },
        askOnFullDisk: { ...clear(askFull), diskFullSaid: /disk (holding .* )?is full|no space left/i.test(askFull.stderr) },
      };
      // Space freed: the small index complete and searchable (before anything opens the large
      // one, whose recovery may fill the disk again), then both databases intact and the large
      // one holding whole files only.
      const status = await run(["status", "--json"], { cwd: small, env });
      outcome.smallFresh = status.code === 0 && JSON.parse(status.stdout || "{}").state === "fresh";
      const search = await run(["search", "--json", "handler3_40"], { cwd: small, env });
      outcome.smallSearchOk = search.code === 0 && firstPath(search.stdout) === "src/mod3.ts";
      const databases = projectDatabases(home);
      outcome.databases = databases.length;
      outcome.integrityOk = 0;
      for (const path of databases) {
        const db = openDb(path);
        if (integrity(db).ok) outcome.integrityOk++;
        if (path.includes(hashOf(tree))) {
          const agrees = indexAgreesWithManifest(db, referenceChunks);
          outcome.largeConsistent = agrees.ok;
          outcome.largeProblems = agrees.problems;
          outcome.largeIndexedFiles = agrees.indexed;
        } else {
          outcome.smallConsistent = indexAgreesWithManifest(db).ok;
        }
        db.close();
      }
      runs.push(outcome);
      log(
        `disk: run ${attempt + 1}: large index exit ${large.code} ("${outcome.large.message.slice(0, 120)}"${outcome.large.stackTrace ? ", stack trace" : ""}); ` +
          `full disk: search exit ${searchFull.code} ("${outcome.searchOnFullDisk.message.slice(0, 100)}"); ` +
          `space freed: ${outcome.integrityOk}/${outcome.databases} databases intact, large consistent ${outcome.largeConsistent} (${outcome.largeIndexedFiles} files), small fresh ${outcome.smallFresh}, search ${outcome.smallSearchOk}`,
      );
      rmSync(dirname(home), { recursive: true, force: true });
    }
  } finally {
    unmount(mountPoint);
  }
  return {
    sizeMb,
    runs: runs.length,
    largeExitCodes: tally(
      runs.map((r) => r.large),
      "exit",
    ),
    largeClear: count(runs, (r) => r.largeDiskFullSaid && !r.large.stackTrace),
    largeStackTraces: count(runs, (r) => r.large.stackTrace),
    searchOnFullDisk: {
      exitCodes: tally(
        runs.map((r) => r.searchOnFullDisk),
        "exit",
      ),
      found: count(runs, (r) => r.searchOnFullDisk.found),
      diskFullSaid: count(runs, (r) => r.searchOnFullDisk.diskFullSaid),
      stackTraces: count(runs, (r) => r.searchOnFullDisk.stackTrace),
      message: runs[0]?.searchOnFullDisk.message,
    },
    askOnFullDisk: {
      exitCodes: tally(
        runs.map((r) => r.askOnFullDisk),
        "exit",
      ),
      diskFullSaid: count(runs, (r) => r.askOnFullDisk.diskFullSaid),
      stackTraces: count(runs, (r) => r.askOnFullDisk.stackTrace),
      message: runs[0]?.askOnFullDisk.message,
    },
    integrityOk: sum(runs, (r) => r.integrityOk),
    databases: sum(runs, (r) => r.databases),
    largeConsistent: count(runs, (r) => r.largeConsistent),
    smallFresh: count(runs, (r) => r.smallFresh),
    smallSearchOk: count(runs, (r) => r.smallSearchOk),
    message: runs.find((r) => !r.large.stackTrace)?.large.message ?? runs[0]?.large.message,
    details: runs,
  };
}

/** Free space on the file system holding `path`, in KB (`df`). */
function freeKb(path) {
  return Number(spawnSync("df", ["-k", path], { encoding: "utf8" }).stdout.trim().split("\n").at(-1)?.split(/\s+/)[3]);
}

/** Unmounts, waiting a little for the last child's files to close. */
function unmount(mountPoint) {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (spawnSync("umount", [mountPoint]).status === 0) return;
    spawnSync("sleep", ["0.25"]);
  }
  spawnSync("umount", ["-l", mountPoint]);
}

function lastLine(text) {
  const lines = text
    .trim()
    .split("\n")
    .filter((line) => !/^(Scanning|Saving|\[|Indexed|Embedding)/.test(line));
  // A stack trace's message line, not its last frame.
  return (lines.find((line) => /^(sylk: |[A-Za-z]*Error: )/.test(line)) ?? lines.at(-1) ?? "").slice(0, 300);
}

function firstPath(stdout) {
  try {
    return JSON.parse(stdout).results?.[0]?.path;
  } catch {
    return undefined;
  }
}

/** The project directory's name under SYLK_HOME (as src/project/project-paths.ts derives it). */
function hashOf(root) {
  return createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 16);
}
