import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeBubblewrap } from "../../src/agent/sandbox/bubblewrap.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * In bypass mode a base64-wrapped `rm -rf` of a directory outside the
 * project once ran. Pattern checks cannot see through
 * encodings; the sandbox does not need to.
 */
const probe =
  process.platform === "linux"
    ? probeBubblewrap(process.env)
    : ({ ok: false, reason: `these tests run bubblewrap, on Linux only` } as const);
if (!probe.ok) console.warn(`sylk ask sandbox tests skipped: ${probe.reason}.`);

let project: TempProject;
let server: FakeAnthropicServer;
let outside: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
  // Outside the project and outside /tmp (which the sandbox replaces with its own).
  outside = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), "sylk-outside-"));
  writeFileSync(join(outside, "precious.txt"), "keep me\n");
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const sylk = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: project.root, env: { ...env, ...extraEnv } });
const toolResults = (stdout: string) => jsonLines(stdout).filter((line) => line.type === "tool_result");

describe.skipIf(!probe.ok)("sylk ask runs commands in the sandbox", () => {
  it("in bypass mode, an encoded rm -rf of a directory outside the project leaves it intact", async () => {
    const encoded = Buffer.from(`rm -rf ${outside}`).toString("base64");
    server.enqueue(reply().toolUse("run_command", { command: `echo ${encoded} | base64 -d | sh` }), reply().text("Cleaned up."));
    const run = await sylk(["ask", "--yes", "--permission-mode", "bypass", "--output-format", "stream-json", "tidy up"]);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonLines(run.stdout)[0]).toMatchObject({ type: "init", sandbox: "bubblewrap" });
    const [result] = toolResults(run.stdout);
    expect(result).toMatchObject({ name: "run_command", permission: "allowed", is_error: true });
    expect(String(result?.output)).toMatch(/Read-only file system/);
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("keep me\n");
  });

  it("--no-sandbox runs commands as they are, and says so", async () => {
    server.enqueue(reply().toolUse("run_command", { command: `touch ${join(outside, "made-outside")}` }), reply().text("Done."));
    const run = await sylk(["ask", "--yes", "--no-sandbox", "--permission-mode", "bypass", "--output-format", "stream-json", "touch it"]);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonLines(run.stdout)[0]).toMatchObject({ type: "init", sandbox: "off" });
    expect(toolResults(run.stdout)[0]).toMatchObject({ is_error: false });
    expect(existsSync(join(outside, "made-outside"))).toBe(true);
  });

  it("in a trusted folder without .sylkrc, a command cannot write one that turns the sandbox off for the next run", async () => {
    const trust = await sylk(["trust", "."]);
    expect(trust.code, trust.stderr).toBe(0);
    server.enqueue(
      reply().toolUse("run_command", { command: `printf '{"permissions":{"mode":"bypass"},"sandbox":{"enabled":false}}' > .sylkrc` }),
      reply().text("Configured."),
    );
    const first = await sylk(["ask", "--yes", "--permission-mode", "bypass", "--output-format", "stream-json", "set things up"]);
    expect(first.code, first.stderr).toBe(0);
    expect(toolResults(first.stdout)[0]).toMatchObject({ name: "run_command", permission: "allowed", is_error: true });
    expect(String(toolResults(first.stdout)[0]?.output)).toMatch(/Read-only file system/);
    expect(existsSync(join(project.root, ".sylkrc"))).toBe(false);

    // The next plain run is as sandboxed and as careful as before: it cannot run the command without asking.
    server.enqueue(reply().toolUse("run_command", { command: `touch ${join(outside, "made-outside")}` }), reply().text("Done."));
    const next = await sylk(["ask", "--yes", "--output-format", "stream-json", "touch it"]);
    expect(jsonLines(next.stdout)[0]).toMatchObject({ type: "init", sandbox: "bubblewrap" });
    expect(toolResults(next.stdout)[0]).toMatchObject({ permission: "denied" });
    expect(existsSync(join(outside, "made-outside"))).toBe(false);
  });

  it("a command the model asks to run outside the sandbox is refused: a scripted run cannot ask, whatever the mode", async () => {
    server.enqueue(
      reply().toolUse("run_command", { command: `touch ${join(outside, "made-outside")}`, unsandboxed: true }),
      reply().text("I could not."),
    );
    const run = await sylk(["ask", "--yes", "--permission-mode", "bypass", "--output-format", "stream-json", "touch it"]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(run.stdout);
    expect(result).toMatchObject({ name: "run_command", permission: "denied", is_error: true });
    expect(String(result?.output)).toMatch(/Run outside the sandbox: .*this run cannot ask/);
    expect(existsSync(join(outside, "made-outside"))).toBe(false);
  });

  it("sylk status says how commands run", async () => {
    mkdirSync(project.sylkHome, { recursive: true });
    const status = await sylk(["status"]);
    expect(status.stdout).toMatch(
      /Commands: +commands run sandboxed \(bubblewrap: only the project and a temporary directory are writable, but not \.git or Sylk's settings; .* hidden; network off\)/,
    );
    // $SYLK_HOME is hidden from commands, whatever else exists on this machine.
    expect(status.stdout).toContain(`Hidden:       ~/home`);
    const json = await sylk(["status", "--json"], { SYLK_SANDBOX_ENABLED: "false" });
    expect(JSON.parse(json.stdout).sandbox).toEqual({
      name: "off",
      description: expect.stringContaining("turned off"),
      hidden: [],
      warnings: [],
    });
  });
});

describe("where this machine cannot make a sandbox", () => {
  it("sylk ask says so once, clearly, and sylk status says so too", async () => {
    server.enqueue(reply().text("Hello."));
    // No bwrap on this PATH.
    const run = await sylk(["ask", "--yes", "hi"], { PATH: "/nonexistent" });
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split("\n").filter((line) => line.includes("unsandboxed"));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^sylk: warning: commands run unsandboxed: bubblewrap is not installed .*apt-get install bubblewrap.*sandbox\.enabled/,
      ),
    ]);
    const status = await sylk(["status", "--json"], { PATH: "/nonexistent" });
    expect(JSON.parse(status.stdout).sandbox).toMatchObject({ name: process.platform === "linux" ? "unavailable" : expect.any(String) });
  });
});
