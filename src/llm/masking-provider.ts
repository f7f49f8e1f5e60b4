import { maskSecretsIn } from "../security/mask-values.js";
import { maskSecrets } from "../security/secrets.js";
import type { ContentBlock, ModelProvider, ModelRequest, ModelStreamEvent } from "./model-types.js";

/**
 * A decorator over every model Sylk talks to (`createProvider` returns its
 * models wrapped in it): a request's system prompt, its per-request context
 * and each block of its messages have their secrets masked before they
 * leave, whoever built the request (the agent loop, a sub-agent, the
 * observer) and wherever its text came from (a session stored before
 * masking, a marker, a handoff's preamble). The answer comes back as the
 * model gave it: the caller records it masked and runs its tool calls with
 * the real input.
 */
export class MaskingProvider implements ModelProvider {
  /**
   * Each block masked once, not once per request: a conversation's blocks are
   * never changed once made, and every request sends the whole window again.
   */
  private readonly maskedBlocks = new WeakMap<ContentBlock, ContentBlock>();
  private system: { raw: string; masked: string } | undefined;

  constructor(private readonly inner: ModelProvider) {}

  get name(): string {
    return this.inner.name;
  }

  get model(): string {
    return this.inner.model;
  }

  get contextWindow(): number {
    return this.inner.contextWindow;
  }

  /** Forwarded as it is: a probe sends no conversation. */
  get probe(): ModelProvider["probe"] {
    return this.inner.probe?.bind(this.inner);
  }

  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
    return this.inner.stream(this.masked(request), signal);
  }

  private masked(request: ModelRequest): ModelRequest {
    if (this.system?.raw !== request.system) this.system = { raw: request.system, masked: maskSecrets(request.system).text };
    return {
      ...request,
      system: this.system.masked,
      ...(request.systemContext !== undefined ? { systemContext: maskSecrets(request.systemContext).text } : {}),
      messages: request.messages.map((message) => ({ ...message, content: message.content.map((block) => this.maskedBlock(block)) })),
    };
  }

  private maskedBlock(block: ContentBlock): ContentBlock {
    let masked = this.maskedBlocks.get(block);
    if (!masked) {
      masked = maskSecretsIn(block).value;
      this.maskedBlocks.set(block, masked);
    }
    return masked;
  }
}
