import type Anthropic from "@anthropic-ai/sdk";
import { classifyStatus, unreachable, ModelError, retryAfterMs } from "./model-errors.js";
import type {
  ChatMessage,
  ModelProvider,
  ModelRequest,
  ModelStreamEvent,
  StopReason,
  TextBlock,
  ToolUseBlock,
  Usage,
} from "./model-types.js";
import { withIdleTimeout } from "./idle-timeout.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from "./retry-policy.js";

export interface AnthropicProviderOptions {
  apiKey: string;
  model: string;
  baseUrl?: string;
  contextWindow: number;
  /** Milliseconds before one request is abandoned (and retried). */
  timeoutMs: number;
  retry?: RetryPolicy;
  /** For tests: a fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

type RawEvent = Anthropic.Messages.RawMessageStreamEvent;
type WireMessage = Anthropic.Messages.MessageParam;
type WireTool = Anthropic.Messages.Tool;

/**
 * Claude through the official SDK: streaming, tool use, usage with cache
 * reads and writes, and prompt caching of the stable prefix (system prompt
 * and tool definitions) plus the conversation so far. The SDK's own retries
 * are off: `withRetries` also covers streams cut mid-way, which the SDK does
 * not retry, and reports every retry as an event.
 */
export class AnthropicProvider implements ModelProvider {
  readonly name = "anthropic";
  readonly model: string;
  readonly contextWindow: number;
  private readonly retry: RetryPolicy;
  private client: Promise<Anthropic> | undefined;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.model = options.model;
    this.contextWindow = options.contextWindow;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  /** The SDK client, made on the first request (see `loadSdk`). */
  private clientFor(): Promise<Anthropic> {
    this.client ??= loadSdk().then(
      ({ default: AnthropicClient }) =>
        new AnthropicClient({
          apiKey: this.options.apiKey,
          maxRetries: 0,
          timeout: this.options.timeoutMs,
          ...(this.options.baseUrl ? { baseURL: this.options.baseUrl } : {}),
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        }),
    );
    return this.client;
  }

  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const url = this.options.baseUrl ?? "https://api.anthropic.com";
    return withRetries(
      (attemptSignal) => this.attempt(request, attemptSignal),
      this.retry,
      signal,
      (error) => toModelError(error, url),
    );
  }

  /** The Messages API's token count: it checks the key and the model name, and no output is generated or billed. */
  async probe(signal: AbortSignal): Promise<void> {
    const client = await this.clientFor();
    try {
      await client.messages.countTokens({ model: this.model, messages: [{ role: "user", content: "ping" }] }, { signal });
    } catch (error) {
      throw toModelError(error, this.options.baseUrl ?? "https://api.anthropic.com");
    }
  }

  private async *attempt(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
    const client = await this.clientFor();
    // Aborted by the user (signal) or when the stream stalls (see withIdleTimeout).
    const stall = new AbortController();
    const attemptSignal = signal ? AbortSignal.any([signal, stall.signal]) : stall.signal;
    const stream = await client.messages.create(
      {
        model: this.model,
        max_tokens: request.maxTokens,
        system: [
          { type: "text", text: request.system, cache_control: { type: "ephemeral" } },
          ...(request.systemContext ? [{ type: "text" as const, text: request.systemContext }] : []),
        ],
        messages: toWireMessages(request.messages),
        tools: toWireTools(request.tools),
        stream: true,
      },
      { signal: attemptSignal },
    );
    const assembler = new ResponseAssembler(this.model);
    for await (const event of withIdleTimeout(stream as AsyncIterable<RawEvent>, this.options.timeoutMs, () => stall.abort())) {
      yield* assembler.accept(event);
    }
    yield { type: "complete", response: assembler.finish() };
  }
}

/** Builds the response from stream events, and says what to stream onward. */
class ResponseAssembler {
  private readonly blocks: Array<TextBlock | (ToolUseBlock & { json: string })> = [];
  private usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private stopReason: StopReason = "other";
  private stopped = false;

  constructor(private model: string) {}

