import { availableParallelism } from "node:os";
import { z } from "zod";

/**
 * Defaults of the startup indexer, exactly as seed 002 "Startup Indexer"
 * (`DefaultStartupConfig`) gives them.
 */
export const DEFAULT_PRIORITY_PATHS = [
  "cmd/",
  "src/",
  "lib/",
  "pkg/",
  "internal/",
  "core/",
  "app/",
  "components/",
  "services/",
  "handlers/",
];

export const DEFAULT_EXCLUDE_PATHS = [
  ".git",
  "node_modules",
  "vendor",
  "__pycache__",
  ".next",
  "dist",
  "build",
  "target",
  ".cache",
  "coverage",
];

export const DEFAULT_EXCLUDE_PATTERNS = [
  "*.min.js",
  "*.min.css",
  "*.map",
  "*.lock",
  "*.sum",
  "package-lock.json",
  "yarn.lock",
  "pnpm-lock.yaml",
];

const indexSchema = z
  .object({
    /** Files processed at once; the seed's `NumCPU * 2`. */
    maxConcurrency: z.number().int().min(1).default(availableParallelism() * 2),
    /** Worker threads parsing files (CPU-bound, so one per core by default). */
    workerThreads: z.number().int().min(1).default(availableParallelism()),
    /** Files per write transaction. */
    batchSize: z.number().int().min(1).max(10_000).default(100),
    priorityPaths: z.array(z.string()).default(DEFAULT_PRIORITY_PATHS),
    excludePaths: z.array(z.string()).default(DEFAULT_EXCLUDE_PATHS),
    excludePatterns: z.array(z.string()).default(DEFAULT_EXCLUDE_PATTERNS),
    /** Files larger than this many bytes are skipped (seed: 1 MiB). */
    maxFileSize: z.number().int().min(1).default(1 << 20),
    respectGitignore: z.boolean().default(true),
    /** Target lines per chunk; symbols larger than this are split. */
    chunkLines: z.number().int().min(5).max(1000).default(45),
  })
  .strict();

const embeddingSchema = z
  .object({
    /**
     * `builtin` works offline with no model download. `openai-compatible`
     * calls any `/v1/embeddings` endpoint (Ollama, vLLM, LM Studio, OpenAI).
     */
    provider: z.enum(["builtin", "openai-compatible"]).default("builtin"),
    model: z.string().min(1).optional(),
    baseUrl: z.url().optional(),
    /** Name of the environment variable holding the API key (never the key itself). */
    apiKeyEnv: z.string().min(1).default("OPENAI_API_KEY"),
    dimensions: z.number().int().min(8).max(8192).default(256),
    batchSize: z.number().int().min(1).max(2048).default(64),
    timeoutMs: z.number().int().min(100).default(30_000),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.provider === "openai-compatible") {
      if (!value.baseUrl) {
        ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "required when provider is openai-compatible" });
      }
      if (!value.model) {
        ctx.addIssue({ code: "custom", path: ["model"], message: "required when provider is openai-compatible" });
      }
    }
  });

const searchSchema = z
  .object({
    /** Reciprocal Rank Fusion constant (seed: 60). */
    rrfK: z.number().int().min(1).default(60),
    defaultLimit: z.number().int().min(1).max(1000).default(10),
    /** Chunks the full-text signal contributes before fusion. */
    candidatesPerSignal: z.number().int().min(10).max(5000).default(200),
    /** Chunks the vector signal contributes (k of the k-NN query; its cost grows with k). */
    vectorCandidates: z.number().int().min(10).max(5000).default(100),
  })
  .strict();

export const configSchema = z
  .object({
    index: indexSchema.default(() => indexSchema.parse({})),
    embedding: embeddingSchema.default(() => embeddingSchema.parse({})),
    search: searchSchema.default(() => searchSchema.parse({})),
  })
  .strict();

export type SylkConfig = z.infer<typeof configSchema>;
export type IndexConfig = SylkConfig["index"];
export type EmbeddingConfig = SylkConfig["embedding"];
export type SearchConfig = SylkConfig["search"];

export function defaultConfig(): SylkConfig {
  return configSchema.parse({});
}
