import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEmbeddingServer {
  baseUrl: string;
  requests: Array<{ model: string; input: string[]; authorization: string | undefined }>;
  close(): Promise<void>;
}

export interface FakeEmbeddingOptions {
  dimensions?: number;
  failWith?: number;
  /** Each text's vector, when a test needs to set the vector signal itself; letter histograms otherwise. */
  embed?: (text: string) => number[];
}

/**
 * A loopback server speaking OpenAI's `POST /v1/embeddings`. Vectors are
 * letter histograms (a–z, 26 dimensions), so similar words are near, unless
 * the test gives its own `embed`.
 */
export async function startFakeEmbeddingServer(options: FakeEmbeddingOptions = {}): Promise<FakeEmbeddingServer> {
  const dimensions = options.dimensions ?? 26;
  const requests: FakeEmbeddingServer["requests"] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/embeddings") {
        response.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      requests.push({ ...parsed, authorization: request.headers.authorization });
      if (options.failWith) {
        response.writeHead(options.failWith, { "content-type": "application/json" }).end('{"error":"overloaded"}');
        return;
      }
      const data = parsed.input.map((text, index) => {
        if (options.embed) return { object: "embedding", index, embedding: options.embed(text) };
        const vector = new Array<number>(dimensions).fill(0);
        for (const character of text.toLowerCase()) {
          const code = character.charCodeAt(0) - 97;
          if (code >= 0 && code < 26 && code < dimensions) vector[code] = (vector[code] ?? 0) + 1;
        }
        return { object: "embedding", index, embedding: vector };
      });
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model: parsed.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