  *accept(event: RawEvent): Generator<ModelStreamEvent> {
    switch (event.type) {
      case "message_start": {
        const usage = event.message.usage;
        this.model = event.message.model;
        this.usage = {
          inputTokens: usage.input_tokens,
          outputTokens: usage.output_tokens,
          cacheReadTokens: usage.cache_read_input_tokens ?? 0,
          cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
        };
        break;
      }
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "text") this.blocks[event.index] = { type: "text", text: block.text };
        else if (block.type === "tool_use") {
          this.blocks[event.index] = { type: "tool_use", id: block.id, name: block.name, input: {}, json: "" };
          yield { type: "tool_use_start", id: block.id, name: block.name };
        }
        break;
      }
      case "content_block_delta": {
        const block = this.blocks[event.index];
        if (event.delta.type === "text_delta" && block?.type === "text") {
          block.text += event.delta.text;
          yield { type: "text_delta", text: event.delta.text };
        } else if (event.delta.type === "input_json_delta" && block?.type === "tool_use") {
          block.json += event.delta.partial_json;
          yield { type: "tool_input_delta", id: block.id, partialJson: event.delta.partial_json };
        }
        break;
      }
      case "content_block_stop": {
        const block = this.blocks[event.index];
        if (block?.type === "tool_use") block.input = parseToolInput(block.json, block.name);
        break;
      }
      case "message_delta": {
        this.stopReason = toStopReason(event.delta.stop_reason);
        this.usage = { ...this.usage, outputTokens: event.usage.output_tokens };
        break;
      }
      case "message_stop":
        this.stopped = true;
        break;
    }
  }

  finish() {
    if (!this.stopped) throw new ModelError("The response stream ended before message_stop.", "connection", true);
    const content = this.blocks
      .filter((block) => block !== undefined)
      .map((block): TextBlock | ToolUseBlock =>
        block.type === "text" ? block : { type: "tool_use", id: block.id, name: block.name, input: block.input },
      )
      .filter((block) => block.type !== "text" || block.text.length > 0);
    return { content, stopReason: this.stopReason, usage: this.usage, model: this.model };
  }
}

function parseToolInput(json: string, name: string): Record<string, unknown> {
  if (json.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    // The registry will answer the model with a correction; keep what arrived.
    return { __invalid_json__: json, __tool__: name };
  }
}

function toStopReason(reason: string | null): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    default:
      return "other";
  }
}

/**
 * Translates the neutral conversation. The last block of the last message
 * carries a cache breakpoint, so each request reuses the cached prefix of the
 * one before (system and tools carry their own).
 */
function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const wire = messages.map(
    (message): WireMessage => ({
      role: message.role,
      // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every block type, which TypeScript checks.
      content: message.content.map((block): Anthropic.Messages.ContentBlockParam => {
        switch (block.type) {
          case "text":
            return { type: "text", text: block.text };
          case "tool_use":
            return { type: "tool_use", id: block.id, name: block.name, input: block.input };
          case "tool_result":
            return { type: "tool_result", tool_use_id: block.toolUseId, content: block.content, is_error: block.isError };
        }
      }),
    }),
  );
  const last = wire[wire.length - 1];
  if (last && Array.isArray(last.content) && last.content.length > 0) {
    const block = last.content[last.content.length - 1] as Anthropic.Messages.ContentBlockParam & {
      cache_control?: { type: "ephemeral" };
    };
    if (block.type === "text" || block.type === "tool_result") block.cache_control = { type: "ephemeral" };
  }
  return wire;
}

function toWireTools(tools: ModelRequest["tools"]): WireTool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as WireTool["input_schema"],
    ...(index === tools.length - 1 ? { cache_control: { type: "ephemeral" as const } } : {}),
  }));
}

type AnthropicSdk = typeof import("@anthropic-ai/sdk");
let sdk: AnthropicSdk | undefined;

/**
 * The SDK is a thousand modules: loaded on the first request, not at start-up,
 * so `sylk` draws its prompt and `sylk search` answers without paying for it.
 */
async function loadSdk(): Promise<AnthropicSdk> {
  sdk ??= await import("@anthropic-ai/sdk");
  return sdk;
}

/** Classifies anything the SDK or the stream throws. */
function toModelError(error: unknown, url = "https://api.anthropic.com"): ModelError {
  if (error instanceof ModelError) return error;
  // SDK errors exist only once a request loaded the SDK.
  const Anthropic = sdk?.default;
  if (!Anthropic) return brokenConnection(error);
  if (error instanceof Anthropic.APIUserAbortError) return new ModelError("The request was cancelled.", "aborted", false);
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new ModelError("The model did not answer in time.", "timeout", true);
  }
  if (error instanceof Anthropic.APIConnectionError) return unreachable(error, url, "ANTHROPIC_BASE_URL or model.baseUrl");
  if (error instanceof Anthropic.APIError && typeof error.status === "number") {
    const { kind, retryable } = classifyStatus(error.status);
    const detail = apiErrorMessage(error);
    const message =
      kind === "authentication"
        ? `The Anthropic API rejected the API key (${detail}). Set ANTHROPIC_API_KEY to a valid key.`
        : `The model API answered ${error.status}: ${detail}`;
    return new ModelError(message, kind, retryable, retryAfterMs(error.headers), error.status);
  }
  return brokenConnection(error);
}

/** A stream cut mid-way surfaces as a plain error ("terminated", socket closed). */
function brokenConnection(error: unknown): ModelError {
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`The connection to the model broke: ${message}`, "connection", true);
}

function apiErrorMessage(error: InstanceType<AnthropicSdk["default"]["APIError"]>): string {
  const body = error.error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? error.message;
}
