import { existsSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import type { CodeSearchHit, CodeSearchOptions } from "../../search/hybrid-code-searcher.js";
import type { SearchOutcome } from "../../search/search-outcome.js";
import { BoundedLineReader } from "./line-reader.js";
import { isCodeSearchOutcome } from "./response-shape.js";
import { MAX_SOCKET_PATH, PROTOCOL_VERSION, warmIndexSocketPath, type CodeSearchParams, type HelloResult } from "./protocol.js";

/** How long a connection may take before the command loads the index itself. */
const CONNECT_TIMEOUT_MS = 1_000;
/** How long one search may wait for the interactive session before the command searches itself. */
const SEARCH_TIMEOUT_MS = 5_000;
/**
 * Longest response line accepted. A search's hits carry their chunks' text:
 * a thousand hits of 45-line chunks is a few megabytes; past this, the
 * answer is not one a search gives, and the command searches itself.
 */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A connection to the interactive `sylk` serving this project's warm index.
 * `connect` answers undefined whenever there is none to use (no socket, a
 * dead one, another project's, another protocol version): the caller then
 * loads the index itself, as if no session were running. A server that
 * answers what is not a response (a line that is not JSON, one past
 * `MAX_RESPONSE_BYTES`, a search result without hits) is dropped at once,
 * with what waits on it failed, so the caller falls back the same way.
 */
export class WarmIndexClient {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    const lines = new BoundedLineReader(MAX_RESPONSE_BYTES, {
      onLine: (line) => this.receive(line),
      onOverflow: () => this.drop(`a line longer than ${MAX_RESPONSE_BYTES} bytes`),
    });
    socket.on("data", (chunk: Buffer) => lines.push(chunk));
    socket.on("close", () => this.failAll(new Error("the interactive session serving the index went away")));
    socket.on("error", () => undefined); // "close" follows and fails what is pending
  }

  /** The client of the session serving this project, if one does. */
  static forProject(paths: { dataDir: string; root: string }): Promise<WarmIndexClient | undefined> {
    return WarmIndexClient.connect(warmIndexSocketPath(paths), paths.root);
  }

  static async connect(socketPath: string, root: string): Promise<WarmIndexClient | undefined> {
    if (process.platform === "win32" || socketPath.length > MAX_SOCKET_PATH || !existsSync(socketPath)) return undefined;
    const socket = await new Promise<Socket | undefined>((resolve) => {
      const attempt = createConnection(socketPath);
      const timer = setTimeout(() => {
        attempt.destroy();
        resolve(undefined);
      }, CONNECT_TIMEOUT_MS);
      attempt.once("connect", () => {
        clearTimeout(timer);
        resolve(attempt);
      });
      attempt.once("error", () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    if (!socket) return undefined;
    const client = new WarmIndexClient(socket);
    try {
      const hello = (await client.request({ method: "hello", version: PROTOCOL_VERSION }, CONNECT_TIMEOUT_MS)) as HelloResult;
      if (hello.version === PROTOCOL_VERSION && hello.root === root) return client;
    } catch {
      // not a server we can use
    }
    client.close();
    return undefined;
  }

  /** A code search as `HybridCodeSearcher.search` takes it, within the usual wait: the client stands in for a searcher. */
  search(query: string, options: CodeSearchOptions = {}): Promise<SearchOutcome<CodeSearchHit>> {
    const { signals, ...rest } = options;
    return this.codeSearch({ query, ...rest, ...(signals ? { signals: [...signals] } : {}) }, SEARCH_TIMEOUT_MS);
  }

  async codeSearch(params: CodeSearchParams, timeoutMs: number): Promise<SearchOutcome<CodeSearchHit>> {
    const result = await this.request({ method: "codeSearch", params }, timeoutMs);
    if (!isCodeSearchOutcome(result)) {
      this.drop("a search result without its hits");
      throw new Error("the interactive session answered a search with something else");
    }
    return result;
  }

  /** Asks the session to bring the index up to date; resolves with its state then (`fresh` when it is). */
  catchUp(timeoutMs: number): Promise<string> {
    return this.request({ method: "catchUp" }, timeoutMs) as Promise<string>;
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private request(body: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("the warm-index connection is closed"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the interactive session did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  private receive(line: string): void {
    let response: { id?: unknown; result?: unknown; error?: unknown };
    try {
      response = JSON.parse(line) as typeof response;
    } catch {
      return this.drop("a line that is not JSON");
    }
    if (typeof response !== "object" || response === null) return this.drop("a line that is not a response");
    const pending = typeof response.id === "number" ? this.pending.get(response.id) : undefined;
    if (!pending) return;
    this.pending.delete(response.id as number);
    clearTimeout(pending.timer);
    if (typeof response.error === "string") pending.reject(new Error(response.error));
    else pending.resolve(response.result);
  }

  /** Ends a connection whose server does not speak the protocol: what waits on it fails now rather than at its timeout. */
  private drop(what: string): void {
    this.failAll(new Error(`the interactive session answered with ${what}`));
    this.socket.destroy();
  }

  private failAll(error: Error): void {
    this.closed = true;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.pending.clear();
  }
}
