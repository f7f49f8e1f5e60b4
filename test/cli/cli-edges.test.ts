import { spawnSync } from "node:child_process";
import { beforeEach, describe, expect, it } from "vitest";
import { reply, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli, SYLK_BIN } from "../helpers/run-cli.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

/** Smaller edge cases at the command line. */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping sylk "prompt" in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
let project: TempProject;
let server: FakeAnthropicServer;
beforeEach(async () => {
  project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
  server = await fixture.fakeModel();
});

describe("the command line", () => {
  it("a reader that stops early ends the command quietly, without an EPIPE stack trace", () => {
    const run = spawnSync(
      "bash",
      ["-c", `${JSON.stringify(process.execPath)} ${JSON.stringify(SYLK_BIN)} --help | true; echo "status \${PIPESTATUS[0]}"`],
      {
        cwd: project.root,
        env: { ...project.env, CI: "true" },
        encoding: "utf8",
      },
    );
    expect(run.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(run.stdout).toContain("status 0");
  });

  it("a mistyped command says which one was meant instead of starting a session", async () => {
    const run = await runCli(["idnex"], { cwd: project.root, env: project.env });
    expect(run.code).toBe(42);
    expect(run.stderr).toContain('Unknown command "idnex": did you mean `sylk index`?');
  });

  it.skipIf(unavailable !== undefined)(
    'sylk "prompt" opens the session with that prompt; the goodbye line has a line of its own',
    async () => {
      server.enqueue(reply().text("Four, as asked from the command line."));
      expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
      const terminal = fixture.start(["what is two plus two"], {
        cwd: project.root,
        env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, TERM: "xterm-256color" },
      });
      await terminal.waitFor("Four, as asked from the command line.", 60_000);
      expect(terminal.screen()).toContain("> what is two plus two");
      terminal.send("C-c");
      terminal.send("C-c");
      await terminal.waitFor(/sylk exited 0/);
      expect(terminal.screen()).toMatch(/\nSession [0-9a-f]{8} saved; continue it with: sylk --resume [0-9a-f]{8}\n/);
    },
  );
});
