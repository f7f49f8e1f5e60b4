import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** "Secrets are never indexed or sent": one pasted into a prompt included. */
let server: FakeAnthropicServer;
let project: TempProject;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

describe("a secret in a prompt", () => {
  it("is masked before the model sees it and before it is stored, and the user is told", async () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    server.enqueue(reply().text("I will not need the token."));
    const env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
    const run = await runCli(["ask", "--yes", `push with this token ${token} please`], { cwd: project.root, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/held a secret \(.+\): masked before it was sent or stored/);
    const sent = JSON.stringify(messageRequests(server).map((request) => request.body));
    expect(sent).not.toContain(token);
    expect(sent).toContain("push with this token");
    // Nowhere in what Sylk keeps for the project either: the database and its WAL, the prompt history, the logs.
    const { dataDir, database } = resolveProjectPaths(project.root, env);
    const kept = readdirSync(dataDir)
      .map((name) => join(dataDir, name))
      .filter((path) => statSync(path).isFile());
    expect(kept).toContain(database);
    for (const path of kept) expect(readFileSync(path).toString("latin1"), path).not.toContain(token);
  });
});
