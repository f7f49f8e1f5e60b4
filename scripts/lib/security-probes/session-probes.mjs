// The interactive session under attack: /undo after a command swapped a file for a link, an
// `@` mention of a FIFO, and clients of its warm-index socket that misbehave (any local process,
// a sandboxed command included, can connect).
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { excerpt, sleep, waitUntil } from "./harness.mjs";
import { isAlive, labProcesses, processStatus, projectDataDir, sylkProcess } from "./observe.mjs";
import { call, say } from "./scripted-model.mjs";
import { promptedTui } from "./approval-probes.mjs";
import { startTui } from "./terminal.mjs";

const NEEDS = ["linux", "tmux"];

const undoThroughLink = {
  id: "symlink-undo-swapped",
  group: "symlinks",
  title: "/undo after a command swapped the file for a link to an outside file does not write through the link",
  needs: NEEDS,
  async run({ lab: open }) {
    const after = "changed by the agent\n";
    const { lab, terminal } = await promptedTui(open, {
      files: { "a.txt": "original\n" },
      args: ["--permission-mode", "bypass"],
      steps: [
        [call("write_file", { path: "a.txt", content: after })],
        [call("run_command", { command: "rm a.txt && ln -s ../outside/target.txt a.txt" })],
        [say("Done editing.")],
      ],
    });
    // The outside file holds the bytes of the agent's last write, so a check by hash cannot tell.
    const target = join(lab.outside, "target.txt");
    writeFileSync(target, after);
    await terminal.waitFor("Done editing.");
    terminal.send("/undo", { literal: true });
    terminal.send("Enter");
    await sleep(2_000);
    const now = readFileSync(target, "utf8");
    return {
      held: now === after,
      detail:
        now === after
          ? "the outside file was left alone"
          : `/undo wrote ${JSON.stringify(now)} into the file outside the project, through the link`,
    };
  },
};

const fifoMention = {
  id: "hangs-fifo-mention",
  group: "hangs",
  title: "an @ mention of a FIFO does not freeze the session",
  needs: NEEDS,
  async run({ lab: open }) {
    const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
    const model = await lab.model();
    const indexed = await lab.sylk(["index", "--yes"]);
    if (indexed.code !== 0) throw new Error(`sylk index failed: ${excerpt(indexed.stderr)}`);
    const made = spawnSync("mkfifo", [lab.path("pipe")]);
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
    model.enqueue([say("Seen it.")]);
    const terminal = startTui(lab);
    await terminal.waitFor("Ask anything");
    terminal.send("look at @pipe please", { literal: true });
    terminal.send("Enter");
    const answered = await waitUntil(() => model.requests.length > 0, 20_000);
    if (answered) return { held: true, detail: "the prompt reached the model; the session did not freeze" };
    const tui = sylkProcess(lab.base);
    if (tui) process.kill(tui.pid, "SIGTERM");
    const ended =
      tui && (await waitUntil(() => processStatus(tui.pid, "Threads") === undefined || terminal.exitStatus() !== undefined, 10_000));
    return {
      held: false,
      detail: `no request after 20 s: the session froze on the mention${ended ? "" : ", and SIGTERM did not end it within 10 s"}`,
    };
  },
};

const escapeCancels = {
  id: "hangs-escape-cancels-command",
  group: "hangs",
  title: "Esc in the TUI ends a running command and its processes",
  needs: NEEDS,
  async run({ lab: open }) {
    const { lab, terminal } = await promptedTui(open, {
      args: ["--permission-mode", "bypass"],
      steps: [[call("run_command", { command: "sleep 600", timeout_ms: 600_000 })], [say("Stopped.")]],
    });
    const sleeper = await waitUntil(() => labProcesses(lab.base).find(({ command }) => command === "sleep 600"), 30_000);
    if (!sleeper) throw new Error("the command never started");
    terminal.send("Escape");
    const gone = await waitUntil(() => !isAlive(sleeper.pid), 10_000);
    return { held: Boolean(gone), detail: gone ? "the command's process ended after Esc" : "the command still runs 10 s after Esc" };
  },
};

/** A TUI serving the warm index, its pid, and a way to ask it `hello`. */
async function servingTui(open) {
  const lab = await open({ "src/app.ts": "export const answer = 42;\n" });
  const indexed = await lab.sylk(["index", "--yes"]);
  if (indexed.code !== 0) throw new Error(`sylk index failed: ${excerpt(indexed.stderr)}`);
  const socketPath = join(projectDataDir(lab.sylkHome, lab.root), "warm-index.sock");
  const terminal = startTui(lab);
  // The session's screen, not the launch frame drawn before the session opens: what the process holds once
  // it runs is the baseline the probes measure against.
  await terminal.waitFor("index: ");
  if (!(await waitUntil(() => statOrUndefined(socketPath), 20_000))) throw new Error(`no warm-index socket at ${socketPath}`);
  const tui = sylkProcess(lab.base);
  if (!tui) throw new Error("the TUI's process was not found");
  /** Undefined while the session runs and answers; else what became of it. */
  const trouble = async () => {
    const status = terminal.exitStatus();
    if (status !== undefined || processStatus(tui.pid, "VmRSS") === undefined) return `the session ended (exit ${status ?? "unknown"})`;
    return (await hello(socketPath)) ? undefined : "the session no longer answers on its socket";
  };
  return { lab, terminal, socketPath, pid: tui.pid, trouble };
}

