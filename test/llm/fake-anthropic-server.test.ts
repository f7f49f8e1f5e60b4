import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AnthropicError,
  BadRequestError,
  InternalServerError,
  OverloadedError,
  RateLimitError,
} from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  estimateInputTokens,
  reply,
  requestApiKey,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
} from "../helpers/fake-anthropic-server.js";
import { errorMessage } from "../../src/errors.js";

const MODEL = "claude-test-model";
const params = {
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
};

describe("fake Anthropic server against the real SDK", () => {
  let server: FakeAnthropicServer;
  const client = (options: { maxRetries?: number; timeout?: number } = {}) =>
    new Anthropic({ apiKey: "test", baseURL: server.baseUrl, maxRetries: options.maxRetries ?? 0, timeout: options.timeout ?? 10_000 });

  beforeEach(async () => {
    server = await startFakeAnthropicServer();
  });

  afterEach(async () => {
    await server.close();
  });

  it("answers a non-streaming create with text + tool_use, stop_reason and usage", async () => {
    server.enqueue(
      reply()
        .text("Let me check.")
        .toolUse("get_weather", { city: "Paris", units: "metric" }, "toolu_01abc")
        .usage({ input_tokens: 42, output_tokens: 7, cache_read_input_tokens: 30 }),
    );
    const message = await client().messages.create(params);

    expect(message.type).toBe("message");
    expect(message.role).toBe("assistant");
    expect(message.id).toMatch(/^msg_01/);
    expect(message.model).toBe(MODEL);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.stop_sequence).toBeNull();
    expect(message.content).toMatchObject([
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_01abc", name: "get_weather", input: { city: "Paris", units: "metric" } },
    ]);
    expect(message.usage).toMatchObject({
      input_tokens: 42,
      output_tokens: 7,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 0,
    });

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/messages");
    // SDK 1.12 sends the apiKey as a bearer token, not x-api-key.
    expect(request?.headers.authorization).toBe("Bearer test");
    expect(requestApiKey(request!)).toBe("test");
    expect(request?.headers["anthropic-version"]).toEqual(expect.any(String));
    expect(request?.body).toMatchObject({ model: MODEL, max_tokens: 1024, messages: params.messages });
    expect(server.pending()).toBe(0);
  });

  it("defaults stop_reason, usage, tool ids and model; honours .model() and stop_sequence", async () => {
    server.enqueue(
      reply().text("plain"),
      reply().toolUse("noop", {}),
      reply().text("cut").stopReason("stop_sequence").model("claude-other"),
    );
    const anthropic = client();

    const plain = await anthropic.messages.create(params);
    expect(plain.stop_reason).toBe("end_turn");
    expect(plain.usage.input_tokens).toBe(estimateInputTokens(params));
    expect(plain.usage.output_tokens).toBeGreaterThan(0);

    const tool = await anthropic.messages.create(params);
    expect(tool.stop_reason).toBe("tool_use");
    expect(tool.content[0]).toMatchObject({ type: "tool_use", name: "noop", input: {} });
    expect((tool.content[0] as { id: string }).id).toMatch(/^toolu_01/);

    const stopped = await anthropic.messages.create({ ...params, stop_sequences: ["END"] });
    expect(stopped.stop_reason).toBe("stop_sequence");
    expect(stopped.stop_sequence).toBe("END");
    expect(stopped.model).toBe("claude-other");
  });

  it("streams the exact event sequence and messages.stream().finalMessage() reassembles text and partial JSON", async () => {
    const input = { path: "src/index.ts", lines: [1, 2, 3], note: 'unicode ✓ and "quotes"' };
    server.enqueue(reply().text("Reading the file now.").toolUse("read_file", input, "toolu_01xyz").chunkText(5));

    const stream = client().messages.stream(params);
    const events: Anthropic.MessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const message = await stream.finalMessage();

    expect(message.content).toMatchObject([
      { type: "text", text: "Reading the file now." },
      { type: "tool_use", id: "toolu_01xyz", name: "read_file", input },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.model).toBe(MODEL);
    expect(message.usage.output_tokens).toBeGreaterThan(1);

    const types = events.map((e) => e.type);
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(types.filter((t) => t === "content_block_start")).toHaveLength(2);
    expect(types.filter((t) => t === "content_block_stop")).toHaveLength(2);
    const deltaType = (e: Anthropic.MessageStreamEvent) => (e.type === "content_block_delta" ? e.delta.type : undefined);
    const jsonDeltas = events.filter((e) => deltaType(e) === "input_json_delta");
    expect(jsonDeltas.length).toBe(Math.ceil(JSON.stringify(input).length / 5));
    expect(events.filter((e) => deltaType(e) === "text_delta")).toHaveLength(Math.ceil("Reading the file now.".length / 5));

    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it("records anthropic-beta headers, the beta path and cache_control in the body", async () => {
    server.enqueue(reply().text("cached").usage({ input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 500 }));
    const message = await client().beta.messages.create({
      ...params,
      betas: ["prompt-caching-2024-07-31"],
      system: [{ type: "text", text: "big system prompt", cache_control: { type: "ephemeral" } }],
    });
    expect(message.usage.cache_creation_input_tokens).toBe(500);
    const [request] = server.requests;
    expect(request?.path.split("?")[0]).toBe("/v1/messages");
    expect(request?.headers["anthropic-beta"]).toContain("prompt-caching-2024-07-31");
    expect(request?.body.system[0].cache_control).toEqual({ type: "ephemeral" });
  });

  it("answers count_tokens deterministically without consuming the queue", async () => {
    server.enqueue(reply().text("unused"));
    const body = { model: MODEL, messages: params.messages, system: "be brief" };
    const counted = await client().messages.countTokens(body);
    expect(counted.input_tokens).toBe(Math.ceil((JSON.stringify(body.messages) + JSON.stringify(body.system)).length / 4));
    expect(server.requests[0]?.path).toBe("/v1/messages/count_tokens");
    expect(server.pending()).toBe(1);
  });

  it("a 429 with retry-after-ms is retried by the SDK after that delay", async () => {
    server.enqueue(reply().status(429, { retryAfterMs: 1_200 }), reply().text("after the rate limit"));
    const started = Date.now();
    const message = await client({ maxRetries: 2 }).messages.create(params);
    expect(message.content).toMatchObject([{ type: "text", text: "after the rate limit" }]);
    expect(server.requests).toHaveLength(2);
    // The SDK's own first backoff is 375-500 ms: a wait of the header's 1.2 s is the header's. A lower
    // bound, which a busy machine cannot break (an upper one, below the SDK's own, it could).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
  });

  it("a 529 overloaded is retried likewise; without retries it surfaces as OverloadedError", async () => {
    server.enqueue(reply().status(529, { retryAfterMs: 5 }), reply().text("recovered"));
    const message = await client({ maxRetries: 2 }).messages.create(params);
    expect(message.content).toMatchObject([{ type: "text", text: "recovered" }]);
    expect(server.requests).toHaveLength(2);

    server.enqueue(reply().status(529, { message: "busy" }));
    const error = await client()
      .messages.create(params)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OverloadedError);
    expect((error as APIError).type).toBe("overloaded_error");
    expect((error as APIError).apiMessage).toBe("busy");
  });

  it("error bodies carry Anthropic error types; a 400 is not retried", async () => {
    server.enqueue(reply().status(400, { message: "max_tokens: too large" }), reply().text("never reached"));
    const error = await client({ maxRetries: 2 })
      .messages.create(params)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as APIError).type).toBe("invalid_request_error");
    expect(server.requests).toHaveLength(1);
    expect(server.pending()).toBe(1);
    await client().messages.create(params); // consume the spare

    server.enqueue(reply().status(429));
    await expect(client().messages.create(params)).rejects.toBeInstanceOf(RateLimitError);
  });

  it("cutAfter(3) drops the connection mid-stream: iteration rejects and stream() does not retry", async () => {
    server.enqueue(reply().text("this text will never fully arrive").chunkText(4).cutAfter(3), reply().text("spare"));
    const stream = client({ maxRetries: 2 }).messages.stream(params);
    const seen: string[] = [];
    const iterate = async () => {
      for await (const event of stream) seen.push(event.type);
    };
    const error = await iterate().catch((e: unknown) => e);
    // MessageStream wraps undici's `TypeError: terminated` in a plain AnthropicError (cause kept).
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error).not.toBeInstanceOf(APIError);
    expect(errorMessage(error)).toMatch(/terminated/);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(seen).toEqual(["message_start", "content_block_start"]); // the ping is swallowed by the SDK
    expect(server.requests).toHaveLength(1);
    expect(server.pending()).toBe(1);
  });

  it("cutAfter on a raw create({ stream: true }) rejects iteration too", async () => {
    server.enqueue(reply().text("abcdefghijklmnop").chunkText(2).cutAfter(5));
    const stream = await client().messages.create({ ...params, stream: true });
    const iterate = async () => {
      for await (const _event of stream) void _event;
    };
    // The raw Stream surfaces undici's error unwrapped.
    const error = await iterate().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(errorMessage(error)).toMatch(/terminated/);
  });

  it("dropConnection() before any response is an APIConnectionError that the SDK retries", async () => {
    server.enqueue(reply().dropConnection(), reply().text("second try"));
    const message = await client({ maxRetries: 1 }).messages.create(params);
    expect(message.content).toMatchObject([{ type: "text", text: "second try" }]);
    expect(server.requests).toHaveLength(2);

    server.enqueue(reply().dropConnection());
    await expect(client().messages.create(params)).rejects.toBeInstanceOf(APIConnectionError);
  });

  it("hang() + SDK timeout rejects with a timeout error", async () => {
    server.enqueue(reply().hang());
    const error = await client({ timeout: 200, maxRetries: 0 })
      .messages.create(params)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it("delayMs() delays the answer", async () => {
    server.enqueue(reply().text("slow").delayMs(120));
    const started = Date.now();
    await client().messages.create(params);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("an empty queue fails loudly with a 500 the SDK does not retry", async () => {
    const error = await client({ maxRetries: 2 })
      .messages.create(params)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as APIError).status).toBe(500);
    expect(errorMessage(error)).toContain("fake Anthropic server: no scripted response left");
    expect(server.requests).toHaveLength(1);
  });

  it("close() ends hanging and delayed requests promptly", async () => {
    server.enqueue(reply().hang(), reply().text("late").delayMs(60_000));
    const anthropic = client({ timeout: 60_000 });
    const hanging = anthropic.messages.create(params).catch((e: unknown) => e);
    const delayed = anthropic.messages.create(params).catch((e: unknown) => e);
    while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await hanging).toBeInstanceOf(APIConnectionError);
    expect(await delayed).toBeInstanceOf(APIConnectionError);
  });
});
