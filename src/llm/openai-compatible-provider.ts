import type OpenAI from "openai";
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

export interface OpenAICompatibleProviderOptions {
  apiKey: string;
  model: string;
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), a vLLM or LM Studio server. */
  baseUrl: string;
  contextWindow: number;
  timeoutMs: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
}

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * Any chat-completions server with tool calls, through the official `openai`
 * SDK: streamed deltas, tool calls assembled from their argument fragments,
 * usage (with cached prompt tokens where the server reports them).
 */
export class OpenAICompatibleProvider implements ModelProvider {
  readonly name = "openai-compatible";
  readonly model: string;
  readonly contextWindow: number;
  private readonly retry: RetryPolicy;
  private client: Promise<OpenAI> | undefined;

  constructor(private readonly options: OpenAICompatibleProviderOptions) {
    this.model = options.model;
    this.contextWindow = options.contextWindow;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
  }

  /** The SDK client, made on the first request (see `loadSdk`). */
  private clientFor(): Promise<OpenAI> {
    this.client ??= loadSdk().then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          apiKey: this.options.apiKey,
          baseURL: this.options.baseUrl,
          maxRetries: 0,
          timeout: this.options.timeoutMs,
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        }),
    );
    return this.client;
  }

  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
    return withRetries(
      (attemptSignal) => this.attempt(request, attemptSignal),
      this.retry,
      signal,
      (error) => toModelError(error, this.options.baseUrl),
    );
  }

  /** The models list: the one call every OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio) answers without generating. */
  async probe(signal: AbortSignal): Promise<void> {
    const client = await this.clientFor();
    try {
      await client.models.list({ signal });
    } catch (error) {
      throw toModelError(error, this.options.baseUrl);
    }
  }

  private async *attempt(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
    const client = await this.clientFor();
    // Aborted by the user (signal) or when the stream stalls (see withIdleTimeout).
    const stall = new AbortController();
    const attemptSignal = signal ? AbortSignal.any([signal, stall.signal]) : stall.signal;
    const stream = await client.chat.completions.create(
      {
        model: this.model,
        max_tokens: request.maxTokens,
        messages: toWireMessages(
          request.systemContext ? `${request.system}\n\n${request.systemContext}` : request.system,
          request.messages,
        ),
        ...(request.tools.length > 0
          ? {
              tools: request.tools.map((tool) => ({
                type: "function" as const,
                function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
              })),
            }
          : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: attemptSignal },
    );
    let text = "";
    const calls: Array<{ id: string; name: string; json: string }> = [];
    let finish: string | null = null;
    let usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let model = this.model;
    for await (const chunk of withIdleTimeout(stream as AsyncIterable<Chunk>, this.options.timeoutMs, () => stall.abort())) {
      model = chunk.model || model;
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        usage = {
          inputTokens: chunk.usage.prompt_tokens - cached,
          outputTokens: chunk.usage.completion_tokens,
          cacheReadTokens: cached,
          cacheWriteTokens: 0,
        };
      }
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.delta.content) {
        text += choice.delta.content;
        yield { type: "text_delta", text: choice.delta.content };
      }
      for (const delta of choice.delta.tool_calls ?? []) {
        let call = calls[delta.index];
        if (!call) {
          call = { id: delta.id ?? `call_${delta.index}`, name: delta.function?.name ?? "", json: "" };
          calls[delta.index] = call;
          yield { type: "tool_use_start", id: call.id, name: call.name };
        }
        if (delta.function?.arguments) {
          call.json += delta.function.arguments;
          yield { type: "tool_input_delta", id: call.id, partialJson: delta.function.arguments };
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    if (finish === null) throw new ModelError("The response stream ended without a finish reason.", "connection", true);
    const content: Array<TextBlock | ToolUseBlock> = [];
    if (text) content.push({ type: "text", text });
    for (const call of calls.filter(Boolean)) {
      content.push({ type: "tool_use", id: call.id, name: call.name, input: parseArguments(call.json) });
    }
    const stopReason: StopReason =
      calls.length > 0 ? "tool_use" : finish === "stop" ? "end_turn" : finish === "length" ? "max_tokens" : "other";
    yield { type: "complete", response: { content, stopReason, usage, model } };
  }
}

function parseArguments(json: string): Record<string, unknown> {
  if (json.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { __invalid_json__: json };
  }
}

function toWireMessages(system: string, messages: readonly ChatMessage[]): WireMessage[] {
  const wire: WireMessage[] = [{ role: "system", content: system }];
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      const toolCalls = message.content.flatMap((block) =>
        block.type === "tool_use"
          ? [{ id: block.id, type: "function" as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }]
          : [],
      );
      wire.push({ role: "assistant", content: text || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
      continue;
    }
    // Tool results become `tool` messages; any text in the same user turn follows them.
    for (const block of message.content) {
      if (block.type === "tool_result") {
        wire.push({ role: "tool", tool_call_id: block.toolUseId, content: block.isError ? `Error: ${block.content}` : block.content });
      }
    }
    const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
    if (text) wire.push({ role: "user", content: text });
  }
  return wire;
}

type OpenAISdk = typeof import("openai");
let sdk: OpenAISdk | undefined;

/** The SDK (five hundred modules) is loaded on the first request, not at start-up. */
async function loadSdk(): Promise<OpenAISdk> {
  sdk ??= await import("openai");
  return sdk;
}

function toModelError(error: unknown, url = "the model server"): ModelError {
  if (error instanceof ModelError) return error;
  // SDK errors exist only once a request loaded the SDK.
  const OpenAI = sdk?.default;
  if (!OpenAI) return brokenConnection(error);
  if (error instanceof OpenAI.APIUserAbortError) return new ModelError("The request was cancelled.", "aborted", false);
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new ModelError("The model did not answer in time.", "timeout", true);
  if (error instanceof OpenAI.APIConnectionError) return unreachable(error, url, "OPENAI_BASE_URL or model.baseUrl");
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const { kind, retryable } = classifyStatus(error.status);
    const message =
      kind === "authentication"
        ? `The model server rejected the API key (${error.message}). Set the key in the environment variable named by model.apiKeyEnv.`
        : `The model API answered ${error.status}: ${error.message}`;
    return new ModelError(message, kind, retryable, retryAfterMs(error.headers), error.status);
  }
  return brokenConnection(error);
}

function brokenConnection(error: unknown): ModelError {
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`The connection to the model broke: ${message}`, "connection", true);
}
