import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEmbeddingServer {
  baseUrl: string;
  requests: Array<{ model: string; input: string[]; authorization: string | undefined }>;
  close(): Promise<void>;
}

/**
 * A loopback server speaking OpenAI's `POST /v1/embeddings`. Vectors are
 * letter histograms (a–z, 26 dimensions), so similar words are near.
 */
export async function startFakeEmbeddingServer(options: { dimensions?: number; failWith?: number } = {}): Promise<FakeEmbeddingServer> {
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
