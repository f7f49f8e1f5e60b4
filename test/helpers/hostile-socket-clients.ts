import { createConnection, type Socket } from "node:net";

/**
 * Clients of a line-protocol Unix socket that misbehave as a hostile local
 * process could (a command run by the agent, say), for tests that hold a
 * server to surviving them.
 */

export async function connectTo(socketPath: string): Promise<Socket> {
  const socket = createConnection(socketPath);
  socket.on("error", () => undefined); // a hostile client expects its connection to be cut
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends many requests and leaves a few milliseconds later with the answers
 * unread: the server's reads then fail with ECONNRESET and its writes with
 * EPIPE. Also one that sends a request and leaves at once.
 */
export async function requestAndLeave(socketPath: string, request: string, rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const flood = await connectTo(socketPath);
    flood.write(request.repeat(20_000));
    await pause(5);
    flood.destroy();
    const quick = await connectTo(socketPath);
    quick.write(request);
    quick.destroy();
  }
  await pause(200);
}

/**
 * Streams up to `limitBytes` without a line break, as fast as the server
 * takes it, until the server closes the connection; returns how much was
 * written and the first line the server answered, if any.
 */
export async function sendEndlessLine(
  socketPath: string,
  limitBytes = 256 << 20,
): Promise<{ written: number; closed: boolean; answer: string | undefined }> {
  const socket = await connectTo(socketPath);
  const megabyte = Buffer.alloc(1 << 20, "x");
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
  let closed = false;
  const closing = new Promise((resolve) =>
    socket.once("close", () => {
      closed = true;
      resolve(true);
    }),
  );
  let written = 0;
  while (!closed && written < limitBytes) {
    written += megabyte.length;
    if (!socket.write(megabyte)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closing]);
  }
  socket.destroy();
  const [answer] = received.split("\n");
  return { written, closed, answer: received.includes("\n") ? answer : undefined };
}
