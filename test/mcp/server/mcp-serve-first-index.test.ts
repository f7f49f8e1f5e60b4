import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { IndexLock } from "../../../src/project/index-lock.js";
import { resolveProjectPaths } from "../../../src/project/project-paths.js";
import { SYLK_BIN } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { manyFiles } from "../../tui/indexing-fixtures.js";

let project: TempProject | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  project?.cleanup();
  project = undefined;
});

/** The command line of a running process, or undefined once it is gone. */
function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return undefined;
  }
}

describe("sylk mcp serve on a project with no index yet", () => {
  it("hands a large first index to a sylk index process of its own, and serves what it indexed", async () => {
    project = createTempProject(manyFiles(1_100));
    const paths = resolveProjectPaths(project.root, project.env);
    const lock = new IndexLock(paths.indexLock, paths.root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SYLK_BIN, "mcp", "serve", "--yes"],
      cwd: project.root,
      env: { ...project.env, CI: "true", NO_COLOR: "1" } as Record<string, string>,
      stderr: "pipe",
    });
    let serverLog = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      serverLog += chunk.toString();
    });
    client = new Client({ name: "sylk-test", version: "1.0.0" });
    await client.connect(transport);

    // The first index is indexed by a `sylk index --for-session` process, which holds the index lock while it runs.
    const holders = new Set<string>();
    let found = "";
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const pid = lock.holder()?.pid;
      const commandLine = pid === undefined ? undefined : commandLineOf(pid);
      if (commandLine !== undefined) holders.add(commandLine);
      const result = await client.callTool({ name: "search_codebase", arguments: { query: "handler1099" } });
      found = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
      if (found.includes("src/module-1099.ts")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(found, serverLog).toContain("src/module-1099.ts");
    expect(
      [...holders].some((line) => line.includes(`${SYLK_BIN} index --for-session`)),
      [...holders].join("\n"),
    ).toBe(true);
  }, 90_000);
});
