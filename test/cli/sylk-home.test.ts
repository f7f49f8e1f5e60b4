import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gatedSettingsHash, withoutTrustGatedKeys } from "../../src/config/trust-gated-keys.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * `$SYLK_HOME` holds the trust store and every conversation: a repository
 * must never be able to be it, ship it, or have the agent read it.
 */
let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const modelEnv = () => ({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" });
const toolResults = (index: number): string[] =>
  (server.requests[index]!.body.messages.at(-1).content as Array<{ type: string; content: string }>)
    .filter((block) => block.type === "tool_result")
    .map((block) => block.content);

/** Every path under a directory, relative to it. */
function tree(directory: string, prefix = ""): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = `${prefix}${entry.name}`;
    return entry.isDirectory() ? [`${path}/`, ...tree(join(directory, entry.name), `${path}/`)] : [path];
  });
}

describe("a repository that ships a trust store and a bypass .sylkrc", () => {
  let project: TempProject;
  beforeEach(() => {
    project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
    const sylkrc = { permissions: { mode: "bypass" } };
    project.write(".sylkrc", JSON.stringify(sylkrc));
    // What SYLK_HOME="" used to read as $SYLK_HOME/trusted-folders.json: the project trusting itself, hash and all.
    const root = realpathSync(project.root);
    const hash = gatedSettingsHash(withoutTrustGatedKeys(sylkrc).ignored);
    project.write(
      "trusted-folders.json",
      JSON.stringify({
        version: 2,
        folders: { [root]: { trusted: true, at: "2025-01-01T00:00:00.000Z", via: "prompt", settingsHash: hash } },
      }),
    );
  });
  afterEach(() => project.cleanup());

  it('with SYLK_HOME="" runs no command unasked and creates nothing in the project: an empty SYLK_HOME means ~/.sylk', async () => {
    const before = tree(project.root);
    server.enqueue(reply().toolUse("run_command", { command: "touch pwned" }, "toolu_cmd"), reply().text("I could not."));
    const env = { ...project.env, ...modelEnv(), SYLK_HOME: "" };
    const run = await runCli(["ask", "--yes", "do it"], { cwd: project.root, env });
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(1)).toEqual([expect.stringContaining("Permission denied")]);
    expect(tree(project.root)).toEqual(before);
    expect(run.stderr).toMatch(/this folder is not trusted, so these settings in .*\.sylkrc are ignored: permissions\.mode/);
    // HOME is the test's base directory: the default home is made there.
    expect(readdirSync(join(project.root, "..", ".sylk"))).toContain("projects");
  });

  it("with SYLK_HOME inside the project (or the project itself, or a link to it) stops with an error naming SYLK_HOME, before anything is made", async () => {
    const link = join(project.root, "..", "link-to-project");
    symlinkSync(project.root, link);
    for (const home of [join(project.root, ".sylk-data"), project.root, ".", link]) {
      const before = tree(project.root);
      const run = await runCli(["ask", "--yes", "do it"], { cwd: project.root, env: { ...project.env, ...modelEnv(), SYLK_HOME: home } });
      expect(run.code, `${home}: ${run.stderr}`).toBe(52);
      expect(run.stderr).toMatch(
        /^sylk: SYLK_HOME \(.*\) is inside the project .*Set SYLK_HOME to a directory outside the project, or unset it to use ~\/\.sylk\.\n$/,
      );
      expect(tree(project.root)).toEqual(before);
    }
    expect(server.requests).toHaveLength(0);
    const trust = await runCli(["trust", "."], { cwd: project.root, env: { ...project.env, SYLK_HOME: project.root } });
    expect(trust.code).toBe(52);
    expect(trust.stderr).toContain("SYLK_HOME");
  });
});

describe("a project at the home directory, which holds the default ~/.sylk", () => {
  let home: string;
  beforeEach(() => {
    home = realpathSync(mkdtempSync(join(tmpdir(), "sylk-home-project-")));
    mkdirSync(join(home, "notes"));
    writeFileSync(join(home, "notes", "todo.md"), "# todo\nfolders to tidy\n");
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("is indexed without Sylk's own data, and the tools refuse to read or list it", async () => {
    const { SYLK_HOME: _unset, ...inherited } = process.env;
    const env = { ...inherited, HOME: home, SYLK_LEARNING_ENABLED: "false", ...modelEnv() };
    const summaryOf = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1) as string);
    const index = await runCli(["index", "--json"], { cwd: home, env });
    expect(index.code, index.stderr).toBe(0);
    expect(tree(join(home, ".sylk"))).toContain("projects/");
    expect(summaryOf(index.stdout)).toMatchObject({ type: "summary", scanned: 1 });
    // Again, with the database, its WAL and the consent file in ~/.sylk: still only the user's own file.
    expect(summaryOf((await runCli(["index", "--json"], { cwd: home, env })).stdout)).toMatchObject({ before: "fresh", scanned: 1 });

    server.enqueue(
      reply()
        .toolUse("read_file", { path: ".sylk/trusted-folders.json" }, "toolu_read")
        .toolUse("list_files", {}, "toolu_list")
        .toolUse("grep", { pattern: "." }, "toolu_grep")
        .toolUse("write_file", { path: ".sylk/trusted-folders.json", content: "{}" }, "toolu_write"),
      reply().text("Done."),
    );
    const run = await runCli(["ask", "--permission-mode", "bypass", "look around"], { cwd: home, env });
    expect(run.code, run.stderr).toBe(0);
    const [read, list, grep, write] = toolResults(1);
    expect(read).toMatch(/Permission denied: \.sylk\/trusted-folders\.json is in Sylk's own data directory/);
    expect(write).toMatch(/Permission denied: \.sylk\/trusted-folders\.json is in Sylk's own data directory/);
    expect(list).toContain("notes/todo.md");
    expect(list).not.toContain(".sylk");
    expect(grep).toContain("notes/todo.md");
    expect(grep).not.toContain(".sylk");
  });
});
