import { beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";
import { everythingServer, resultText, toolResultsIn, writeUserConfig } from "../mcp/mcp-test-servers.js";

/** The MCP client in the TUI, on a real terminal: /mcp, a server's prompt as a slash command, and its tool asked about. */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping MCP in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
let project: TempProject;
let server: FakeAnthropicServer;
beforeEach(async () => {
  project = fixture.project({ "README.md": "# Demo\n" });
  server = await fixture.fakeModel();
});

describe.skipIf(unavailable !== undefined)("MCP in the TUI", () => {
  it("/mcp shows the server, its state, tools and prompts; /mcp__everything__args-prompt, completed with Tab, sends the prompt; its tool asks first", async () => {
    writeUserConfig(project.env, {
      mcpServers: {
        everything: everythingServer(),
        broken: { command: process.execPath, args: ["-e", "console.error('no license'); process.exit(1)"] },
      },
    });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    server.enqueue(
      // The server's tools are deferred: the model loads the one it calls first.
      reply().toolUse("find_tools", { names: ["mcp__everything__echo"] }, "toolu_find"),
      reply().toolUse("mcp__everything__echo", { message: "from the TUI" }, "toolu_echo"),
      reply().text("The server echoed."),
    );
    const terminal = fixture.start([], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, TERM: "xterm-256color" },
    });
    const shown = terminal;
    // The screen is up before the server: /mcp says it is connecting until it is ready.
    await shown.waitFor(/\/help/, 60_000);
    // A server that fails is said at once, with no prompt sent.
    await shown.waitFor('MCP server "broken" cannot start', 30_000);
    expect(shown.screen()).toContain("no license");
    const deadline = Date.now() + 30_000;
    for (;;) {
      // Enter once the text shows, as a user reads before sending.
      shown.send("/mcp", { literal: true });
      await shown.waitFor(/❯ \/mcp\s*│/);
      shown.send("Enter");
      await shown.waitFor(/❯ \s*│|Ask anything/);
      await shown.waitFor(/everything \(stdio\): (connected|connecting)/);
      if (/everything \(stdio\): connected\n/.test(shown.screen()) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const screen = shown.screen();
    expect(screen).toMatch(/everything \(stdio\): connected\n\s+tools \(\d+\): [\s\S]*?echo/);
    expect(screen).toMatch(/broken \(stdio\): failed: the session goes on without its tools\n\s+last error: cannot start/);
    expect(screen).toContain("/mcp__everything__args-prompt");

    // The server's prompts are in the menu: Tab completes one.
    shown.send("/mcp__everything__ar", { literal: true });
    await shown.waitFor("A prompt with two arguments");
    shown.send("Tab");
    // Typed on once the completion shows, as a user does.
    await shown.waitFor(/❯ \/mcp__everything__args-prompt/);
    shown.send("Paris", { literal: true });
    await shown.waitFor("/mcp__everything__args-prompt Paris");
    shown.send("Enter");
    await shown.waitFor("Use an MCP server's tool?", 30_000);
    expect(shown.screen()).toContain('{"message":"from the TUI"}');
    shown.send("1", { literal: true });
    await shown.waitFor("The server echoed.", 30_000);
    const [first, , third] = messageRequests(server);
    expect(JSON.stringify(first?.body.messages)).toContain("What's weather in Paris?");
    expect(resultText(toolResultsIn(third?.body)[0])).toBe("Echo: from the TUI");
  });
});
