import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { EVERYTHING_SERVER } from "../mcp/mcp-test-servers.js";

/** `sylk mcp add|list|get|remove`, against the user's and the project's real `.sylkrc` files and the reference server. */
let project: TempProject;

beforeEach(() => {
  project = createTempProject({ "README.md": "# Demo\n" });
});
afterEach(() => project.cleanup());

function mcp(args: string[]) {
  return runCli(["mcp", ...args], { cwd: project.root, env: project.env, timeoutMs: 60_000 });
}

function json(run: { code: number | null; stdout: string; stderr: string }): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

const userFile = () => join(project.env.HOME as string, ".sylkrc");

describe("sylk mcp", () => {
  it("adds a stdio server to the user's .sylkrc, keeping its comments; lists and gets it connected; removes it", async () => {
    writeFileSync(userFile(), '// my settings\n{\n  "agent": { "maxTurns": 40 } // keep this\n}\n');
    const added = json(
      await mcp([
        "add",
        "--json",
        "-e",
        "GREETING=${USER_GREETING:-hello}",
        "everything",
        "--",
        process.execPath,
        EVERYTHING_SERVER,
        "stdio",
      ]),
    );
    expect(added).toMatchObject({ added: "everything", scope: "user", file: userFile() });
    const text = readFileSync(userFile(), "utf8");
    expect(text).toContain("// my settings");
    expect(text).toContain("// keep this");
    expect(text).toContain('"GREETING": "${USER_GREETING:-hello}"');

    const listed = json(await mcp(["list", "--json"]));
    expect(listed.servers).toEqual([
      expect.objectContaining({
        name: "everything",
        scope: "user",
        transport: "stdio",
        state: "connected",
        config: expect.objectContaining({ args: [EVERYTHING_SERVER, "stdio"] }),
      }),
    ]);
    const got = json(await mcp(["get", "everything", "--json"]));
    expect(got.tools).toContain("echo");
    expect(got.prompts).toContain("args-prompt");
    const plain = await mcp(["list"]);
    expect(plain.stdout).toMatch(/^everything \(user, stdio\): ✓ connected, \d+ tools$/m);

    expect(json(await mcp(["remove", "everything", "--json"]))).toEqual({ removed: "everything", scope: "user", file: userFile() });
    expect(readFileSync(userFile(), "utf8")).toContain("// keep this");
    expect(json(await mcp(["list", "--json"])).servers).toEqual([]);
  });

  it("writes the project's .sylkrc with --project, which starts nothing until the folder is trusted, and refuses what it cannot write", async () => {
    const added = json(
      await mcp(["add", "docs", "https://docs.example.com/mcp", "--project", "-H", "Authorization: Bearer ${DOCS_TOKEN}", "--json"]),
    );
    expect(added).toMatchObject({ added: "docs", scope: "project", file: join(project.root, ".sylkrc") });
    expect(JSON.parse(readFileSync(join(project.root, ".sylkrc"), "utf8"))).toEqual({
      mcpServers: { docs: { url: "https://docs.example.com/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN}" } } },
    });
    const listed = json(await mcp(["list", "--json"]));
    expect(listed.servers).toEqual([]);
    expect(listed.ignored).toMatchObject({ file: join(project.root, ".sylkrc") });

    const again = await mcp(["add", "docs", "https://docs.example.com/mcp", "--project"]);
    expect(again.code).toBe(42);
    expect(again.stderr).toContain('already has an MCP server "docs"');
    const badName = await mcp(["add", "bad__name", "--", "node"]);
    expect(badName.code).toBe(42);
    const missing = await mcp(["remove", "docs"]);
    expect(missing.code).toBe(42);
    expect(missing.stderr).toContain("with --project");
    expect(json(await mcp(["remove", "docs", "--project", "--json"]))).toMatchObject({ removed: "docs", scope: "project" });
  });

  it("sylk status lists each server with its state and tool count", async () => {
    await mcp(["add", "everything", "--", process.execPath, EVERYTHING_SERVER, "stdio"]);
    await mcp(["add", "broken", "--", process.execPath, "-e", "process.exit(2)"]);
    const status = json(await runCli(["status", "--json"], { cwd: project.root, env: project.env, timeoutMs: 60_000 }));
    expect(status.mcpServers).toEqual([
      expect.objectContaining({ name: "everything", transport: "stdio", state: "connected", tools: expect.any(Number) }),
      expect.objectContaining({ name: "broken", state: "failed", tools: 0 }),
    ]);
    const text = await runCli(["status"], { cwd: project.root, env: project.env, timeoutMs: 60_000 });
    expect(text.stdout).toMatch(/^MCP servers: everything \(stdio\): connected, \d+ tools$/m);
    expect(text.stdout).toMatch(/^ {13}broken \(stdio\): failed: /m);
  });

  it("says why a server failed in list and get", async () => {
    await mcp(["add", "broken", "--", process.execPath, "-e", "console.error('cannot open the database'); process.exit(2)"]);
    const listed = json(await mcp(["list", "--json"]));
    expect(listed.servers).toEqual([
      expect.objectContaining({ name: "broken", state: "failed", error: expect.stringContaining("cannot open the database") }),
    ]);
    const unknown = await mcp(["get", "nothing"]);
    expect(unknown.code).toBe(42);
  });
});
