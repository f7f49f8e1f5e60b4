import type { Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openInteractiveSession, type InteractiveSession } from "../../src/app/interactive-session.js";
import { warmIndexSocketPath } from "../../src/app/warm-index/protocol.js";
import { WarmIndexClient } from "../../src/app/warm-index/warm-index-client.js";
import { MAX_REQUEST_BYTES } from "../../src/app/warm-index/warm-index-connection.js";
import { connectTo, requestAndLeave, sendEndlessLine } from "../helpers/hostile-socket-clients.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/**
 * The interactive session's warm-index socket can be opened by any process
 * of the user's, a sandboxed command's included: no client may end the
 * session or grow it without bound, and a well-behaved client is answered
 * after any of them.
 */
let project: TempProject;
let session: InteractiveSession;
let socketPath: string;
const sockets: Socket[] = [];

beforeEach(async () => {
  project = createTempProject({
    "src/billing.ts": "export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
  });
  session = openInteractiveSession({ root: project.root, env: project.env });
  session.services.consent.recordIndexConsent(true, "test");
  session.indexing.start();
  await session.indexing.catchUp();
  await session.serveWarmIndex();
  socketPath = warmIndexSocketPath(session.services.paths);
}, 60_000);
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await session.shutdown();
  project.cleanup();
});

async function connected(): Promise<Socket> {
  const socket = await connectTo(socketPath);
  sockets.push(socket);
  return socket;
}

const request = (id: number, body: Record<string, unknown>) => `${JSON.stringify({ id, ...body })}\n`;

/** A client that does everything right: its search is answered from the session's index. */
async function expectWellBehavedClientAnswered(): Promise<void> {
  const client = await WarmIndexClient.connect(socketPath, session.services.paths.root);
  expect(client).toBeDefined();
  try {
    const outcome = await client!.codeSearch({ query: "computeInvoiceTotal" }, 5_000);
    expect(outcome.hits[0]?.path).toBe("src/billing.ts");
  } finally {
    client!.close();
  }
}

/** Lines a raw client receives, as they come. */
function linesOf(socket: Socket): { next(): Promise<string> } {
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let rest = "";
  socket.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString("utf8")).split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) (waiting.shift() ?? ((value: string) => lines.push(value)))(line);
  });
  return { next: () => new Promise((resolve) => (lines.length > 0 ? resolve(lines.shift() as string) : waiting.push(resolve))) };
}

describe.skipIf(process.platform === "win32")("the warm-index socket against hostile clients", () => {
  it("a client that sends requests and leaves at once, its answers unread (ECONNRESET, EPIPE), ends its own connection only", async () => {
    await requestAndLeave(socketPath, request(1, { method: "hello", version: 1 }));
    await requestAndLeave(socketPath, request(2, { method: "codeSearch", params: { query: "computeInvoiceTotal" } }), 2);
    await expectWellBehavedClientAnswered();
  });

  it("a line far over the bound is cut off while it is read: the client is told and disconnected after at most a few buffers of it", async () => {
    const { written, closed, answer } = await sendEndlessLine(socketPath);
    expect(closed).toBe(true);
    // The bound, plus what the kernel and the two streams buffer on the way.
    expect(written).toBeLessThanOrEqual(MAX_REQUEST_BYTES + (8 << 20));
    expect(JSON.parse(answer ?? "null")).toEqual({
      id: -1,
      error: `request line longer than ${MAX_REQUEST_BYTES} bytes; closing the connection`,
    });
    await expectWellBehavedClientAnswered();
  });

  it("a request that is not JSON, or not a request, is answered with an error, and the connection goes on", async () => {
    const socket = await connected();
    const received = linesOf(socket);
    socket.write("not json at all\n");
    expect(JSON.parse(await received.next())).toMatchObject({ id: -1, error: expect.stringMatching(/^bad request: /) });
    socket.write(request(7, { method: "dropEverything" }));
    expect(JSON.parse(await received.next())).toMatchObject({ id: 7, error: expect.stringMatching(/^bad request: /) });
    socket.write(request(8, { method: "codeSearch", params: { query: "x".repeat(10_001) } }));
    expect(JSON.parse(await received.next())).toMatchObject({ id: 8, error: expect.stringMatching(/^bad request: /) });
    socket.write(request(9, { method: "hello", version: 1 }));
    expect(JSON.parse(await received.next())).toMatchObject({ id: 9, result: { version: 1, root: session.services.paths.root } });
    await expectWellBehavedClientAnswered();
  });
});
