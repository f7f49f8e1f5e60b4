import { chmodSync, existsSync, rmSync, statSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { CodeSearchHit } from "../../search/hybrid-code-searcher.js";
import type { SearchOutcome } from "../../search/search-outcome.js";
import { MAX_SOCKET_PATH, PROTOCOL_VERSION, type CodeSearchParams, type HelloResult, type WarmResponse } from "./protocol.js";
import { requestSchema, type WarmRequest } from "./request-schema.js";
import { WarmIndexConnection } from "./warm-index-connection.js";
import { errorMessage } from "../../errors.js";

/** What the serving process does for its neighbours. */
export interface WarmIndexHandlers {
  codeSearch(params: CodeSearchParams): Promise<SearchOutcome<CodeSearchHit>>;
  /** Resolves once the index has caught up with the files on disk, with the index's state then. */
  catchUp(): Promise<string>;
}

export interface WarmIndexServerOptions {
  socketPath: string;
  root: string;
  handlers: WarmIndexHandlers;
}

/**
 * Serves the warm index on a Unix socket. At most one process serves a
 * project: a second interactive session finds the socket answered and does
 * not serve; a socket left by a killed process (nobody answers) is replaced.
 */
export class WarmIndexServer {
  private readonly connections = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly socketPath: string,
    private readonly inode: number,
  ) {}

  /** Serves, or returns undefined when another process already does, or the path cannot be a socket. */
  static async start(options: WarmIndexServerOptions): Promise<WarmIndexServer | undefined> {
    const { socketPath } = options;
    if (process.platform === "win32" || socketPath.length > MAX_SOCKET_PATH) return undefined;
    if (existsSync(socketPath)) {
      if (await answers(socketPath)) return undefined;
      rmSync(socketPath, { force: true });
    }
    const server = createServer((socket) => instance?.serve(socket, options));
    let instance: WarmIndexServer | undefined;
    // The socket is created 0600 (no moment where another user could connect), and set so again after.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socketPath, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch {
      return undefined; // another process won the race, or the directory is gone: nothing to serve
    } finally {
      process.umask(umask);
    }
    chmodSync(socketPath, 0o600);
    instance = new WarmIndexServer(server, socketPath, statSync(socketPath).ino);
    return instance;
  }

  /** A client's failures end its connection only (see `WarmIndexConnection`). */
  private serve(socket: Socket, options: WarmIndexServerOptions): void {
    this.connections.add(socket);
    socket.on("close", () => this.connections.delete(socket));
    new WarmIndexConnection(socket, (line) => this.answer(line, options));
  }

  /** The response to one request line; never throws: a malformed request is answered with an error. */
  private async answer(line: string, options: WarmIndexServerOptions): Promise<WarmResponse> {
    let parsed: unknown;
    let request: WarmRequest;
    try {
      parsed = JSON.parse(line);
      request = requestSchema.parse(parsed);
    } catch (error) {
      return { id: requestId(parsed), error: `bad request: ${errorMessage(error)}` };
    }
    try {
      switch (request.method) {
        case "hello": {
          const result: HelloResult = { version: PROTOCOL_VERSION, root: options.root, pid: process.pid };
          return { id: request.id, result };
        }
        case "codeSearch":
          return { id: request.id, result: await options.handlers.codeSearch(request.params) };
        case "catchUp":
          return { id: request.id, result: await options.handlers.catchUp() };
      }
    } catch (error) {
      return { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Stops serving and removes the socket, unless another process has replaced it since. */
  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    try {
      if (statSync(this.socketPath).ino === this.inode) rmSync(this.socketPath, { force: true });
    } catch {
      // already gone
    }
  }
}

/** The id of a request that did not validate, when it has a usable one: its client can then tell which request failed. */
function requestId(parsed: unknown): number {
  const id = typeof parsed === "object" && parsed !== null ? (parsed as { id?: unknown }).id : undefined;
  return typeof id === "number" && Number.isInteger(id) ? id : -1;
}

/** Whether a live process listens on the socket. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(socketPath);
    const done = (alive: boolean) => {
      probe.destroy();
      resolve(alive);
    };
    probe.once("connect", () => done(true));
    probe.once("error", () => done(false));
    probe.setTimeout(1_000, () => done(false));
  });
}
