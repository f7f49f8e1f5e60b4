import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { reply, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

/** What the user approves is what runs, checked on a real terminal: what tmux shows and the title it keeps. */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping control characters in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
let project: TempProject;
let server: FakeAnthropicServer;
beforeEach(async () => {
  project = fixture.project({ "a.txt": "keep me\n" });
  server = await fixture.fakeModel();
});

describe.skipIf(unavailable !== undefined)("control characters, in a real terminal", () => {
  it("the hidden deletion is on the screen, escaped and flagged; the model's OSC title sequence leaves the title alone", async () => {
    server.enqueue(
      reply().toolUse("run_command", { command: "rm -rf ./a.txt; touch ../x \u001b[2K\rnpm test" }),
      reply().text("Title \u001b]0;PWNED\u0007set? \u001b[31mRED\u001b[0m\n\nA second block."),
    );
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const terminal = fixture.start(["run the tests"], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, TERM: "xterm-256color" },
    });
    await terminal.waitFor("Run a command?", 60_000);
    const titleBefore = terminal.paneTitle();
    const screen = terminal.screen();
    expect(screen).toContain("$ rm -rf ./a.txt; touch ../x \\e[2K\\rnpm test");
    expect(screen).toContain("⚠ This command contains control characters, shown escaped");
    expect(screen).not.toMatch(/^\s*│?\s*\$ npm test/m);

    terminal.send("n", { literal: true });
    await terminal.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(readFileSync(join(project.root, "a.txt"), "utf8")).toBe("keep me\n");

    terminal.send("say something", { literal: true });
    terminal.send("Enter");
    await terminal.waitFor("A second block.");
    expect(terminal.screen()).toContain("Title \\e]0;PWNED\\x07set? \\e[31mRED\\e[0m");
    expect(terminal.paneTitle()).toBe(titleBefore);
    expect(terminal.paneTitle()).not.toContain("PWNED");
  });
});
