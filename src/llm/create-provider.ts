import { DEFAULT_ANTHROPIC_MODEL, type ModelConfig } from "../config/schema.js";
import { ConfigError } from "../errors.js";
import { AnthropicProvider } from "./anthropic-provider.js";
import { MaskingProvider } from "./masking-provider.js";
import type { ModelProvider } from "./model-types.js";
import { OpenAICompatibleProvider } from "./openai-compatible-provider.js";

export type ProviderChoice = { provider: ModelProvider } | { provider: undefined; reason: string };

const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Context windows of model families, when the configuration does not say. */
const KNOWN_CONTEXT_WINDOWS: ReadonlyArray<[RegExp, number]> = [
  [/^claude-/, 200_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^o\d/, 200_000],
];
const FALLBACK_CONTEXT_WINDOW = 128_000;

export function contextWindowOf(model: string, configured?: number): number {
  return configured ?? KNOWN_CONTEXT_WINDOWS.find(([pattern]) => pattern.test(model))?.[1] ?? FALLBACK_CONTEXT_WINDOW;
}

/**
 * The provider the configuration and environment ask for, or why there is
 * none (then `sylk ask` answers from the index and says so). The API key
 * always comes from the environment, never from a file. Every request it
 * sends has its secrets masked (`MaskingProvider`).
 */
export function createProvider(config: ModelConfig, env: NodeJS.ProcessEnv): ProviderChoice {
  const choice = unmaskedProvider(config, env);
  return choice.provider ? { provider: new MaskingProvider(choice.provider) } : choice;
}

function unmaskedProvider(config: ModelConfig, env: NodeJS.ProcessEnv): ProviderChoice {
  const retry = { maxAttempts: config.maxAttempts, baseDelayMs: config.retryBaseDelayMs, maxDelayMs: config.retryMaxDelayMs };
  switch (config.provider) {
    case "none":
      return { provider: undefined, reason: 'model.provider is "none"' };
    case "anthropic": {
      const keyName = config.apiKeyEnv ?? "ANTHROPIC_API_KEY";
      const apiKey = env[keyName];
      if (!apiKey) return { provider: undefined, reason: `${keyName} is not set` };
      const model = config.name ?? DEFAULT_ANTHROPIC_MODEL;
      const baseUrl = config.baseUrl ?? env.ANTHROPIC_BASE_URL;
      return {
        provider: new AnthropicProvider({
          apiKey,
          model,
          ...(baseUrl ? { baseUrl } : {}),
          contextWindow: contextWindowOf(model, config.contextWindow),
          timeoutMs: config.timeoutMs,
          retry,
        }),
      };
    }
    case "openai-compatible": {
      if (!config.name) throw new ConfigError('model.name is required when model.provider is "openai-compatible".');
      const baseUrl = config.baseUrl ?? env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL;
      const keyName = config.apiKeyEnv ?? "OPENAI_API_KEY";
      const apiKey = env[keyName];
      // Local servers (Ollama, vLLM, LM Studio) take any key; OpenAI itself needs one.
      if (!apiKey && baseUrl === DEFAULT_OPENAI_BASE_URL) return { provider: undefined, reason: `${keyName} is not set` };
      return {
        provider: new OpenAICompatibleProvider({
          apiKey: apiKey ?? "sylk-local",
          model: config.name,
          baseUrl,
          contextWindow: contextWindowOf(config.name, config.contextWindow),
          timeoutMs: config.timeoutMs,
          retry,
        }),
      };
    }
  }
}
