import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AnthropicProvider } from "../../src/llm/anthropic-provider.js";
import { ModelError } from "../../src/llm/model-errors.js";
import type { ModelRequest, ModelStreamEvent } from "../../src/llm/model-types.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { errorMessage } from "../../src/errors.js";

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (overrides: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) =>
  new AnthropicProvider({
    apiKey: "sk-test",
    model: "claude-sonnet-5-5",
    baseUrl: server.baseUrl,
    contextWindow: 200_000,
    timeoutMs: 5_000,
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  });

const request: ModelRequest = {
  system: "You are Sylk.",
  messages: [{ role: "user", content: [{ type: "text", text: "Read the config" }] }],
  tools: [
    { name: "read_file", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
    { name: "grep", description: "Search", inputSchema: { type: "object", properties: {} } },
  ],
  maxTokens: 1024,
};

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("AnthropicProvider", () => {
  it("streams text and tool calls and reports usage with cache tokens", async () => {
    server.enqueue(
      reply()
        .text("Let me look.")
        .toolUse("read_file", { path: "src/config.ts" }, "toolu_1")
        .usage({ input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 })
        .chunkText(4),
    );
    const events = await collect(provider().stream(request));
    expect(
      events
        .filter((event) => event.type === "text_delta")
        .map((event) => event.text)
        .join(""),
    ).toBe("Let me look.");
    expect(events.filter((event) => event.type === "tool_input_delta").length).toBeGreaterThan(1);
    const complete = events.at(-1);
    expect(complete).toEqual({
      type: "complete",
      response: {
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "src/config.ts" } },
        ],
        stopReason: "tool_use",
        usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 100, cacheWriteTokens: 20 },
        model: "claude-sonnet-5-5",
      },
    });
  });

  it("caches the stable prefix and the conversation so far", async () => {
    server.enqueue(reply().text("ok"));
    await collect(provider().stream(request));
    const body = server.requests[0]?.body;
    expect(body.stream).toBe(true);
    expect(body.system).toEqual([{ type: "text", text: "You are Sylk.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools.map((tool: { cache_control?: unknown }) => tool.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
    expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
  });

  it("retries 429, 529 and a stream cut mid-way, telling the consumer to discard partial output", async () => {
    server.enqueue(
      reply().status(429, { retryAfterMs: 10 }),
      reply().status(529),
      reply().text("partial answer that will be cut").chunkText(3).cutAfter(5),
      reply().text("final answer"),
    );
    const events = await collect(provider().stream(request));
    expect(events.filter((event) => event.type === "retry").map((event) => event.attempt)).toEqual([2, 3, 4]);
    const retry = events.find((event) => event.type === "retry");
    expect(retry).toMatchObject({ delayMs: 10 });
    const complete = events.at(-1);
    expect(complete?.type === "complete" && complete.response.content).toEqual([{ type: "text", text: "final answer" }]);
    expect(server.requests).toHaveLength(4);
    expect(server.pending()).toBe(0);
  });

  it("fails at once when the server asks to retry after longer than the retry cap, naming the wait", async () => {
    server.enqueue(reply().status(429, { retryAfterSeconds: 86_400, message: "rate limited" }), reply().text("never sent"));
    const started = performance.now();
    const error = await collect(provider().stream(request)).catch((caught: unknown) => caught);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: "rate_limit", retryable: false, retryAfterMs: 86_400_000, status: 429 });
    expect(errorMessage(error)).toContain("The model API answered 429: rate limited");
    expect(errorMessage(error)).toContain("The server asked to retry after 24 h");
    expect(errorMessage(error)).toContain("giving up");
    expect(server.requests).toHaveLength(1);
  });

  it("still waits for and retries a retry-after within the cap", async () => {
    server.enqueue(reply().status(429, { retryAfterSeconds: 1 }), reply().text("after the wait"));
    const started = performance.now();
    const events = await collect(provider({ retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 5_000 } }).stream(request));
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(events.find((event) => event.type === "retry")).toMatchObject({ attempt: 2, delayMs: 1_000 });
    const complete = events.at(-1);
    expect(complete?.type === "complete" && complete.response.content).toEqual([{ type: "text", text: "after the wait" }]);
  });

  it("gives up after the last attempt with a classified error", async () => {
    server.enqueue(reply().status(500), reply().status(500), reply().status(500), reply().status(500));
    await expect(collect(provider().stream(request))).rejects.toMatchObject({ kind: "server", retryable: true });
    expect(server.requests).toHaveLength(4);
  });

  it("does not retry a rejected API key and says how to fix it", async () => {
    server.enqueue(reply().status(401, { message: "invalid x-api-key" }));
    const error = await collect(provider().stream(request)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: "authentication", exitCode: 41 });
    expect(errorMessage(error)).toContain("ANTHROPIC_API_KEY");
    expect(server.requests).toHaveLength(1);
  });

  it("abandons and retries a stream that stalls mid-way for longer than the timeout", async () => {
    // Headers and the first event arrive, then nothing (socket open): the SDK's timeout is over by then.
    server.enqueue(reply().text("an answer that stops coming").chunkText(3).eventDelayMs(60_000), reply().text("after the stall"));
    const started = performance.now();
    const events = await collect(provider({ timeoutMs: 300 }).stream(request));
    expect(events.find((event) => event.type === "retry")).toMatchObject({
      attempt: 2,
      reason: expect.stringMatching(/nothing arrived for 0\.3 s/),
    });
    const complete = events.at(-1);
    expect(complete?.type === "complete" && complete.response.content).toEqual([{ type: "text", text: "after the stall" }]);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("retries a request that times out, and stops at once when cancelled", async () => {
    server.enqueue(reply().hang(), reply().text("after the timeout"));
    const events = await collect(provider({ timeoutMs: 200 }).stream(request));
    expect(events.some((event) => event.type === "retry")).toBe(true);

    server.enqueue(reply().hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(collect(provider().stream(request, controller.signal))).rejects.toMatchObject({ kind: "aborted" });
  });
});
