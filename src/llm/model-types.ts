/**
 * The provider-neutral conversation: what the agent loop sends and gets back,
 * whichever model answers. Close to the Anthropic Messages API (the richest
 * of the APIs Sylk speaks); providers translate at their edge.
 */

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  content: string;
  isError: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export interface ChatMessage {
  role: "user" | "assistant";
  content: ContentBlock[];
}

export interface ToolSpecification {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  /** The stable prefix: cached by providers that can (Anthropic prompt caching). */
  system: string;
  /**
   * What follows the prefix for this request only (knowledge and memory
   * retrieved for the prompt): sent after it, outside the cached part, so
   * the prefix's cache still hits.
   */
  systemContext?: string;
  messages: ChatMessage[];
  tools: ToolSpecification[];
  maxTokens: number;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "other";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt-cache reads (billed cheaper). */
  cacheReadTokens: number;
  /** Prompt-cache writes. */
  cacheWriteTokens: number;
}

export const EMPTY_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export interface ModelResponse {
  content: Array<TextBlock | ToolUseBlock>;
  stopReason: StopReason;
  usage: Usage;
  model: string;
}

/** What a provider streams while it answers; exactly one `complete` ends a successful stream. */
export type ModelStreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "tool_use_start"; id: string; name: string }
  | { type: "tool_input_delta"; id: string; partialJson: string }
  /** The attempt failed before completing; another starts after `delayMs`. Discard partial output. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "complete"; response: ModelResponse };

/** A narrow interface; logging, recording and context injection wrap it, they don't live in it. */
export interface ModelProvider {
  readonly name: string;
  readonly model: string;
  /** Tokens the model can take in one request. */
  readonly contextWindow: number;
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent>;
  /**
   * One cheap request that proves the model answers with this key and
   * endpoint, generating nothing (`sylk doctor`); rejects with a `ModelError`
   * that says what went wrong. Absent where a provider has no such call.
   */
  probe?(signal: AbortSignal): Promise<void>;
}
