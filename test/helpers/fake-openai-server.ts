import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A loopback server speaking OpenAI's chat-completions API (streaming SSE
 * chunks with content and tool-call deltas, then a usage chunk and
 * `[DONE]`), for the real `openai` SDK in tests. Scripted FIFO like the fake
 * Anthropic server; `GET /v1/models` lists one model, unscripted.
 */
export interface OpenAIScript {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  status?: number;
  /** With `status`: sends `retry-after` in whole seconds, as rate limits do. */
  retryAfterSeconds?: number;
  cutAfter?: number;
  /** Sends this many chunks, then nothing more, keeping the socket open (a stalled stream). */
  stallAfter?: number;
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
}

export interface FakeOpenAIServer {
  baseUrl: string;
  requests: Array<{ path: string; headers: IncomingMessage["headers"]; body: any }>;
  enqueue(...scripts: OpenAIScript[]): void;
  pending(): number;
  close(): Promise<void>;
}

export async function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const queue: OpenAIScript[] = [];
  const requests: FakeOpenAIServer["requests"] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    request.on("end", () => {
      const body = raw ? JSON.parse(raw) : undefined;
      requests.push({ path: request.url ?? "", headers: request.headers, body });
      // The model list (what `sylk doctor` asks) is answered without a script.
      if (request.method === "GET" && (request.url ?? "").split("?")[0] === "/v1/models") {
        response.writeHead(200, { "content-type": "application/json" });
        return response.end(
          JSON.stringify({ object: "list", data: [{ id: "local-model", object: "model", created: 0, owned_by: "fake" }] }),
        );
      }
      const script = queue.shift();
      if (!script) return error(response, 500, "fake OpenAI server: no scripted response left");
      if (script.status) {
        const retryAfter: Record<string, string> =
          script.retryAfterSeconds !== undefined ? { "retry-after": String(script.retryAfterSeconds) } : {};
        return error(response, script.status, `scripted ${script.status}`, retryAfter);
      }
      respond(response, body, script);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...scripts) => queue.push(...scripts),
    pending: () => queue.length,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function error(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", "x-should-retry": status >= 500 ? "true" : "false", ...headers });
  response.end(JSON.stringify({ error: { message, type: "server_error", code: null } }));
}

function respond(response: ServerResponse, body: { model: string }, script: OpenAIScript): void {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model: body.model };
  const chunks: object[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  for (const piece of (script.text ?? "").match(/.{1,5}/gs) ?? []) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  }
  (script.toolCalls ?? []).forEach((call, index) => {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] },
          finish_reason: null,
        },
      ],
    });
    for (const piece of JSON.stringify(call.arguments).match(/.{1,7}/gs) ?? []) {
      chunks.push({
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }],
      });
    }
  });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: script.toolCalls?.length ? "tool_calls" : "stop" }] });
  const usage = script.usage ?? { prompt_tokens: 50, completion_tokens: 10 };
  chunks.push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    },
  });
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  chunks.forEach((chunk, index) => {
    if (script.cutAfter !== undefined && index >= script.cutAfter) return;
    if (script.stallAfter !== undefined && index >= script.stallAfter) return;
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  });
  if (script.stallAfter !== undefined) return;
  if (script.cutAfter !== undefined) {
    response.socket?.destroy();
    return;
  }
  response.end("data: [DONE]\n\n");
}
