import { createServer, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openInteractiveSession, type InteractiveSession } from "../../src/app/interactive-session.js";
import { warmIndexSocketPath } from "../../src/app/warm-index/protocol.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** While an interactive sylk runs, sylk ask uses its warm index through the socket, and does without it when there is none. */
let project: TempProject;
let server: FakeAnthropicServer;
let session: InteractiveSession | undefined;
beforeEach(async () => {
  project = createTempProject({
    "src/billing.ts": "export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
  });
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await session?.shutdown();
  session = undefined;
  await server.close();
  project.cleanup();
});

async function interactive(): Promise<InteractiveSession> {
  const opened = openInteractiveSession({ root: project.root, env: project.env });
  opened.services.consent.recordIndexConsent(true, "test");
  opened.indexing.start();
  await opened.indexing.catchUp();
  await opened.serveWarmIndex();
  return opened;
}

const ask = (prompt: string) =>
  runCli(["ask", "--yes", "--output-format", "stream-json", prompt], {
    cwd: project.root,
    env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_CONTEXT_PREFETCH: "false" },
  });

const searchResult = (stdout: string) =>
  String(jsonLines(stdout).find((event) => event.type === "tool_result" && event.name === "search_codebase")?.output ?? "");

describe("sylk search beside an interactive session", () => {
  it("is answered from the session's warm index, with what a search of its own would find", async () => {
    session = await interactive();
    const served = vi.spyOn(session.services.codeSearcher, "search");
    const run = await runCli(["search", "--json", "computeInvoiceTotal"], { cwd: project.root, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(served).toHaveBeenCalledWith("computeInvoiceTotal", expect.objectContaining({ limit: 10 }));
    const warm = JSON.parse(run.stdout) as { results: Array<{ path: string; startLine: number }> };
    expect(warm.results[0]).toMatchObject({ path: "src/billing.ts", startLine: 1 });

    await session.shutdown();
    session = undefined;
    const alone = JSON.parse(
      (await runCli(["search", "--json", "computeInvoiceTotal"], { cwd: project.root, env: project.env })).stdout,
    ) as typeof warm;
    expect(alone.results.map((result) => [result.path, result.startLine])).toEqual(
      warm.results.map((result) => [result.path, result.startLine]),
    );
  });
});

describe("sylk search beside a socket that does not answer as a session would", () => {
  /** Listens on the project's socket, answers hello as a session would and searches with `answer`. */
  async function impostor(answer: (socket: Socket) => void) {
    const paths = resolveProjectPaths(project.root, project.env);
    const stranger = createServer((socket) => {
      socket.on("error", () => undefined);
      socket.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
          const { id, method } = JSON.parse(line) as { id: number; method: string };
          if (method === "hello") socket.write(`${JSON.stringify({ id, result: { version: 1, root: paths.root, pid: 1 } })}\n`);
          else answer(socket);
        }
      });
    });
    await new Promise<void>((resolve) => stranger.listen(warmIndexSocketPath(paths), resolve));
    return stranger;
  }

  it.each([
    ["garbage", (socket: Socket) => socket.write("\u0000\u0001 not a response\n")],
    [
      "an endless line",
      (socket: Socket) => {
        const megabyte = Buffer.alloc(1 << 20, "z");
        const more = () => {
          while (!socket.destroyed) if (!socket.write(megabyte)) return void socket.once("drain", more);
        };
        more();
      },
    ],
  ])(
    "searches its own index when the socket answers %s",
    async (_, answer) => {
      expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
      const stranger = await impostor(answer);
      try {
        const run = await runCli(["search", "--json", "computeInvoiceTotal"], { cwd: project.root, env: project.env });
        expect(run.code, run.stderr).toBe(0);
        expect((JSON.parse(run.stdout) as { results: Array<{ path: string }> }).results[0]?.path).toBe("src/billing.ts");
      } finally {
        stranger.close();
      }
    },
    60_000,
  );
});

describe("sylk ask beside an interactive session", () => {
  it("searches the session's warm index, brought up to date first", async () => {
    session = await interactive();
    const served = vi.spyOn(session.services.codeSearcher, "search");
    // Written after the session indexed: the catch-up must take it in before the search.
    project.write("src/refunds.ts", "export function issueRefundVoucher(amount: number) {\n  return { amount };\n}\n");
    server.enqueue(reply().toolUse("search_codebase", { query: "issueRefundVoucher" }), reply().text("Found it."));
    const run = await ask("where are refunds issued?");
    expect(run.code, run.stderr).toBe(0);
    expect(served).toHaveBeenCalledWith("issueRefundVoucher", expect.objectContaining({ limit: 8 }));
    expect(searchResult(run.stdout)).toContain("src/refunds.ts");
  });

  it("searches its own index when no session serves one, or the session has ended", async () => {
    server.enqueue(reply().toolUse("search_codebase", { query: "computeInvoiceTotal" }), reply().text("Found it."));
    const alone = await ask("where are invoices totalled?");
    expect(alone.code, alone.stderr).toBe(0);
    expect(searchResult(alone.stdout)).toContain("src/billing.ts");

    session = await interactive();
    await session.shutdown();
    session = undefined;
    server.enqueue(reply().toolUse("search_codebase", { query: "computeInvoiceTotal" }), reply().text("Found it again."));
    const after = await ask("where are invoices totalled?");
    expect(after.code, after.stderr).toBe(0);
    expect(searchResult(after.stdout)).toContain("src/billing.ts");
  });
});
