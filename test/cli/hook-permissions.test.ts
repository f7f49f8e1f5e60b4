import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeAnthropicServer, messageRequests, reply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * A PreToolUse hook's permissionDecision meets the permission policy: a hook
 * the user wrote may allow what the mode would ask (as an allow rule would),
 * never what a rule denies; any hook may ask; a project's hook, even in a
 * trusted folder, may not allow. `sylk ask` cannot ask, so every question is
 * a refusal the model reads.
 */
let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[]) => runCli(args, { cwd: project.root, env, timeoutMs: 60_000 });
const deciding = (decision: string) =>
  `cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}","permissionDecisionReason":"the team rule"}}'`;
const hooksDeciding = (decision: string) => ({
  PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: deciding(decision) }] }],
});
const userConfig = (config: object) => writeFileSync(join(dirname(project.root), ".sylkrc"), JSON.stringify(config));

/** The model runs `touch <marker>` once, then answers; returns the run and what the model read of the call. */
async function touchRun(marker: string, flags: string[] = []) {
  server.enqueue(reply().toolUse("run_command", { command: `touch ${marker}` }, "toolu_touch"), reply().text("Done."));
  const run = await sylk(["ask", "--yes", ...flags, `Create ${marker}.`]);
  const result = JSON.stringify(messageRequests(server).at(-1)?.body.messages.at(-1));
  return { run, result, ran: existsSync(join(project.root, marker)) };
}

describe("a PreToolUse hook's permissionDecision", () => {
  it("allow, from the user's own hook, runs what the default mode would have asked about", async () => {
    const without = await touchRun("before-marker");
    expect(without.ran).toBe(false);
    expect(without.result).toContain("cannot ask the user");
    userConfig({ hooks: hooksDeciding("allow") });
    const allowed = await touchRun("allowed-marker");
    expect(allowed.run.code, allowed.run.stderr).toBe(0);
    expect(allowed.ran).toBe(true);
  });

  it("allow never overrides a deny rule", async () => {
    userConfig({ hooks: hooksDeciding("allow"), permissions: { deny: ["run_command(touch*)"] } });
    const { ran, result } = await touchRun("denied-marker");
    expect(ran).toBe(false);
    expect(result).toContain("deny rule");
  });

  it("ask turns what the mode allows into a question, which a run that cannot ask refuses", async () => {
    userConfig({ hooks: hooksDeciding("ask") });
    const { ran, result } = await touchRun("asked-marker", ["--permission-mode", "bypass"]);
    expect(ran).toBe(false);
    expect(result).toContain("a PreToolUse hook asks: the team rule");
  });

  it("allow from a project's hook is not taken, even in a trusted folder, and the user is told", async () => {
    project.write(".sylkrc", JSON.stringify({ hooks: hooksDeciding("allow") }));
    const trust = await sylk(["trust"]);
    expect(trust.code, trust.stderr).toBe(0);
    const { run, ran, result } = await touchRun("project-marker");
    expect(ran).toBe(false);
    expect(result).toContain("cannot ask the user");
    expect(run.stderr).toContain("its allow was not taken: a project's hook may deny or ask, only a hook you wrote may allow");
  });
});
