import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { startCli } from "../helpers/run-cli.js";
import { processGroupMembers } from "../helpers/process-state.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * `sylk ask --no-sandbox` ended by a signal while a command runs: the
 * command's process group ends with it. (A sandboxed command dies with its
 * bubblewrap anyway; an unsandboxed one runs in a group of its own, which
 * would otherwise outlive Sylk.)
 */
let project: TempProject;
let server: FakeAnthropicServer;
/** The command's process group, once known: a failed test must not leave its sleeper behind. */
let started: number | undefined;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
  started = undefined;
});
afterEach(async () => {
  if (started !== undefined && processGroupMembers(started).length > 0) process.kill(-started, "SIGKILL");
  await server.close();
  project.cleanup();
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe.skipIf(process.platform !== "linux")("sylk ended by a signal while a command runs", () => {
  for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
    it(`${signal} ends the command's process group too`, async () => {
      server.enqueue(reply().toolUse("run_command", { command: "echo $$ > sleeper.pid; sleep 600" }), reply().text("Slept."));
      const env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
      const cli = startCli(["ask", "--yes", "--no-sandbox", "--permission-mode", "bypass", "sleep"], { cwd: project.root, env });
      const exited = new Promise<void>((resolve) => cli.on("exit", () => resolve()));
      cli.stdin?.end();
      const marker = join(project.root, "sleeper.pid");
      expect(await waitFor(() => existsSync(marker) && readFileSync(marker, "utf8").trim() !== "", 60_000)).toBe(true);
      const group = Number(readFileSync(marker, "utf8").trim());
      started = group;
      expect(processGroupMembers(group).length).toBeGreaterThan(0);

      cli.kill(signal);
      await exited;
      expect(
        await waitFor(() => processGroupMembers(group).length === 0, 5_000),
        `${signal}: still running: ${processGroupMembers(group).join(", ")}`,
      ).toBe(true);
    });
  }
});
