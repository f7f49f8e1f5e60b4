// Nothing a repository or a server can arrange may hang Sylk: a regular expression, a FIFO, a
// server asking to wait a day, an index lock held by a process that is not Sylk.
import { spawn, spawnSync } from "node:child_process";
import { excerpt, timedToolCall } from "./harness.mjs";
import { projectDataDir } from "./observe.mjs";
import { call } from "./scripted-model.mjs";

const GROUP = "hangs";

/** A tool call that must answer within `boundMs`: held if it did. */
function boundedToolProbe(id, title, { files, prepare, toolCall, boundMs }) {
  return {
    id,
    group: GROUP,
    title,
    needs: ["linux"],
    async run({ lab: open }) {
      const lab = await open(files);
      prepare?.(lab);
      const { toolMs, problem } = await timedToolCall(lab, toolCall, { boundMs });
      if (problem) return { held: false, detail: problem };
      return { held: true, detail: `${toolCall.name} answered in ${(toolMs / 1000).toFixed(1)} s` };
    },
  };
}

const retryAfterDay = {
  id: "hangs-retry-after-day",
  group: GROUP,
  title: "a 429 with retry-after: 86400 makes sylk ask fail within 30 s, naming the wait",
  needs: [],
  async run({ lab: open }) {
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    const model = await lab.model();
    model.enqueue(...Array.from({ length: 20 }, () => ({ status: 429, headers: { "retry-after": "86400" }, message: "rate limited" })));
    const run = await lab.sylk(["ask", "--yes", "Say hello."], { timeoutMs: 30_000 });
    if (run.timedOut)
      return { held: false, detail: `sylk ask was still waiting after 30 s (killed; ${model.requests.length} request(s) made)` };
    const said = `${run.stdout}\n${run.stderr}`;
    // The server's wait in any usual form: 86400 s, 86,400, 24 h, 24 hours, 1 day, 1440 min.
    const namesWait = /86[,.\s]?400|\b24\s*h(ours?)?\b|\b1\s*d(ay)?\b|one day|1[,.]?440\s*min/i.test(said);
    return {
      held: run.code !== 0 && namesWait,
      detail: `exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s; ${namesWait ? "names the wait" : "does not name the server's wait"}: ${excerpt(run.stderr.trim().split("\n").at(-1), 90)}`,
    };
  },
};

/** `sylk index` after an earlier one, with index.lock naming `pid` and a file changed: held if it ends (successfully) within 30 s. */
function lockProbe(id, title, holder) {
  return {
    id,
    group: GROUP,
    title,
    needs: ["linux"],
    async run({ lab: open }) {
      const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
      const first = await lab.sylk(["index", "--yes"]);
      if (first.code !== 0) throw new Error(`the first sylk index failed: ${excerpt(first.stderr)}`);
      const pid = holder(lab);
      lab.write("index.lock", JSON.stringify({ pid, startedAt: new Date().toISOString() }), projectDataDir(lab.sylkHome, lab.root));
      lab.write("src/more.ts", "export const more = 1;\n");
      const run = await lab.sylk(["index"], { timeoutMs: 30_000 });
      if (run.timedOut) return { held: false, detail: `sylk index was still waiting for pid ${pid} after 30 s (killed)` };
      return {
        held: run.code === 0,
        detail: `sylk index exited ${run.code} after ${(run.ms / 1000).toFixed(1)} s${run.code === 0 ? "" : `: ${excerpt(run.stderr)}`}`,
      };
    },
  };
}

/** A live process that is not Sylk: `sleep 600`, killed when the laboratory closes. */
function liveSleep(lab) {
  const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore", env: lab.env() });
  sleeper.unref();
  lab.defer(() => sleeper.kill("SIGKILL"));
  return sleeper.pid;
}

export const hangProbes = [
  boundedToolProbe("hangs-grep-redos", "grep (a+)+$ over 'a'*40+'!' answers within 15 s", {
    files: { "src/app.ts": "export const answer = 42;\n", "redos.txt": `${"a".repeat(40)}!\n` },
    toolCall: call("grep", { pattern: "(a+)+$", path: "redos.txt" }),
    boundMs: 15_000,
  }),
  boundedToolProbe("hangs-read-fifo", "read_file of a FIFO answers within 15 s", {
    files: { "src/app.ts": "export const answer = 42;\n" },
    prepare: (lab) => {
      const made = spawnSync("mkfifo", [lab.path("pipe")]);
      if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
    },
    toolCall: call("read_file", { path: "pipe" }),
    boundMs: 15_000,
  }),
  retryAfterDay,
  lockProbe("hangs-lock-pid-1", "an index.lock naming pid 1 does not make sylk index wait", () => 1),
  lockProbe("hangs-lock-live-process", "an index.lock naming a live process that is not Sylk does not make sylk index wait", liveSleep),
];