function statOrUndefined(path) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** True when the server answers a `hello` within 5 s. */
function hello(socketPath) {
  return new Promise((resolve) => {
    const socket = createConnection(socketPath);
    const done = (answer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), 5_000);
    let received = "";
    socket.on("connect", () => socket.write(`${JSON.stringify({ id: 1, method: "hello", version: 1 })}\n`));
    socket.on("data", (chunk) => {
      received += chunk;
      if (received.includes("\n")) done(received.includes('"result"'));
    });
    socket.on("error", () => done(false));
  });
}

const abruptClients = {
  id: "socket-abrupt-clients",
  group: "socket",
  title: "warm-index clients that send a request and close at once do not end the session",
  needs: NEEDS,
  async run({ lab: open }) {
    const { socketPath, trouble } = await servingTui(open);
    for (let client = 0; client < 40; client++) {
      await new Promise((resolve) => {
        const socket = createConnection(socketPath);
        socket.on("error", resolve);
        socket.on("close", resolve);
        socket.on("connect", () => {
          socket.write(
            `${JSON.stringify({ id: 1, method: "codeSearch", params: { query: "answer" } })}\n${JSON.stringify({ id: 2, method: "catchUp" })}\n`,
          );
          // Gone before the answer (EPIPE or ECONNRESET when the server writes it): at once, or a moment later.
          if (client % 2 === 0) socket.destroy();
          else setTimeout(() => socket.destroy(), 5);
        });
      });
    }
    await sleep(1_500);
    const problem = await trouble();
    return {
      held: !problem,
      detail: problem ? `${problem} after clients closed mid-request` : "the session is alive and answers hello after 40 abrupt clients",
    };
  },
};

const LINE_BYTES = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, "a");

const hugeLine = {
  id: "socket-huge-line",
  group: "socket",
  title: "a 64 MB line without a newline on the warm-index socket neither ends the session nor is held in memory",
  needs: NEEDS,
  async run({ lab: open }) {
    const { socketPath, pid, trouble } = await servingTui(open);
    const before = processStatus(pid, "VmRSS") ?? 0;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, processStatus(pid, "VmRSS") ?? 0)), 50);
    const sent = await streamLine(socketPath);
    await sleep(1_000);
    clearInterval(sampler);
    const grewMb = Math.round((peak - before) / 1024);
    const problems = [await trouble(), grewMb > 48 && `its memory grew by ${grewMb} MB holding the line`].filter(Boolean);
    const accepted = `${Math.round(sent / (1024 * 1024))} MB accepted`;
    return {
      held: problems.length === 0,
      detail: problems.length > 0 ? `${problems.join("; ")} (${accepted})` : `alive and answering; memory grew ${grewMb} MB (${accepted})`,
    };
  },
};

/** Streams up to 64 MB without a newline, as fast as the server reads; resolves with the bytes written when done or cut. */
function streamLine(socketPath) {
  return new Promise((resolve) => {
    let written = 0;
    let finished = false;
    const socket = createConnection(socketPath);
    const bound = setTimeout(() => finish(), 60_000);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(bound);
      socket.destroy();
      resolve(written);
    };
    socket.on("error", finish);
    socket.on("close", finish);
    const pump = () => {
      while (!finished && written < LINE_BYTES) {
        written += CHUNK.length;
        if (!socket.write(CHUNK)) return socket.once("drain", pump);
      }
      if (written >= LINE_BYTES) setTimeout(finish, 500);
    };
    socket.on("connect", pump);
  });
}

const socketModes = {
  id: "kept-socket-modes",
  group: "kept",
  title: "the data directory is 0700 and the warm-index socket 0600 while a session runs",
  needs: NEEDS,
  async run({ lab: open }) {
    const { socketPath } = await servingTui(open);
    const directory = statSync(join(socketPath, "..")).mode & 0o777;
    const socket = statSync(socketPath).mode & 0o777;
    const held = directory === 0o700 && socket === 0o600;
    return { held, detail: `data directory ${directory.toString(8)}, socket ${socket.toString(8)}` };
  },
};

export const sessionProbes = [undoThroughLink, fifoMention, escapeCancels, abruptClients, hugeLine, socketModes];
