import { beforeEach, describe, expect, it } from "vitest";
import { reply, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

/** `sylk --resume` and `--continue`: the session is looked up before the screen is drawn, and a session left without a prompt is not kept. */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping sylk --resume in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
let project: TempProject;
let server: FakeAnthropicServer;
beforeEach(async () => {
  project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
  server = await fixture.fakeModel();
  expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
});

const modelEnv = () => ({ ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, TERM: "xterm-256color" });

async function sessionsListed(): Promise<string> {
  const run = await runCli(["sessions"], { cwd: project.root, env: project.env });
  expect(run.code).toBe(0);
  return run.stdout;
}

describe.skipIf(unavailable !== undefined)("sylk --resume in a terminal", () => {
  it("an unknown --resume id fails with its message before the screen is drawn; --continue with no session says there is none", async () => {
    let terminal = fixture.start(["--resume", "nosuchid"], { cwd: project.root, env: modelEnv() });
    await terminal.waitFor(/sylk exited \d+/, 60_000);
    expect(terminal.screen()).toContain("No session nosuchid in this project; `sylk sessions` lists them.");
    expect(terminal.screen()).toMatch(/sylk exited 42\b/);
    terminal.close();
    terminal = fixture.start(["--continue"], { cwd: project.root, env: modelEnv() });
    await terminal.waitFor(/sylk exited \d+/, 60_000);
    expect(terminal.screen()).toContain("There is no earlier session in this project to continue.");
    expect(await sessionsListed()).not.toMatch(/[0-9a-f]{8}/);
  }, 120_000);

  it("a session left without a prompt is not kept nor offered to resume; one with a prompt is, and --resume goes on with it", async () => {
    let terminal = fixture.start([], { cwd: project.root, env: modelEnv() });
    await terminal.waitFor("index: fresh", 60_000);
    terminal.send("C-c");
    terminal.send("C-c");
    await terminal.waitFor(/sylk exited 0/);
    expect(terminal.screen()).not.toContain("saved; continue it with");
    expect(await sessionsListed()).not.toMatch(/[0-9a-f]{8}/);
    terminal.close();

    server.enqueue(reply().text("Kept for later."));
    terminal = fixture.start(["remember this"], { cwd: project.root, env: modelEnv() });
    await terminal.waitFor("Kept for later.", 60_000);
    terminal.send("C-c");
    terminal.send("C-c");
    await terminal.waitFor(/sylk exited 0/);
    const id = /Session ([0-9a-f]{8}) saved; continue it with: sylk --resume \1/.exec(terminal.screen())?.[1];
    expect(id).toBeDefined();
    terminal.close();

    terminal = fixture.start(["--resume", id as string], { cwd: project.root, env: modelEnv() });
    await terminal.waitFor(`Resumed session ${id}: remember this`, 60_000);
  }, 240_000);
});
