import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WarmIndexClient } from "../../src/app/warm-index/warm-index-client.js";
import { WarmIndexServer, type WarmIndexHandlers } from "../../src/app/warm-index/warm-index-server.js";

let directory: string;
let socketPath: string;
const servers: WarmIndexServer[] = [];
const clients: WarmIndexClient[] = [];
const ROOT = "/projects/demo";

const handlers: WarmIndexHandlers = {
  codeSearch: async (params) => ({ hits: [], degraded: [`searched ${params.query}`] }),
  catchUp: async () => "fresh",
};

async function serve(root = ROOT, custom = handlers) {
  const server = await WarmIndexServer.start({ socketPath, root, handlers: custom });
  if (server) servers.push(server);
  return server;
}

async function connect(root = ROOT) {
  const client = await WarmIndexClient.connect(socketPath, root);
  if (client) clients.push(client);
  return client;
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-warm-"));
  socketPath = join(directory, "warm-index.sock");
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  rmSync(directory, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("the warm-index socket", () => {
  it("answers searches for its project, on a socket only the user can open", async () => {
    expect(await serve()).toBeDefined();
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    const client = await connect();
    expect(await client?.codeSearch({ query: "alpha", limit: 5 }, 1_000)).toEqual({ hits: [], degraded: ["searched alpha"] });
    expect(await client?.catchUp(1_000)).toBe("fresh");
  });

  it("is not used for another project, and not at all when nobody serves", async () => {
    expect(await connect()).toBeUndefined();
    await serve("/projects/other");
    expect(await connect()).toBeUndefined();
  });

  it("is served by one process at a time; a socket left by a killed one is replaced", async () => {
    expect(await serve()).toBeDefined();
    expect(await serve()).toBeUndefined();
    await Promise.all(servers.splice(0).map((server) => server.close()));
    expect(existsSync(socketPath)).toBe(false);

    // A process that listened and was killed leaves its socket file behind.
    const script = `require("net").createServer().listen(${JSON.stringify(socketPath)}, () => process.stdout.write("up"))`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(existsSync(socketPath)).toBe(true);
    expect(await connect()).toBeUndefined();
    expect(await serve()).toBeDefined();
    expect(await (await connect())?.codeSearch({ query: "beta" }, 1_000)).toMatchObject({ degraded: ["searched beta"] });
  });

  it("reports a failed search as an error, and a vanished server to what waits on it", async () => {
    let release: () => void = () => undefined;
    await serve(ROOT, {
      codeSearch: async (params) => {
        if (params.query === "boom") throw new Error("the index is closed");
        await new Promise<void>((resolve) => (release = resolve));
        return { hits: [], degraded: [] };
      },
      catchUp: handlers.catchUp,
    });
    const client = await connect();
    await expect(client!.codeSearch({ query: "boom" }, 1_000)).rejects.toThrow("the index is closed");
    const waiting = client!.codeSearch({ query: "slow" }, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await expect(waiting).rejects.toThrow(/went away/);
    release();
  });

  it("times out a server that does not answer, so the caller can do the work itself", async () => {
    await serve(ROOT, { codeSearch: () => new Promise(() => undefined), catchUp: handlers.catchUp });
    const client = await connect();
    await expect(client!.codeSearch({ query: "hang" }, 100)).rejects.toThrow(/did not answer within 100 ms/);
  });

  it("ignores a socket that speaks something else", async () => {
    const stranger = createServer((socket) => socket.resume().end("HTTP/1.1 400 Bad Request\r\n\r\n"));
    await new Promise<void>((resolve) => stranger.listen(socketPath, resolve));
    try {
      expect(await connect()).toBeUndefined();
    } finally {
      await new Promise((resolve) => stranger.close(resolve));
    }
  });

  it("gets no socket where the path would be too long for one", async () => {
    socketPath = join(directory, "x".repeat(120), "warm-index.sock");
    expect(await serve()).toBeUndefined();
    writeFileSync(join(directory, "unused"), "");
    expect(await connect()).toBeUndefined();
  });

  describe("a server that does not speak the protocol once connected", () => {
    /** Answers hello as a real server would, and every other request with `answer`. */
    async function impostor(answer: (socket: Socket, id: number) => void) {
      const stranger = createServer((socket) => {
        socket.on("error", () => undefined);
        let rest = "";
        socket.on("data", (chunk: Buffer) => {
          const lines = (rest + chunk.toString("utf8")).split("\n");
          rest = lines.pop() ?? "";
          for (const line of lines) {
            const { id, method } = JSON.parse(line) as { id: number; method: string };
            if (method === "hello") socket.write(`${JSON.stringify({ id, result: { version: 1, root: ROOT, pid: 1 } })}\n`);
            else answer(socket, id);
          }
        });
      });
      await new Promise<void>((resolve) => stranger.listen(socketPath, resolve));
      return stranger;
    }

    /** How the client's search ends, and how long it took (its timeout is 5 s). */
    async function searchAgainst(answer: (socket: Socket, id: number) => void) {
      const stranger = await impostor(answer);
      try {
        const client = await connect();
        expect(client).toBeDefined();
        const started = Date.now();
        const error = await client!.codeSearch({ query: "alpha" }, 5_000).then(
          () => undefined,
          (reason: Error) => reason,
        );
        return { error, ms: Date.now() - started };
      } finally {
        stranger.close();
      }
    }

    it("answering with a line that is not JSON is dropped at once, failing the search for the caller to do it itself", async () => {
      const { error, ms } = await searchAgainst((socket) => socket.write("HTTP/1.1 200 OK\n"));
      expect(error?.message).toBe("the interactive session answered with a line that is not JSON");
      expect(ms).toBeLessThan(2_000);
    });

    it("answering with a search result of another shape is dropped at once", async () => {
      const { error, ms } = await searchAgainst((socket, id) =>
        socket.write(`${JSON.stringify({ id, result: { hits: [{ path: 42 }], degraded: [] } })}\n`),
      );
      expect(error?.message).toBe("the interactive session answered a search with something else");
      expect(ms).toBeLessThan(2_000);
    });

    it("answering with an endless line is cut off past the bound, not kept whole", async () => {
      const megabyte = Buffer.alloc(1 << 20, "y");
      let written = 0;
      const { error } = await searchAgainst((socket) => {
        const more = () => {
          while (!socket.destroyed && written < 512 * megabyte.length) {
            written += megabyte.length;
            if (!socket.write(megabyte)) return void socket.once("drain", more);
          }
        };
        more();
      });
      expect(error?.message).toBe(`the interactive session answered with a line longer than ${32 * 1024 * 1024} bytes`);
      expect(written).toBeLessThan(64 * megabyte.length);
    });
  });
});
