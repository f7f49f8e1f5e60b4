import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A loopback server speaking enough of the Anthropic Messages API for the real
 * `@anthropic-ai/sdk` client (`new Anthropic({ apiKey: "test", baseURL: server.baseUrl })`)
 * to run against it: `POST /v1/messages` (JSON or SSE streaming) and
 * `POST /v1/messages/count_tokens`. Responses are scripted with {@link reply}
 * and consumed FIFO, one per `POST /v1/messages`.
 *
 * Wire format follows the SDK's own types (`resources/messages/messages.ts`):
 * a Message carries `container`, `diagnostics`, `stop_details` (all null) and a
 * full `usage`; tool_use blocks carry `caller: { type: "direct" }`.
 */

export interface RecordedRequest {
  /** The request target, including any query string (e.g. `/v1/messages?beta=true`). */
  path: string;
  method: string;
  /** Node's (lower-cased) request headers, verbatim: `x-api-key`, `anthropic-beta`, `anthropic-version`, … */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw string when it was not JSON (undefined when empty). */
  body: any;
}

export interface FakeAnthropicServer {
  /** `http://127.0.0.1:PORT`, what the SDK's `baseURL` takes (the SDK appends `/v1/messages`). */
  baseUrl: string;
  /** Every request received, in order, including failed, retried and unscripted ones. */
  requests: RecordedRequest[];
  /** Appends scripted responses; each `POST /v1/messages` consumes one, FIFO. */
  enqueue(...responses: Array<ScriptedResponse | DynamicResponse>): void;
  /** Scripted responses not yet consumed. */
  pending(): number;
  /** Stops listening and destroys every open socket, including hanging/delayed ones. */
  close(): Promise<void>;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";

export interface UsageSpec {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export interface StatusOptions {
  /** Sends `retry-after-ms` (the SDK waits exactly this long when it is > 0). */
  retryAfterMs?: number;
  /** Sends `retry-after` in whole seconds, as rate limits do. */
  retryAfterSeconds?: number;
  /** Anthropic error type; defaults from the status (429 → rate_limit_error, 529 → overloaded_error, …). */
  errorType?: string;
  message?: string;
  /** Sends `x-should-retry: true|false`, which the SDK obeys over its status-based policy. */
  shouldRetry?: boolean;
}

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** The plain data behind a scripted response. */
export interface ReplySpec {
  blocks: readonly ScriptedBlock[];
  stopReason?: StopReason;
  stopSequence?: string;
  usage?: UsageSpec;
  model?: string;
  chunkSize: number;
  status?: { code: number } & StatusOptions;
  hang: boolean;
  dropConnection: boolean;
  cutAfter?: number;
  delayMs: number;
  eventDelayMs: number;
}

/** Anything {@link FakeAnthropicServer.enqueue} accepts; a {@link ReplyBuilder} is one. */
export interface ScriptedResponse {
  readonly spec: Readonly<ReplySpec>;
}

/** A response decided when its request arrives (e.g. to echo an id the client generated). */
export type DynamicResponse = (body: any) => ScriptedResponse;

let idCounter = 0;
function fakeId(prefix: string): string {
  idCounter += 1;
  // Real ids look like `toolu_01` + 22 base62 characters; keep that shape, but deterministic.
  return `${prefix}01FAKE${String(idCounter).padStart(18, "0")}`;
}

/** Immutable, chainable builder: every method returns a new builder. */
export class ReplyBuilder implements ScriptedResponse {
  constructor(readonly spec: Readonly<ReplySpec>) {}

  private with(patch: Partial<ReplySpec>): ReplyBuilder {
    return new ReplyBuilder({ ...this.spec, ...patch });
  }

  /** Adds a text content block. */
  text(text: string): ReplyBuilder {
    return this.with({ blocks: [...this.spec.blocks, { type: "text", text }] });
  }

