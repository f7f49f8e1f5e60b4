import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * End to end: the user allows `echo ok*` in their .sylkrc, and a model that
 * follows injected text chains another command onto it. The chain is not
 * covered by the rule, and a scripted run cannot ask, so it is refused.
 */
let project: TempProject;
let server: FakeAnthropicServer;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "README.md": "# Demo\n" });
  writeFileSync(join(project.env.HOME as string, ".sylkrc"), JSON.stringify({ permissions: { allow: ["run_command(echo ok*)"] } }));
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

function toolResult(requestIndex: number): { content: string; is_error: boolean } | undefined {
  const messages = server.requests[requestIndex]?.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
  return messages.at(-1)?.content.find((block) => block.type === "tool_result") as never;
}

describe("sylk ask with an allow rule for a command", () => {
  it("runs the command the rule names, and refuses another command chained onto it", async () => {
    server.enqueue(
      reply().toolUse("run_command", { command: "echo ok" }, "toolu_allowed"),
      reply().toolUse("run_command", { command: "echo ok; touch pwned" }, "toolu_chained"),
      reply().text("The second command was refused."),
    );
    const run = await runCli(["ask", "--yes", "say ok"], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(toolResult(1)).toMatchObject({ is_error: false, content: expect.stringContaining("ok\n") });
    const refused = toolResult(2);
    expect(refused?.is_error).toBe(true);
    expect(refused?.content).toContain(
      "Permission denied: this run cannot ask the user (Run a command: echo ok; touch pwned (no allow rule covers `touch pwned`))",
    );
    expect(existsSync(join(project.root, "pwned"))).toBe(false);
  });
});
