import { estimateTokens, startFakeMessagesServer, type PlannedStep } from "../../scripts/lib/fake-messages-server.mjs";

/**
 * A loopback server speaking enough of the Anthropic Messages API for the real
 * `@anthropic-ai/sdk` client (`new Anthropic({ apiKey: "test", baseURL: server.baseUrl })`)
 * to run against it: `POST /v1/messages` (JSON or SSE streaming) and
 * `POST /v1/messages/count_tokens`. Responses are scripted with {@link reply}
 * and consumed FIFO, one per `POST /v1/messages`.
 *
 * The server is the scripts' (`scripts/lib/fake-messages-server.mjs`, plain JS so
 * that node runs it without a build): one wire format for tests and benchmarks,
 * following the SDK's own types (`resources/messages/messages.ts`). This module
 * is its typed face for tests: a queue of immutable reply builders.
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
  /**
   * Answers for `POST /v1/messages/count_tokens`, FIFO (a status, a hang or a
   * delay; any blocks are ignored): once none is left, counts are answered.
   */
  enqueueCountTokens(...responses: ScriptedResponse[]): void;
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

export type ScriptedBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

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
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && /^bearer /i.test(authorization)) return authorization.slice(7);
  return undefined;
}

/**
 * Deterministic token estimate used by count_tokens and default usage:
 * ceil(JSON of messages + system + tools / 4) (the real API counts tool definitions as input too).
 */
export function estimateInputTokens(body: any): number {
  return estimateTokens(body);
}

const NO_SCRIPT_MESSAGE = "fake Anthropic server: no scripted response left";

/** The server's step for a reply: its defaults (usage from the content, the request's model) as this builder documents them. */
function stepOf(spec: Readonly<ReplySpec>, body: any): PlannedStep {
  if (spec.hang) return { hang: true };
  if (spec.status) {
    const { code, retryAfterMs, retryAfterSeconds, errorType, message, shouldRetry } = spec.status;
    const headers: Record<string, string> = {};
    if (retryAfterMs !== undefined) headers["retry-after-ms"] = String(retryAfterMs);
    if (retryAfterSeconds !== undefined) headers["retry-after"] = String(retryAfterSeconds);
    if (shouldRetry !== undefined) headers["x-should-retry"] = String(shouldRetry);
    return {
      status: code,
      errorType,
      message: message ?? `fake Anthropic server: scripted ${code}`,
      headers,
      delayMs: spec.delayMs,
      dropConnection: spec.dropConnection,
    };
  }
  const outputChars = spec.blocks.reduce(
    (n, b) => n + (b.type === "text" ? b.text.length : JSON.stringify(b.input).length + b.name.length),
    0,
  );
  return {
    blocks: spec.blocks,
    stopReason: spec.stopReason,
    stopSequence: spec.stopSequence,
    model: spec.model,
    usage: {
      input_tokens: spec.usage?.input_tokens ?? estimateInputTokens(body),
      output_tokens: spec.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4)),
      cache_creation_input_tokens: spec.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: spec.usage?.cache_read_input_tokens ?? 0,
    },
    textChunk: spec.chunkSize,
    jsonChunk: spec.chunkSize,
    delayMs: spec.delayMs,
    eventDelayMs: spec.eventDelayMs,
    cutAfter: spec.cutAfter,
    dropConnection: spec.dropConnection,
  };
}

export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  const queue: Array<ScriptedResponse | DynamicResponse> = [];
  const countQueue: ScriptedResponse[] = [];
  const server = await startFakeMessagesServer({
    countTokens: (body) => {
      const next = countQueue.shift();
      return next ? stepOf(next.spec, body) : undefined;
    },
    // Tests script conversations of every shape, repaired or not: the pairing rule is the scripts' check.
    refuseUnpairedToolUse: false,
    plan: (body) => {
      const queued = queue.shift();
      const next = typeof queued === "function" ? queued(body) : queued;
      // x-should-retry: false keeps the SDK from retrying (and backing off) on this 500.
      if (!next) return { status: 500, errorType: "api_error", message: NO_SCRIPT_MESSAGE, headers: { "x-should-retry": "false" } };
      return stepOf(next.spec, body);
    },
  });
  return {
    baseUrl: server.baseUrl,
    requests: server.log,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    pending: () => queue.length,
    enqueueCountTokens: (...responses) => {
      countQueue.push(...responses);
    },
    close: () => server.close(),
  };
}
