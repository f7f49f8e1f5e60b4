// kill -9 while indexing, for scripts/bench-faults.mjs.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { chunkCountsByPath, fullTextAgrees, indexAgreesWithManifest, integrity, projectDatabases } from "./fault-checks.mjs";
import { count, envFor, randomFor, tally } from "./fault-harness.mjs";

/**
 * kill -9 at seeded random moments of `sylk index` on a large tree. Each run continues the index
 * the killed one left, until one completes: it is then compared with a complete reference index
 * (kept in `bench.completeIndex`), and a new chain starts from nothing.
 */
export async function indexScenario(bench) {
  const { repo, tree, trials, seed, scratch, openDb, launch, run, log } = bench;
  const random = randomFor(seed, "index");
  const referenceHome = join(scratch, "index-reference", "home");
  log(`index: reference cold index of ${tree}…`);
  const reference = await run(["index", "--yes", "--json", tree], { cwd: tree, env: envFor(referenceHome) });
  if (reference.code !== 0) throw new Error(`reference index failed:\n${reference.stderr}`);
  const referenceDb = openDb(projectDatabases(referenceHome)[0]);
  const referenceChunks = chunkCountsByPath(referenceDb);
  bench.completeIndex = referenceChunks;
  const referenceCounts = referenceDb
    .prepare("SELECT (SELECT count(*) FROM files WHERE status = 'indexed') AS indexed, (SELECT count(*) FROM chunks) AS chunks")
    .get();
  referenceDb.close();
  rmSync(dirname(referenceHome), { recursive: true, force: true });
  const coldMs = reference.ms;
  log(`index: cold index ${(coldMs / 1000).toFixed(1)} s, ${referenceCounts.indexed} files, ${referenceCounts.chunks} chunks`);

  const killed = [];
  const chains = [];
  let chain = { home: join(scratch, `index-chain-0`, "home"), kills: 0 };
  const finishChain = async (result) => {
    const db = openDb(projectDatabases(chain.home)[0]);
    const agrees = indexAgreesWithManifest(db, referenceChunks);
    const check = integrity(db);
    db.close();
    const fullText = await fullTextAgrees(repo, tree, envFor(chain.home));
    chains.push({
      kills: chain.kills,
      exitCode: result.code,
      integrityOk: check.ok,
      equalToReference:
        agrees.ok &&
        fullText.ok &&
        fullText.state === "fresh" &&
        agrees.indexed === referenceCounts.indexed &&
        agrees.chunks === referenceCounts.chunks,
      detail: [
        ...agrees.problems,
        ...fullText.problems,
        `state ${fullText.state}`,
        `${agrees.indexed} files, ${agrees.chunks} chunks`,
      ].join("; "),
    });
    rmSync(dirname(chain.home), { recursive: true, force: true });
    chain = { home: join(scratch, `index-chain-${chains.length}`, "home"), kills: 0 };
  };
  let followingFailed = 0;
  while (killed.length < trials) {
    // Up to half a cold index from the start of the process: start-up, scan and the first
    // commits are hit as often as the middle, and chained runs reach the end of the index.
    const delayMs = random() * coldMs * 0.5;
    const proc = launch(["index", "--yes", "--json", tree], { cwd: tree, env: envFor(chain.home) });
    const timer = setTimeout(() => proc.child.kill("SIGKILL"), delayMs);
    const result = await proc.exited;
    clearTimeout(timer);
    if (result.signal !== "SIGKILL") {
      if (result.code !== 0) {
        followingFailed++;
        log(`index: a run after a kill failed (exit ${result.code}): ${result.stderr.trim().split("\n").at(-1)}`);
      }
      await finishChain(result);
      continue;
    }
    chain.kills++;
    const progress = proc.lines.filter((line) => line.type === "progress").at(-1);
    const phase = !progress
      ? "start-up"
      : progress.phase === "indexing"
        ? progress.indexed === 0
          ? "indexing (nothing committed)"
          : "indexing"
        : progress.phase;
    const databases = projectDatabases(chain.home);
    const trial = { delayMs: Math.round(delayMs), phase, database: databases.length > 0 };
    if (trial.database) {
      const db = openDb(databases[0]);
      const check = integrity(db);
      const agrees = indexAgreesWithManifest(db, referenceChunks);
      db.close();
      const fullText = await fullTextAgrees(repo, tree, envFor(chain.home));
      Object.assign(trial, {
        integrityOk: check.ok,
        integrity: check.detail,
        consistent: agrees.ok && fullText.ok,
        problems: [...agrees.problems, ...fullText.problems],
        indexedFiles: agrees.indexed,
        state: fullText.state,
      });
    }
    killed.push(trial);
    log(
      `index: trial ${killed.length}/${trials} killed at ${(delayMs / 1000).toFixed(2)} s (${phase}): ${trial.database ? `integrity ${trial.integrity}, ${trial.consistent ? "consistent" : trial.problems.join("; ")}, ${trial.indexedFiles} files` : "no database yet"}`,
    );
  }
  // The last chain: a run to the end, which must complete what the kills left.
  if (chain.kills > 0) {
    const result = await run(["index", "--yes", "--json", tree], { cwd: tree, env: envFor(chain.home) });
    if (result.code !== 0) followingFailed++;
    await finishChain(result);
  }
  return {
    coldIndexMs: Math.round(coldMs),
    reference: referenceCounts,
    trials: killed.length,
    phases: tally(killed, "phase"),
    withDatabase: count(killed, (trial) => trial.database),
    integrityOk: count(killed, (trial) => trial.integrityOk),
    consistent: count(killed, (trial) => trial.consistent),
    followingRunFailed: followingFailed,
    chains: chains.length,
    chainsEqualToReference: count(chains, (item) => item.equalToReference),
    chainDetails: chains,
    killed,
  };
}