  /** Adds a tool_use content block; `id` defaults to a fresh `toolu_01…`. */
  toolUse(name: string, input: object, id?: string): ReplyBuilder {
    const block: ScriptedBlock = { type: "tool_use", id: id ?? fakeId("toolu_"), name, input: input as Record<string, unknown> };
    return this.with({ blocks: [...this.spec.blocks, block] });
  }

  /** Default: "tool_use" when any tool_use block, else "end_turn". `stopSequence` defaults to the request's first `stop_sequences` entry. */
  stopReason(stopReason: StopReason, stopSequence?: string): ReplyBuilder {
    return this.with({ stopReason, stopSequence });
  }

  /** Default: input tokens estimated from the request (as count_tokens does), output tokens from the content (chars / 4). */
  usage(usage: UsageSpec): ReplyBuilder {
    return this.with({ usage: { ...usage } });
  }

  /** Default: echo the request's `model`. */
  model(model: string): ReplyBuilder {
    return this.with({ model });
  }

  /** Streaming: split text deltas and tool-input `partial_json` into pieces of `n` characters (default 8). */
  chunkText(n: number): ReplyBuilder {
    if (!Number.isInteger(n) || n < 1) throw new Error(`chunkText: expected a positive integer, got ${n}`);
    return this.with({ chunkSize: n });
  }

  /** Answers with this HTTP status and an Anthropic error body `{ type: "error", error: { type, message } }`. */
  status(code: number, options: StatusOptions = {}): ReplyBuilder {
    return this.with({ status: { code, ...options } });
  }

  /** Never answers (until the server is closed). */
  hang(): ReplyBuilder {
    return this.with({ hang: true });
  }

  /** Destroys the socket without sending any response (the SDK sees a connection error and retries). */
  dropConnection(): ReplyBuilder {
    return this.with({ dropConnection: true });
  }

  /**
   * Streaming: send the 200 headers and `eventCount` SSE events (ping included), then destroy the
   * socket mid-stream. Non-streaming: send the headers and a truncated JSON body, then destroy.
   */
  cutAfter(eventCount: number): ReplyBuilder {
    return this.with({ cutAfter: eventCount });
  }

  /** Waits `n` ms before answering. */
  delayMs(n: number): ReplyBuilder {
    return this.with({ delayMs: n });
  }

