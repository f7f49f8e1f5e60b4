import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * Everything under `$SYLK_HOME` is the user's alone: every project's code
 * and conversations, the user's knowledge for every project, the trust
 * store. The usual umask (022) must not leave any of it readable by others.
 */
let previousUmask: number;
beforeAll(() => {
  previousUmask = process.umask(0o022);
});
afterAll(() => {
  process.umask(previousUmask);
});

let server: FakeAnthropicServer;
let project: TempProject;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/app.ts": "export const answer = 42;\n" });
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

/** Every entry under a directory, with its permission bits (a symbolic link's own). */
function modesUnder(directory: string): Array<{ path: string; mode: string; type: "directory" | "file" | "other" }> {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    const stats = lstatSync(path);
    const entry = {
      path,
      mode: (stats.mode & 0o777).toString(8),
      type: stats.isDirectory() ? ("directory" as const) : stats.isFile() ? ("file" as const) : ("other" as const),
    };
    return stats.isDirectory() ? [entry, ...modesUnder(path)] : [entry];
  });
}

describe("$SYLK_HOME after an index and a session", () => {
  it("holds only owner-only files (databases, JSON, logs) and 0700 directories; an existing 0755 home is narrowed, and the user told once", async () => {
    mkdirSync(join(project.sylkHome, "agents"), { recursive: true, mode: 0o755 });
    chmodSync(project.sylkHome, 0o755);
    // The user's own rules: knowledge for every project (its database under $SYLK_HOME) and a model log there too.
    writeFileSync(
      join(project.root, "..", ".sylkrc"),
      JSON.stringify({ knowledge: { enabled: true }, permissions: { allow: ["save_knowledge(scope:user)"] } }),
    );
    const env = {
      ...project.env,
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: server.baseUrl,
      SYLK_MODEL_MAX_ATTEMPTS: "1",
      SYLK_LEARNING_ENABLED: "true",
      SYLK_MODEL_LOG: join(project.sylkHome, "logs", "model.jsonl"),
    };
    const index = await runCli(["index"], { cwd: project.root, env });
    expect(index.code, index.stderr).toBe(0);
    expect(index.stderr).toContain(`sylk: Made ${project.sylkHome} readable by you alone (it was 0755, now 0700)`);

    server.enqueue(
      reply().toolUse("save_knowledge", { kind: "preference", key: "commits", content: "Small commits.", scope: "user" }, "toolu_save"),
      reply().text("Kept."),
    );
    const ask = await runCli(["ask", "--yes", "remember: small commits, for all my projects"], { cwd: project.root, env });
    expect(ask.code, ask.stderr).toBe(0);
    expect(ask.stderr).not.toContain("readable by you alone");

    const entries = modesUnder(project.sylkHome);
    const names = entries.map((entry) => entry.path.slice(project.sylkHome.length + 1));
    expect(names).toEqual(
      expect.arrayContaining([
        "knowledge.db",
        "logs/model.jsonl",
        expect.stringMatching(/^projects\/[0-9a-f]{16}\/vector\.db$/),
        expect.stringMatching(/project\.json$/),
      ]),
    );
    // The user's own agents folder is theirs to share: Sylk narrows only what it made or keeps data in.
    expect(
      entries.filter(
        (entry) =>
          entry.path !== join(project.sylkHome, "agents") &&
          (entry.type === "directory" ? entry.mode !== "700" : (Number.parseInt(entry.mode, 8) & 0o077) !== 0),
      ),
    ).toEqual([]);
  });
});
