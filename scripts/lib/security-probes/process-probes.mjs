// The process and its files: a killed `sylk ask` takes its command with it, a configuration cannot
// make it spawn threads without bound, no file is dropped silently, and the data it keeps is the
// user's alone.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { excerpt, waitUntil } from "./harness.mjs";
import { entriesBelow, isAlive, processStatus } from "./observe.mjs";
import { call, say } from "./scripted-model.mjs";

const GROUP = "process";

/** `--no-sandbox` and `signal` to `sylk ask` while `run_command` runs `sleep 600`: held if the sleep is gone shortly after. */
function signalProbe(signal) {
  return {
    id: `process-no-sandbox-${signal.toLowerCase()}`,
    group: GROUP,
    title: `${signal} to sylk ask --no-sandbox ends the command it runs`,
    needs: ["linux"],
    async run({ lab: open }) {
      const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
      const model = await lab.model();
      model.enqueue([call("run_command", { command: "echo $$ > sleeper.pid; exec sleep 600", timeout_ms: 600_000 })], [say("Done.")]);
      const running = lab.launch([
        "ask",
        "--yes",
        "--no-sandbox",
        "--permission-mode",
        "bypass",
        "--output-format",
        "stream-json",
        "Wait.",
      ]);
      const pidFile = lab.path("sleeper.pid");
      const pid = await waitUntil(() => existsSync(pidFile) && Number(readFileSync(pidFile, "utf8").trim()), 60_000);
      if (!pid) {
        running.killGroup();
        throw new Error(`the command never started: ${excerpt(running.stderr())}`);
      }
      lab.defer(() => isAlive(pid) && process.kill(pid, "SIGKILL"));
      // The signal goes to sylk alone, as a terminal closing or `kill` would send it.
      running.child.kill(signal);
      const gone = await waitUntil(() => !isAlive(pid), 10_000);
      await running.finished(10_000);
      return {
        held: Boolean(gone),
        detail: gone ? `the command's sleep ended with sylk` : `the command's sleep (pid ${pid}) still runs 10 s after ${signal} to sylk`,
      };
    },
  };
}

/**
 * What a clamped pool stays under on any machine: a few threads per core and room for node's own
 * (13 at most for a default index on 2 cores), never less than 64. The defect made 883.
 */
const THREAD_BOUND = Math.max(64, 4 * availableParallelism() + 32);

const workerThreads = {
  id: "process-worker-threads",
  group: GROUP,
  title: "index.workerThreads: 10000 in a project's .sylkrc neither stalls sylk index nor starts thousands of threads",
  needs: ["linux"],
  async run({ lab: open }) {
    const files = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`src/mod${index}.ts`, `export const value${index} = ${index};\n`]),
    );
    const lab = await open({ ...files, ".sylkrc": JSON.stringify({ index: { workerThreads: 10_000 } }) });
    const running = lab.launch(["index", "--yes"]);
    let peak = 0;
    // Sampled until the end; past the bound the run is stopped at once (thousands of threads take gigabytes).
    const sampler = setInterval(() => {
      peak = Math.max(peak, processStatus(running.child.pid, "Threads") ?? 0);
      if (peak > THREAD_BOUND) running.killGroup();
    }, 50);
    const run = await running.finished(60_000);
    clearInterval(sampler);
    if (peak > THREAD_BOUND) return { held: false, detail: `sylk index reached ${peak} threads (stopped past ${THREAD_BOUND})` };
    if (run.timedOut) return { held: false, detail: `sylk index had not finished after 60 s (${peak} threads at most)` };
    return {
      held: run.code === 0,
      detail: `sylk index exited ${run.code} in ${(run.ms / 1000).toFixed(1)} s with ${peak} threads at most`,
    };
  },
};

const nonUtf8Name = {
  id: "process-non-utf8-name",
  group: GROUP,
  title: "a file whose name is not UTF-8 is indexed or reported as skipped by sylk index --json",
  needs: ["linux"],
  async run({ lab: open }) {
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    // "caf\xe9.ts": Latin-1, as an old archive would name it.
    writeFileSync(Buffer.concat([Buffer.from(`${lab.root}/caf`), Buffer.from([0xe9]), Buffer.from(".ts")]), "export const cafe = 2;\n");
    const run = await lab.sylk(["index", "--yes", "--json"]);
    if (run.code !== 0) throw new Error(`sylk index exited ${run.code}: ${excerpt(run.stderr)}`);
    const summary = run.lines.find((line) => line.type === "summary") ?? {};
    const counted = (summary.indexed ?? 0) + (summary.skipped ?? 0) + (summary.failed ?? 0);
    const named = /caf/.test(run.stdout);
    return {
      held: named || counted >= 2,
      detail:
        named || counted >= 2
          ? `accounted for (${counted} of 2 files indexed, skipped or failed${named ? "; named" : ""})`
          : `dropped without a word: ${counted} of 2 files indexed, skipped or failed`,
    };
  },
};

/** Files under SYLK_HOME that others may read, or directories others may enter. */
function openToOthers(sylkHome) {
  return [...entriesBelow(sylkHome)]
    .filter(({ stats }) => (stats.isFile() || stats.isDirectory()) && (stats.mode & 0o077) !== 0)
    .map(({ path, stats }) => `${relative(sylkHome, path) || "."} ${(stats.mode & 0o777).toString(8)}`);
}

const dataModes = {
  id: "process-data-modes",
  group: GROUP,
  title: "after an index and a session, files under $SYLK_HOME are 0600 and directories 0700",
  needs: ["linux"],
  async run({ lab: open }) {
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    const model = await lab.model();
    model.enqueue([say("Hello.")]);
    // A usual umask: what the user's shell gives Sylk.
    const run = await lab.sylk(["ask", "--yes", "Say hello."], { umask: 0o022 });
    if (run.code !== 0) throw new Error(`sylk ask exited ${run.code}: ${excerpt(run.stderr)}`);
    const exposed = openToOthers(lab.sylkHome);
    return {
      held: exposed.length === 0,
      detail:
        exposed.length > 0
          ? `open to others: ${exposed.slice(0, 4).join(", ")}${exposed.length > 4 ? `, … (${exposed.length})` : ""}`
          : "every file 0600 and directory 0700",
    };
  },
};

const existingHome = {
  id: "process-existing-home-tightened",
  group: GROUP,
  title: "an existing 0755 $SYLK_HOME is tightened to 0700",
  needs: ["linux"],
  async run({ lab: open }) {
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    mkdirSync(lab.sylkHome, { recursive: true });
    chmodSync(lab.sylkHome, 0o755);
    const run = await lab.sylk(["index", "--yes"], { umask: 0o022 });
    if (run.code !== 0) throw new Error(`sylk index exited ${run.code}: ${excerpt(run.stderr)}`);
    const mode = statSync(lab.sylkHome).mode & 0o777;
    return { held: (mode & 0o077) === 0, detail: `$SYLK_HOME is ${mode.toString(8)} after sylk index` };
  },
};

export const processProbes = [signalProbe("SIGTERM"), signalProbe("SIGHUP"), workerThreads, nonUtf8Name, dataModes, existingHome];
