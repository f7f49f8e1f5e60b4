import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { openProject } from "../../src/app/project-services.js";
import { STOP_GRACE_MS } from "../../src/cli/stop-signals.js";
import { reply, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli, startCli } from "../helpers/run-cli.js";
import { isRunning, parentOf } from "../helpers/process-state.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

const unavailable = tmuxUnavailableReason();
const COMPILED_STOP_SIGNALS = pathToFileURL(fileURLToPath(new URL("../../dist/src/cli/stop-signals.js", import.meta.url))).href;
/** Runs in the background until killed, and says where it is (its pid, in the project). */
const STUCK_COMMAND = "sleep 60 & echo $! > sleeper.pid; wait";

const fixture = createTerminalFixture();
let project: TempProject;
let server: FakeAnthropicServer;
beforeEach(async () => {
  project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
  server = await fixture.fakeModel();
});

const env = () => ({ ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl });

async function sleeperPid(): Promise<number> {
  const path = join(project.root, "sleeper.pid");
  for (let waited = 0; !existsSync(path) || readFileSync(path, "utf8").trim() === ""; waited += 50) {
    if (waited > 30_000) throw new Error("the command never started");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Number(readFileSync(path, "utf8"));
}

/** A process that listens for stop signals as `sylk` does and then waits on a read of a pipe nobody writes. */
function stuckProcess(fifo: string, graceMs: number) {
  const script = `
    import { readFile } from "node:fs/promises";
    import { listenForStopSignals } from ${JSON.stringify(COMPILED_STOP_SIGNALS)};
    listenForStopSignals(new AbortController(), process.stderr, ${graceMs});
    readFile(${JSON.stringify(fifo)}).then(() => process.stdout.write("read\\n"));
    process.stdout.write("ready\\n");
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
}

describe("stopping sylk from outside", () => {
  it("SIGTERM during a running command: sylk ask kills the command, records the turn and exits 143 within the grace period", async () => {
    server.enqueue(reply().toolUse("run_command", { command: STUCK_COMMAND }, "c1"), reply().text("never asked"));
    const child = startCli(["ask", "--yes", "--permission-mode", "bypass", "--no-sandbox", "Wait for it"], {
      cwd: project.root,
      env: env(),
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin?.end();
    const sleeper = await sleeperPid();
    const closed = once(child, "close");
    const sent = performance.now();
    child.kill("SIGTERM");
    const [code] = await closed;
    expect(performance.now() - sent).toBeLessThan(STOP_GRACE_MS);
    // Its own exit code: it ended by itself, before the hard stop.
    expect(code, stderr).toBe(143);
    expect(stderr).toContain("sylk: terminated; stopping…");
    expect(isRunning(sleeper)).toBe(false);
    expect(server.requests).toHaveLength(1);
    const services = openProject({ root: project.root, env: project.env });
    try {
      const session = services.sessions.latest();
      expect(services.sessions.messages(session?.id as string).at(-1)).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "[interrupted by the user]" }],
      });
    } finally {
      await services.close();
    }
  });

  it("a process held by something that cannot be cancelled still ends by the signal after the grace period", async () => {
    const fifo = join(project.root, "nobody-writes");
    execFileSync("mkfifo", [fifo]);
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      const child = stuckProcess(fifo, 500);
      await once(child.stdout as NodeJS.ReadableStream, "data");
      const closed = once(child, "close");
      const sent = performance.now();
      child.kill(signal);
      const [code, endedBy] = await closed;
      expect(performance.now() - sent, signal).toBeLessThan(2_500);
      expect([code, endedBy]).toEqual([null, signal]);
    }
  });

  it.skipIf(unavailable !== undefined)(
    "SIGTERM to the TUI during a running command ends it within seconds, the command killed",
    async () => {
      server.enqueue(reply().toolUse("run_command", { command: STUCK_COMMAND }, "c1"), reply().text("never asked"));
      expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
      const terminal = fixture.start(["--permission-mode", "bypass", "--no-sandbox", "wait for it"], {
        cwd: project.root,
        env: { ...env(), TERM: "xterm-256color" },
      });
      const sleeper = await sleeperPid();
      // The command's shell is the session's child: the command runs as `bash -c` in a process group of its own.
      const sylk = parentOf(parentOf(sleeper));
      const sent = performance.now();
      process.kill(sylk, "SIGTERM");
      await terminal.waitFor(/sylk exited \d+/, 10_000);
      expect(performance.now() - sent).toBeLessThan(STOP_GRACE_MS + 1_000);
      expect(terminal.exitStatus()).toBe(143);
      expect(isRunning(sleeper)).toBe(false);
    },
  );
});
