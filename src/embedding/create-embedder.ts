import type { EmbeddingConfig } from "../config/schema.js";
import { ConfigError } from "../errors.js";
import type { Embedder } from "./embedder.js";
import { HashingEmbedder } from "./hashing-embedder.js";
import { OpenAICompatibleEmbedder } from "./openai-compatible-embedder.js";

/** The embedder the configuration asks for. The built-in one needs no network and no model. */
export function createEmbedder(config: EmbeddingConfig, env: NodeJS.ProcessEnv = process.env): Embedder {
  switch (config.provider) {
    case "builtin":
      return new HashingEmbedder(config.dimensions);
    case "openai-compatible": {
      if (!config.baseUrl || !config.model) {
        throw new ConfigError('embedding.baseUrl and embedding.model are required when embedding.provider is "openai-compatible".');
      }
      const apiKey = env[config.apiKeyEnv];
      return new OpenAICompatibleEmbedder({
        baseUrl: config.baseUrl,
        model: config.model,
        dimensions: config.dimensions,
        batchSize: config.batchSize,
        timeoutMs: config.timeoutMs,
        ...(apiKey ? { apiKey } : {}),
      });
    }
  }
}
