import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * `sylk ask` end to end (the real CLI, the real SDK against a scripted fake
 * model) in a repository that plants links and FIFOs. Every run has a
 * deadline: a read that waits on a FIFO is killed there and fails the test.
 */
const DEADLINE_MS = 30_000;
let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test-key", ANTHROPIC_BASE_URL: server.baseUrl };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const ask = (...args: string[]) => runCli(["ask", "--yes", ...args], { cwd: project.root, env, timeoutMs: DEADLINE_MS });
const mkfifo = (path: string) => execFileSync("mkfifo", [join(project.root, path)]);

/** The tool_result blocks the model got in request `index`. */
function toolResults(index: number): Array<{ content: string; is_error?: boolean }> {
  const messages = messageRequests(server)[index]?.body.messages as Array<{ content: Array<Record<string, unknown>> | string }>;
  const last = messages.at(-1)?.content;
  return (Array.isArray(last) ? last : []).filter((block) => block.type === "tool_result") as never;
}

describe("sylk ask in a repository that plants links and FIFOs", () => {
  it("write_file through a dangling link out of the project is refused in accept-edits, and nothing is created outside", async () => {
    const target = join(project.root, "../outside/pwned.txt");
    symlinkSync("../outside/pwned.txt", join(project.root, "dangling"));
    server.enqueue(reply().toolUse("write_file", { path: "dangling", content: "owned\n" }), reply().text("I could not write it."));
    const run = await ask("--permission-mode", "accept-edits", "write the file");
    expect(run.timedOut).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(1);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain(`dangling leads through a symbolic link to ${target}, which is outside the project`);
    expect(existsSync(target)).toBe(false);
  });

  it("read_file on a FIFO answers at once with what it is", async () => {
    mkfifo("notes.md");
    server.enqueue(reply().toolUse("read_file", { path: "notes.md" }), reply().text("It is a pipe."));
    const run = await ask("read notes.md");
    expect(run.timedOut).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(1)[0]?.content).toContain("notes.md is a FIFO (named pipe), not a regular file");
  });

  it("an @-mention of a FIFO is not attached, and the user is told", async () => {
    mkfifo("notes.md");
    server.enqueue(reply().text("Nothing attached."));
    const run = await ask("summarise @notes.md");
    expect(run.timedOut).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("sylk: @notes.md was not attached: it is a FIFO (named pipe), not a regular file.");
    expect(JSON.stringify(messageRequests(server)[0]?.body.messages)).not.toContain("<attached");
  });

  it("an AGENTS.md linked to a credentials file outside the project stays out of the system prompt", async () => {
    const credentials = join(project.root, "../aws-credentials");
    writeFileSync(credentials, "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\nmarker = the-outside-file\n");
    symlinkSync(credentials, join(project.root, "AGENTS.md"));
    server.enqueue(reply().text("Hello."));
    const run = await ask("hello");
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(messageRequests(server)[0]?.body.system)).not.toContain("the-outside-file");
    expect(run.stderr).toContain(
      `sylk: AGENTS.md was not read into the prompt: it is a symbolic link to ${credentials}, outside the project.`,
    );
  });

  it("an AGENTS.md that is a FIFO does not hold the start", async () => {
    mkfifo("AGENTS.md");
    server.enqueue(reply().text("Hello."));
    const run = await ask("hello");
    expect(run.timedOut).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("Hello.\n");
    expect(run.stderr).toContain("sylk: AGENTS.md was not read into the prompt: it is a FIFO (named pipe), not a regular file.");
  });
});

describe("sylk index in a repository that plants FIFOs and names that are not UTF-8", () => {
  const index = (...args: string[]) => runCli(["index", ...args], { cwd: project.root, env, timeoutMs: DEADLINE_MS });
  const latin1Name = () => Buffer.concat([Buffer.from(join(project.root, "caf")), Buffer.from([0xe9]), Buffer.from(".txt")]);

  it("finishes, and names what it skipped and why, in its output and its --json summary", async () => {
    mkfifo("notes.md");
    mkfifo("src/pipe.ts");
    writeFileSync(latin1Name(), "a file whose name is Latin-1\n");
    const run = await index();
    expect(run.timedOut).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Done: 1 files indexed, \d+ chunks, 0 removed, 3 skipped, 0 failed/);
    expect(run.stdout).toContain("  skipped: caf\\xe9.txt: its name is not UTF-8, which Sylk's tools cannot name; rename it to index it");
    expect(run.stdout).toContain("  skipped: notes.md: a FIFO (named pipe), not a regular file; never read");
    expect(run.stdout).toContain("  skipped: src/pipe.ts: a FIFO (named pipe), not a regular file; never read");

    project.remove("notes.md");
    mkfifo("later.md");
    const json = await index("--json");
    expect(json.code, json.stderr).toBe(0);
    const summary = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((event) => event.type === "summary");
    expect(summary).toMatchObject({ deleted: 1, skipped: 1, unindexable: { count: 1, examples: [{ path: "later.md", reason: "fifo" }] } });
  });
});
