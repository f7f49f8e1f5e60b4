import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { startCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * `sylk ask` killed outright while its observer's model call is under way:
 * the observations made before it are stored whole, and the store is
 * consistent (each note is one transaction, written once it is complete).
 */
let project: TempProject;
let server: FakeAnthropicServer;

const FILES = Object.fromEntries(
  Array.from({ length: 6 }, (_, index) => [
    `src/part-${index}.ts`,
    Array.from({ length: 80 }, (_, line) => `export const value${index}_${line} = computeTheValueFor(${index}, ${line});\n`).join(""),
  ]),
);

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject(FILES);
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const isObserver = (body: { messages?: unknown }): boolean =>
  JSON.stringify(body.messages ?? "").includes("Write a compressed observation");

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe("sylk ask killed mid-observation", () => {
  it("keeps the observation made during the run, whole, and leaves the store consistent", async () => {
    const run = [
      ...Array.from({ length: 3 }, (_, call) => reply().toolUse("read_file", { path: `src/part-${call * 2}.ts` })),
      reply().text("Each part exports eighty computed values."),
    ];
    let observerCalls = 0;
    for (let slot = 0; slot < 12; slot++) {
      server.enqueue((body) => {
        if (!isObserver(body)) return run.shift() ?? reply().text("Done.");
        return observerCalls++ === 0 ? reply().text("- The agent read src/part-0.ts and src/part-2.ts.") : reply().hang();
      });
    }
    const env = {
      ...project.env,
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: server.baseUrl,
      SYLK_MODEL_MAX_ATTEMPTS: "1",
      SYLK_CONTEXT_PREFETCH: "false",
      SYLK_OBSERVATIONAL_MEMORY_ENABLED: "true",
    };
    const cli = startCli(["ask", "--yes", "Read the parts under src/ and tell me what they export."], { cwd: project.root, env });
    const exited = new Promise<void>((resolve) => cli.on("exit", () => resolve()));
    cli.stdin?.end();
    const hanging = () => messageRequests(server).filter((request) => isObserver(request.body)).length >= 2;
    let stderr = "";
    cli.stderr?.on("data", (chunk) => (stderr += String(chunk)));
    let ended = false;
    void exited.then(() => (ended = true));
    expect(await waitFor(() => hanging() || ended, 40_000)).toBe(true);
    expect(ended, stderr).toBe(false);
    cli.kill("SIGKILL");
    await exited;

    const database = new Database(resolveProjectPaths(project.root, project.env).database, { readonly: true });
    try {
      expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
      const notes = database.prepare("SELECT content FROM content_entries WHERE content_type IN ('observation', 'reflection')").all();
      expect(notes).toEqual([{ content: "- The agent read src/part-0.ts and src/part-2.ts." }]);
    } finally {
      database.close();
    }
  }, 60_000);
});
