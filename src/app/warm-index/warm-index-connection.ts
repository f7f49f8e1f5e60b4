import type { Socket } from "node:net";
import { BoundedLineReader } from "./line-reader.js";
import type { WarmResponse } from "./protocol.js";

/** Longest request line accepted: a query (at most 10,000 characters, JSON-escaped), not a document. */
export const MAX_REQUEST_BYTES = 64 * 1024;

/** How long a client refused for a long line has to take the refusal before the connection is cut. */
const REFUSAL_GRACE_MS = 1_000;

/**
 * One client of the warm-index socket, which any process of the user's may
 * open (a sandboxed command's included): whatever it does ends this
 * connection at worst, never the session serving it.
 *
 * - A socket error (ECONNRESET from a client that reset, EPIPE from an
 *   answer to one that left) destroys the socket; with no listener it would
 *   have been thrown from the session's event loop.
 * - A line is bounded while it is read (`MAX_REQUEST_BYTES`): past the bound
 *   nothing more of it is kept, the client is answered with an error, and
 *   the connection is closed.
 * - Requests are answered in order, one at a time, and the socket is not
 *   read meanwhile, nor while the client leaves its answers unread: a client
 *   that floods requests holds at most one read's worth of them.
 */
export class WarmIndexConnection {
  private readonly reader: BoundedLineReader;
  private readonly requests: string[] = [];
  private answering = false;

  constructor(
    private readonly socket: Socket,
    private readonly answer: (line: string) => Promise<WarmResponse>,
  ) {
    this.reader = new BoundedLineReader(MAX_REQUEST_BYTES, {
      onLine: (line) => this.requests.push(line),
      onOverflow: () => this.refuseLongLine(),
    });
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: Buffer) => {
      this.reader.push(chunk);
      void this.answerRequests();
    });
    socket.on("drain", () => void this.answerRequests());
  }

  private async answerRequests(): Promise<void> {
    if (this.answering || this.reader.stopped) return;
    this.answering = true;
    this.socket.pause();
    while (this.requests.length > 0 && this.socket.writable && !this.socket.writableNeedDrain) {
      const line = this.requests.shift() as string;
      const response = await this.answer(line).catch((error: unknown): WarmResponse => ({ id: -1, error: String(error) }));
      // A client that left has nowhere for its answer to go.
      if (this.socket.writable) this.socket.write(`${JSON.stringify(response)}\n`);
    }
    this.answering = false;
    // Waiting for the client to read its answers: "drain" comes back here.
    if (this.socket.writable && !this.socket.writableNeedDrain && !this.reader.stopped) this.socket.resume();
  }

  private refuseLongLine(): void {
    this.requests.length = 0;
    this.socket.pause();
    const refusal: WarmResponse = { id: -1, error: `request line longer than ${MAX_REQUEST_BYTES} bytes; closing the connection` };
    const cut = setTimeout(() => this.socket.destroy(), REFUSAL_GRACE_MS);
    cut.unref();
    this.socket.end(`${JSON.stringify(refusal)}\n`, () => {
      clearTimeout(cut);
      this.socket.destroy();
    });
  }
}
