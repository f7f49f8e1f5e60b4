import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/early.ts": "export const earlyMarker = 0;\n" });
  env = {
    ...project.env,
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_RETRY_BASE_DELAY_MS: "5",
    SYLK_MODEL_RETRY_MAX_DELAY_MS: "20",
  };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

/** Waits, blocking this process (the CLI runs in its own), until the project's index holds `path`; whether it did within `timeoutMs`. */
function waitUntilIndexed(services: ProjectServices, path: string, timeoutMs: number): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (services.files.manifestUnder("src").some((entry) => entry.path === path && entry.status === "indexed")) return true;
    Atomics.wait(pause, 0, 0, 50);
  }
  return false;
}

describe("sylk ask watches the project as the interactive session does", () => {
  it("indexes a file the agent wrote while the run goes on, and grep finds it", async () => {
    let indexedDuringRun: boolean | undefined;
    server.enqueue(
      reply().toolUse("write_file", { path: "src/late.ts", content: "export const lateMarker = 1;\n" }, "toolu_write"),
      () => {
        // Asked once the file is written: the run's watcher reports it and its background indexing takes it in.
        const services = openProject({ root: project.root, env });
        try {
          indexedDuringRun = waitUntilIndexed(services, "src/late.ts", 15_000);
        } finally {
          void services.close();
        }
        return reply().toolUse("grep", { pattern: "lateMarker|earlyMarker" }, "toolu_grep");
      },
      reply().text("Done."),
    );
    const run = await runCli(["ask", "--yes", "--permission-mode", "accept-edits", "Add a late marker"], { cwd: project.root, env });
    expect(run.code, run.stderr).toBe(0);
    expect(indexedDuringRun).toBe(true);
    const messages = server.requests[2]?.body.messages as Array<{ content: Array<{ type: string; content?: string }> }>;
    const grepResult = messages.at(-1)?.content.find((block) => block.type === "tool_result")?.content;
    expect(grepResult).toBe("src/early.ts:1: export const earlyMarker = 0;\nsrc/late.ts:1: export const lateMarker = 1;");
  });
});
