import { existsSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { warmIndexSocketPath } from "../../src/app/warm-index/protocol.js";
import { WarmIndexClient } from "../../src/app/warm-index/warm-index-client.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { connectTo, requestAndLeave, sendEndlessLine } from "../helpers/hostile-socket-clients.js";
import { runCli } from "../helpers/run-cli.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

/** The interactive session in a real terminal outlives whatever connects to its warm-index socket. */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping the warm-index socket in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
let project: TempProject;
beforeEach(() => {
  project = fixture.project({
    "src/billing.ts": "export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
  });
});

describe.skipIf(unavailable !== undefined)("the warm-index socket, in a real terminal", () => {
  it("clients that reset, send an endless line or garbage leave the session running and serving", async () => {
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    const terminal = fixture.start([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
    const paths = resolveProjectPaths(project.root, project.env);
    const socketPath = warmIndexSocketPath(paths);
    await terminal.waitFor(/index: fresh|Index is fresh/, 60_000);
    expect(existsSync(socketPath)).toBe(true);

    await requestAndLeave(socketPath, `${JSON.stringify({ id: 1, method: "hello", version: 1 })}\n`);
    const endless = await sendEndlessLine(socketPath);
    expect(endless.closed).toBe(true);
    const garbage = await connectTo(socketPath);
    garbage.end("\u0000\u0001{not json\n");
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(terminal.exitStatus()).toBeUndefined();
    const client = await WarmIndexClient.connect(socketPath, paths.root);
    expect(client).toBeDefined();
    try {
      expect((await client!.codeSearch({ query: "computeInvoiceTotal" }, 5_000)).hits[0]?.path).toBe("src/billing.ts");
    } finally {
      client!.close();
    }
    terminal.send("/search computeInvoiceTotal", { literal: true });
    terminal.send("Enter");
    await terminal.waitFor("src/billing.ts:1-3");
    expect(terminal.exitStatus()).toBeUndefined();
  }, 120_000);
});
