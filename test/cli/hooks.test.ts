import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, messageRequests, reply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** Hooks through `sylk ask`, the built CLI against the fake Messages API. */
let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;
/** Outside the project: the user's home, which holds ~/.sylkrc and the hooks' scripts. */
let home: string;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
  home = dirname(project.root);
  env = { ...project.env, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[]) => runCli(args, { cwd: project.root, env, timeoutMs: 60_000 });

function script(name: string, body: string): string {
  const path = join(home, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("sylk ask with hooks", () => {
  it("a PreToolUse hook's exit 2 blocks a command, which never runs; its reason reaches the model, and stream-json has the hook event", async () => {
    const guard = script("guard.sh", 'grep -q "rm -rf" && { echo "rm -rf is not allowed in this repository" >&2; exit 2; }; exit 0');
    writeFileSync(
      join(home, ".sylkrc"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } }),
    );
    server.enqueue(
      reply().toolUse("run_command", { command: "touch ran-marker && rm -rf build" }, "toolu_rm"),
      reply().text("I will not remove the build directory."),
    );
    const run = await sylk(["ask", "--yes", "--permission-mode", "bypass", "--output-format", "stream-json", "Clean the build."]);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(project.root, "ran-marker"))).toBe(false);
    const second = messageRequests(server)[1]?.body;
    expect(JSON.stringify(second.messages.at(-1))).toContain(
      "A PreToolUse hook blocked this call: rm -rf is not allowed in this repository",
    );

    const lines = jsonLines(run.stdout);
    const hook = lines.find((line) => line.type === "hook");
    expect(hook).toMatchObject({
      type: "hook",
      hook_event_name: "PreToolUse",
      command: guard,
      tool_name: "run_command",
      outcome: "blocked",
      exit_code: 2,
      message: "rm -rf is not allowed in this repository",
      agent_id: "engineer-1",
    });
    expect(typeof hook?.duration_ms).toBe("number");
    const types = lines.map((line) => line.type);
    expect(types.indexOf("hook")).toBeLessThan(types.indexOf("tool_result"));
    expect(types.at(-1)).toBe("result");
  });

  it("a UserPromptSubmit hook's exit 2 stops the prompt: nothing is sent, the user reads why, and the exit code says blocked", async () => {
    writeFileSync(
      join(home, ".sylkrc"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'prompts go through the ticket system' >&2; exit 2" }] }] },
      }),
    );
    const run = await sylk(["ask", "--yes", "Refactor everything."]);
    expect(run.code).toBe(55);
    expect(run.stderr).toContain(
      "UserPromptSubmit hook `echo 'prompts go through the ticket system' >&2; exit 2` blocked the prompt, which was not sent: prompts go through the ticket system",
    );
    expect(messageRequests(server)).toHaveLength(0);
    const pipeline = await sylk(["ask", "--yes", "--pipeline", "Refactor everything."]);
    expect(pipeline.code).toBe(55);
    expect(messageRequests(server)).toHaveLength(0);
  });

  it("a sub-agent's hook that blocks is a line on stderr, under the agent it came from", async () => {
    writeFileSync(
      join(home, ".sylkrc"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Grep", hooks: [{ type: "command", command: "echo 'use search_codebase' >&2; exit 2" }] }] },
      }),
    );
    server.enqueue(
      reply().toolUse("delegate", { agent: "librarian", task: "Where is answer defined?" }, "toolu_delegate"),
      reply().toolUse("grep", { pattern: "answer" }, "toolu_grep"),
      reply().text("In src/app.ts."),
      reply().text("src/app.ts."),
    );
    const run = await sylk(["ask", "--yes", "Where is answer defined? Ask the librarian."]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "sylk: librarian-1: PreToolUse hook (grep) `echo 'use search_codebase' >&2; exit 2` blocked the call: use search_codebase",
    );
  });
});

describe("a project's hooks", () => {
  it("do not run in an untrusted folder, and do once the user trusts it", async () => {
    const marker = join(home, "project-hook-ran");
    project.write(
      ".sylkrc",
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch '${marker}'` }] }] } }),
    );
    server.enqueue(reply().text("Hello."));
    const untrusted = await sylk(["ask", "--yes", "hi"]);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(untrusted.stderr).toMatch(/not trusted, so these settings in .*\.sylkrc are ignored: hooks\.UserPromptSubmit/);

    const trust = await sylk(["trust"]);
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stdout).toContain("hooks.UserPromptSubmit");
    server.enqueue(reply().text("Hello again."));
    const trusted = await sylk(["ask", "hi"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