  /** Streaming: waits `n` ms between SSE events (for abort/interrupt tests). */
  eventDelayMs(n: number): ReplyBuilder {
    return this.with({ eventDelayMs: n });
  }
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder({ blocks: [], chunkSize: 8, hang: false, dropConnection: false, delayMs: 0, eventDelayMs: 0 });
}

/** The Messages API calls a server received, in order (token counts left out). */
export function messageRequests(server: Pick<FakeAnthropicServer, "requests">): RecordedRequest[] {
  return server.requests.filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"));
}

/**
 * The credential a request carried. SDK 1.12 sends `apiKey` as `Authorization: Bearer <key>`
 * (not `x-api-key`); this accepts either.
 */
export function requestApiKey(request: RecordedRequest): string | undefined {
  const apiKey = request.headers["x-api-key"];
  if (typeof apiKey === "string") return apiKey;
  const authorization = request.headers["authorization"];
  if (typeof authorization === "string" && /^bearer /i.test(authorization)) return authorization.slice(7);
  return undefined;
}

/**
 * Deterministic token estimate used by count_tokens and default usage:
 * ceil(JSON of messages + system + tools / 4) (the real API counts tool definitions as input too).
 */
export function estimateInputTokens(body: any): number {
  const text = JSON.stringify(body?.messages ?? []) + JSON.stringify(body?.system ?? "") + JSON.stringify(body?.tools ?? []);
  return Math.max(1, Math.ceil(text.length / 4));
}

const DEFAULT_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  408: "timeout_error",
  409: "conflict_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function defaultErrorType(code: number): string {
  return DEFAULT_ERROR_TYPES[code] ?? (code >= 500 ? "api_error" : "invalid_request_error");
}

function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

function sseFrame(event: { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

interface Resolved {
  id: string;
  model: string;
  stopReason: StopReason;
  stopSequence: string | null;
  usage: Required<UsageSpec>;
}

function resolve(spec: Readonly<ReplySpec>, body: any): Resolved {
  const stopReason = spec.stopReason ?? (spec.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  const requestStop = Array.isArray(body?.stop_sequences) && typeof body.stop_sequences[0] === "string" ? (body.stop_sequences[0] as string) : null;
  const outputChars = spec.blocks.reduce((n, b) => n + (b.type === "text" ? b.text.length : JSON.stringify(b.input).length + b.name.length), 0);
  return {
    id: fakeId("msg_"),
    model: spec.model ?? (typeof body?.model === "string" ? body.model : "claude-fake"),
    stopReason,
    stopSequence: stopReason === "stop_sequence" ? (spec.stopSequence ?? requestStop ?? "\n\nHuman:") : null,
    usage: {
      input_tokens: spec.usage?.input_tokens ?? estimateInputTokens(body),
      output_tokens: spec.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
      cache_creation_input_tokens: spec.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: spec.usage?.cache_read_input_tokens ?? 0,
    },
  };
}

function fullUsage(usage: Required<UsageSpec>, outputTokens: number) {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: "standard",
    inference_geo: null,
    output_tokens_details: null,
    speed: null,
  };
}

function messageEnvelope(r: Resolved, content: unknown[], final: boolean) {
  return {
    id: r.id,
    type: "message",
    role: "assistant",
    model: r.model,
    content,
    stop_reason: final ? r.stopReason : null,
    stop_sequence: final ? r.stopSequence : null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: fullUsage(r.usage, final ? r.usage.output_tokens : 1),
  };
}

function wireBlock(block: ScriptedBlock, empty: boolean): Record<string, unknown> {
  if (block.type === "text") return { type: "text", text: empty ? "" : block.text };
  return { type: "tool_use", id: block.id, name: block.name, input: empty ? {} : block.input, caller: { type: "direct" } };
}

function streamEvents(spec: Readonly<ReplySpec>, r: Resolved): Array<{ type: string }> {
  const events: Array<{ type: string }> = [{ type: "message_start", message: messageEnvelope(r, [], false) } as { type: string }, { type: "ping" }];
  spec.blocks.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: wireBlock(block, true) } as { type: string });
    const deltas =
      block.type === "text"
        ? chunks(block.text, spec.chunkSize).map((text) => ({ type: "text_delta", text }))
        : chunks(JSON.stringify(block.input), spec.chunkSize).map((partial_json) => ({ type: "input_json_delta", partial_json }));
    for (const delta of deltas) events.push({ type: "content_block_delta", index, delta } as { type: string });
    events.push({ type: "content_block_stop", index } as { type: string });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: r.stopReason, stop_sequence: r.stopSequence, stop_details: null },
    usage: { output_tokens: r.usage.output_tokens },
  } as { type: string });
  events.push({ type: "message_stop" });
  return events;
}

const NO_SCRIPT_MESSAGE = "fake Anthropic server: no scripted response left";

