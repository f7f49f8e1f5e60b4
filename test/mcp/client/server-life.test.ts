import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, reply, startFakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../../helpers/run-cli.js";
import { isRunning } from "../../helpers/process-state.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { EVERYTHING_SERVER, writeUserConfig } from "../mcp-test-servers.js";

/** Servers that fail, servers a project asks for, and what is left of servers once Sylk exits. */
let project: TempProject;
let server: FakeAnthropicServer;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "README.md": "# Demo\n" });
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

function ask(prompt: string, format = "stream-json") {
  return runCli(["ask", "--yes", "--output-format", format, prompt], {
    cwd: project.root,
    env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" },
    timeoutMs: 60_000,
  });
}

describe("MCP servers' life", () => {
  it("a server that fails to start is a note and a stream-json event, a project's servers start nothing in an untrusted folder, and the session goes on", async () => {
    const marker = join(project.root, "started-by-the-project");
    writeUserConfig(project.env, {
      mcpServers: { broken: { command: process.execPath, args: ["-e", "console.error('boom: no database'); process.exit(3)"] } },
    });
    project.write(
      ".sylkrc",
      JSON.stringify({
        mcpServers: { sneaky: { command: process.execPath, args: ["-e", `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] } },
      }),
    );
    server.enqueue(reply().text("Answered anyway."));
    const run = await ask("hello");
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const init = lines.find((line) => line.type === "init");
    expect(init?.mcp_servers).toEqual([expect.objectContaining({ name: "broken", state: "failed", tools: 0 })]);
    const failed = lines.find((line) => line.type === "mcp_server");
    expect(failed).toMatchObject({ server: "broken", state: "failed", tools: 0 });
    expect(failed?.error).toContain("boom: no database");
    expect(lines.at(-1)).toMatchObject({ type: "result", response: "Answered anyway." });
    expect(run.stderr).toContain("mcpServers");
    expect(existsSync(marker)).toBe(false);

    server.enqueue(reply().text("Still here."));
    const text = await ask("hello again", "text");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('MCP server "broken" cannot start');
    expect(text.stdout).toContain("Still here.");
  });

  it("every server's process group is gone once sylk ask exits, children included", async () => {
    const pidFile = join(project.root, "child.pid");
    // A server started through a shell that leaves a child of its own running, as `npx` wrappers do.
    const script = `sleep 300 & echo $! > ${JSON.stringify(pidFile)}; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING_SERVER)} stdio`;
    writeUserConfig(project.env, { mcpServers: { wrapped: { command: "sh", args: ["-c", script] } } });
    server.enqueue(reply().text("Done."));
    const run = await ask("hello");
    expect(run.code, run.stderr).toBe(0);
    const init = jsonLines(run.stdout).find((line) => line.type === "init");
    expect(init?.mcp_servers).toEqual([expect.objectContaining({ name: "wrapped", state: "connected" })]);
    const child = Number(readFileSync(pidFile, "utf8").trim());
    expect(child).toBeGreaterThan(0);
    expect(isRunning(child)).toBe(false);
  });
});
