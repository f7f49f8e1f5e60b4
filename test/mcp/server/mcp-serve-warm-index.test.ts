import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openInteractiveSession, type InteractiveSession } from "../../../src/app/interactive-session.js";
import { SYLK_BIN } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/** Beside an interactive sylk of the project, sylk mcp serve searches through the session's warm index, and on its own once it ends. */
let project: TempProject;
let session: InteractiveSession | undefined;
let client: Client | undefined;
let serverLog = "";

beforeEach(() => {
  project = createTempProject({
    "src/billing.ts": "export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
  });
});
afterEach(async () => {
  await client?.close();
  await session?.shutdown();
  session = undefined;
  project.cleanup();
});

async function served(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SYLK_BIN, "mcp", "serve"],
    cwd: project.root,
    env: { ...project.env, CI: "true" } as Record<string, string>,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    serverLog += chunk.toString();
  });
  const connected = new Client({ name: "sylk-test", version: "1.0.0" });
  await connected.connect(transport);
  return connected;
}

const searchText = async (query: string) =>
  ((await (client as Client).callTool({ name: "search_codebase", arguments: { query } })).content as Array<{ text: string }>)[0]?.text ??
  "";

describe("sylk mcp serve beside an interactive session", () => {
  it("answers search_codebase from the session's warm index, then from its own index once the session ends", async () => {
    session = openInteractiveSession({ root: project.root, env: project.env });
    session.services.consent.recordIndexConsent(true, "test");
    session.indexing.start();
    await session.indexing.catchUp();
    await session.serveWarmIndex();
    const warm = vi.spyOn(session.services.codeSearcher, "search");
    client = await served();
    expect(await searchText("computeInvoiceTotal")).toContain("src/billing.ts:1-3 (computeInvoiceTotal)");
    expect(warm).toHaveBeenCalledWith("computeInvoiceTotal", expect.objectContaining({ limit: 8 }));
    expect(serverLog).toContain("warm index");

    await session.shutdown();
    session = undefined;
    // The session is gone: this search falls back to the server's own index, which it now keeps fresh itself.
    expect(await searchText("computeInvoiceTotal")).toContain("src/billing.ts:1-3 (computeInvoiceTotal)");
    project.write("src/refund.ts", "export function issueRefundVoucher(): string {\n  return 'v';\n}\n");
    const deadline = Date.now() + 30_000;
    let found = "";
    while (!found.includes("src/refund.ts") && Date.now() < deadline) {
      found = await searchText("issueRefundVoucher");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(found, serverLog).toContain("src/refund.ts:1-3 (issueRefundVoucher)");
  }, 90_000);
});