export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  const requests: RecordedRequest[] = [];
  const queue: Array<ScriptedResponse | DynamicResponse> = [];
  const sockets = new Set<Socket>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  let closed = false;

  // Delays end early on close(); handlers then see `gone()` and stop.
  const sleep = (ms: number) =>
    new Promise<void>((done) => {
      if (ms <= 0 || closed) return done();
      const timer = setTimeout(() => {
        timers.delete(timer);
        done();
      }, ms);
      timers.set(timer, done);
    });

  const headersFor = (extra: Record<string, string> = {}) => ({ "request-id": fakeId("req_"), ...extra });

  const sendJson = (response: ServerResponse, status: number, payload: string, extra: Record<string, string> = {}) => {
    response.writeHead(status, headersFor({ "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)), ...extra }));
    response.end(payload);
  };

  const gone = (response: ServerResponse) => closed || response.destroyed || response.socket?.destroyed === true;

  const answerMessages = async (response: ServerResponse, body: any) => {
    const queued = queue.shift();
    const next = typeof queued === "function" ? queued(body) : queued;
    if (!next) {
      // x-should-retry: false keeps the SDK from retrying (and backing off) on this 500.
      sendJson(response, 500, errorBody("api_error", NO_SCRIPT_MESSAGE), { "x-should-retry": "false" });
      return;
    }
    const spec = next.spec;
    if (spec.hang) return; // never answered; close() destroys the socket
    await sleep(spec.delayMs);
    if (gone(response)) return;
    if (spec.dropConnection) {
      response.socket?.destroy();
      return;
    }
    if (spec.status) {
      const { code, retryAfterMs, retryAfterSeconds, errorType, message, shouldRetry } = spec.status;
      const extra: Record<string, string> = {};
      if (retryAfterMs !== undefined) extra["retry-after-ms"] = String(retryAfterMs);
      if (retryAfterSeconds !== undefined) extra["retry-after"] = String(retryAfterSeconds);
      if (shouldRetry !== undefined) extra["x-should-retry"] = String(shouldRetry);
      sendJson(response, code, errorBody(errorType ?? defaultErrorType(code), message ?? `fake Anthropic server: scripted ${code}`), extra);
      return;
    }
    const r = resolve(spec, body);
    if (body?.stream === true) {
      response.writeHead(200, headersFor({ "content-type": "text/event-stream", "cache-control": "no-cache" }));
      response.flushHeaders();
      const events = streamEvents(spec, r);
      const limit = spec.cutAfter ?? events.length;
      for (let i = 0; i < Math.min(limit, events.length); i++) {
        if (i > 0) await sleep(spec.eventDelayMs);
        if (gone(response)) return;
        response.write(sseFrame(events[i]!));
      }
      if (spec.cutAfter !== undefined) {
        // Let the written frames reach the client, then drop the connection mid-stream.
        response.write("", () => response.socket?.destroy());
        return;
      }
      response.end();
      return;
    }
    const content = spec.blocks.map((block) => wireBlock(block, false));
    const payload = JSON.stringify(messageEnvelope(r, content, true));
    if (spec.cutAfter !== undefined) {
      response.writeHead(200, headersFor({ "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) }));
      response.write(payload.slice(0, Math.floor(payload.length / 2)), () => response.socket?.destroy());
      return;
    }
    sendJson(response, 200, payload);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse, raw: string) => {
    let body: any = undefined;
    let parseError = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        parseError = true;
      }
    }
    const path = request.url ?? "/";
    requests.push({ path, method: request.method ?? "GET", headers: { ...request.headers }, body });
    const route = path.split("?")[0];
    if (request.method !== "POST" || (route !== "/v1/messages" && route !== "/v1/messages/count_tokens")) {
      sendJson(response, 404, errorBody("not_found_error", `fake Anthropic server: no route for ${request.method} ${path}`));
      return;
    }
    if (parseError) {
      sendJson(response, 400, errorBody("invalid_request_error", "fake Anthropic server: request body is not JSON"));
      return;
    }
    if (route === "/v1/messages/count_tokens") {
      sendJson(response, 200, JSON.stringify({ input_tokens: estimateInputTokens(body) }));
      return;
    }
    await answerMessages(response, body);
  };

  const server: Server = createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (raw += chunk));
    request.on("end", () => {
      handle(request, response, raw).catch((error: unknown) => {
        if (!response.headersSent && !gone(response)) {
          sendJson(response, 500, errorBody("api_error", `fake Anthropic server crashed: ${String(error)}`), { "x-should-retry": "false" });
        } else {
          response.socket?.destroy();
        }
      });
    });
  });
  server.on("connection", (socket) => {
    // Many small SSE frames: without this, Nagle and delayed ACKs stall each response by ~40 ms.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    pending: () => queue.length,
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      for (const [timer, done] of timers) {
        clearTimeout(timer);
        done();
      }
      timers.clear();
      return new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
    },
  };
}
