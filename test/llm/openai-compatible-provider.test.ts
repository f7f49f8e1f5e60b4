import { realpathSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAICompatibleProvider } from "../../src/llm/openai-compatible-provider.js";
import type { ModelRequest, ModelStreamEvent } from "../../src/llm/model-types.js";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../helpers/fake-openai-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";
import { trustGatedProjectSettings } from "../../src/config/load-config.js";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import { errorMessage } from "../../src/errors.js";

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (overrides: Partial<ConstructorParameters<typeof OpenAICompatibleProvider>[0]> = {}) =>
  new OpenAICompatibleProvider({
    apiKey: "local",
    model: "qwen-coder",
    baseUrl: server.baseUrl,
    contextWindow: 32_000,
    timeoutMs: 5_000,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10 },
    ...overrides,
  });

const request: ModelRequest = {
  system: "You are Sylk.",
  messages: [
    { role: "user", content: [{ type: "text", text: "Find the config" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "call_0", name: "grep", input: { pattern: "config" } }] },
    { role: "user", content: [{ type: "tool_result", toolUseId: "call_0", content: "src/config.ts:1: x", isError: false }] },
  ],
  tools: [{ name: "read_file", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
  maxTokens: 512,
};

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("OpenAICompatibleProvider", () => {
  it("streams text and assembles tool calls from argument fragments", async () => {
    server.enqueue({
      text: "Reading it now.",
      toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "src/config.ts" } }],
      usage: { prompt_tokens: 80, completion_tokens: 12, cached_tokens: 30 },
    });
    const events = await collect(provider().stream(request));
    expect(
      events
        .filter((event) => event.type === "text_delta")
        .map((event) => event.text)
        .join(""),
    ).toBe("Reading it now.");
    expect(events.at(-1)).toEqual({
      type: "complete",
      response: {
        content: [
          { type: "text", text: "Reading it now." },
          { type: "tool_use", id: "call_1", name: "read_file", input: { path: "src/config.ts" } },
        ],
        stopReason: "tool_use",
        usage: { inputTokens: 50, outputTokens: 12, cacheReadTokens: 30, cacheWriteTokens: 0 },
        model: "qwen-coder",
      },
    });
    const body = server.requests[0]?.body;
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(body.messages[2].tool_calls[0]).toMatchObject({ id: "call_0", function: { name: "grep", arguments: '{"pattern":"config"}' } });
    expect(body.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_0", content: "src/config.ts:1: x" });
    expect(body.tools[0]).toMatchObject({ type: "function", function: { name: "read_file" } });
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it("retries a server error and a cut stream", async () => {
    server.enqueue({ status: 503 }, { text: "partial text here", cutAfter: 3 }, { text: "whole" });
    const events = await collect(provider().stream(request));
    expect(events.filter((event) => event.type === "retry")).toHaveLength(2);
    const complete = events.at(-1);
    expect(complete?.type === "complete" && complete.response.content).toEqual([{ type: "text", text: "whole" }]);
  });

  it("abandons and retries a stream that stalls mid-way for longer than the timeout", async () => {
    server.enqueue({ text: "an answer that stops coming", stallAfter: 2 }, { text: "whole" });
    const events = await collect(provider({ timeoutMs: 300 }).stream(request));
    expect(events.find((event) => event.type === "retry")).toMatchObject({ reason: expect.stringMatching(/nothing arrived for 0\.3 s/) });
    const complete = events.at(-1);
    expect(complete?.type === "complete" && complete.response.content).toEqual([{ type: "text", text: "whole" }]);
  });

  it("fails at once on a 429 whose retry-after is beyond the cap, and retries one within it", async () => {
    server.enqueue({ status: 429, retryAfterSeconds: 86_400 });
    const started = performance.now();
    const error = await collect(provider().stream(request)).catch((caught: unknown) => caught);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ kind: "rate_limit", retryable: false });
    expect(errorMessage(error)).toMatch(
      /The server asked to retry after 24 h, longer than Sylk waits \(model\.retryMaxDelayMs, 10 ms\); giving up/,
    );
    expect(server.requests).toHaveLength(1);

    server.enqueue({ status: 429, retryAfterSeconds: 1 }, { text: "whole" });
    const events = await collect(provider({ retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 5_000 } }).stream(request));
    expect(events.find((event) => event.type === "retry")).toMatchObject({ delayMs: 1_000 });
    expect(events.at(-1)).toMatchObject({ type: "complete" });
  });

  it("does not retry a rejected key", async () => {
    server.enqueue({ status: 401 });
    await expect(collect(provider().stream(request))).rejects.toMatchObject({ kind: "authentication" });
    expect(server.requests).toHaveLength(1);
  });

  it("drives sylk ask end to end when configured", async () => {
    const project = createTempProject({ "src/config.ts": "export const port = 8080;\n" });
    try {
      project.write(".sylkrc", JSON.stringify({ model: { provider: "openai-compatible", name: "qwen-coder", baseUrl: server.baseUrl } }));
      // A project's own model endpoint applies in a folder the user trusts.
      new FolderTrustStore(project.sylkHome).trust(
        realpathSync(project.root),
        trustGatedProjectSettings(project.root, project.env),
        "test",
      );
      server.enqueue(
        { toolCalls: [{ id: "call_r", name: "read_file", arguments: { path: "src/config.ts" } }] },
        { text: "The port is 8080 (src/config.ts:1)." },
      );
      const run = await runCli(["ask", "--yes", "--output-format", "json", "Which port?"], { cwd: project.root, env: project.env });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ response: "The port is 8080 (src/config.ts:1).", stats: { turns: 2, tool_calls: 1 } });
      const toolMessage = server.requests[1]?.body.messages.find((message: { role: string }) => message.role === "tool");
      expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: "call_r" });
      expect(toolMessage.content).toContain("export const port = 8080;");
    } finally {
      project.cleanup();
    }
  });
});
