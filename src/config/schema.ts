import { availableParallelism } from "node:os";
import * as z from "zod";

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

/** A current Claude model that the SDK does not mark deprecated. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";

const modelSchema = z
  .object({
    /**
     * `anthropic` (Claude through the official SDK), `openai-compatible` (any
     * chat-completions server with tool calls: OpenAI, Ollama, vLLM, LM Studio),
     * or `none`: answer from the index only. Without an API key Sylk also
     * answers from the index, and says so.
     */
    provider: z.enum(["anthropic", "openai-compatible", "none"]).default("anthropic"),
    /** Model name; defaults to a current Claude model for `anthropic`. */
    name: z.string().min(1).optional(),
    /** Base URL of the API (also ANTHROPIC_BASE_URL for `anthropic`). */
    baseUrl: z.url().optional(),
    /** Environment variable with the API key; ANTHROPIC_API_KEY or OPENAI_API_KEY by default. */
    apiKeyEnv: z.string().min(1).optional(),
    /** Most tokens one answer may have. */
    maxTokens: z.number().int().min(256).max(128_000).default(16_000),
    /** The model's context window in tokens; known models have a default. */
    contextWindow: z.number().int().min(1_000).optional(),
    /** Milliseconds before one request is abandoned and retried. */
    timeoutMs: z.number().int().min(1_000).default(600_000),
    /** Attempts per model call (429, 529, 5xx, dropped connections and cut streams are retried). */
    maxAttempts: z.number().int().min(1).max(20).default(6),
    /** First retry delay; it doubles each attempt (jittered), unless the server says otherwise. */
    retryBaseDelayMs: z.number().int().min(1).default(1_000),
    retryMaxDelayMs: z.number().int().min(1).default(30_000),
  })
  .strict();

const agentSchema = z
  .object({
    /** Model calls per prompt before the run stops (exit code 53 in `sylk ask`). */
    maxTurns: z.number().int().min(1).max(10_000).default(50),
  })
  .strict();

const permissionsSchema = z
  .object({
    /** default: ask before writes and commands; accept-edits; plan: read-only; bypass: allow all. */
    mode: z.enum(["default", "accept-edits", "plan", "bypass"]).default("default"),
    /** Calls allowed without asking, e.g. "run_command(npm test*)", "edit_file(src/**)". */
    allow: z.array(z.string().regex(/^[a-z_]+(\(.*\))?$/, "must look like tool or tool(pattern)")).default([]),
    /** Calls always refused; deny wins over allow. */
    deny: z.array(z.string().regex(/^[a-z_]+(\(.*\))?$/, "must look like tool or tool(pattern)")).default([]),
  })
  .strict();

const contextSchema = z
  .object({
    /** The model's window in tokens, overriding what the provider reports (`--context-window`). */
    windowTokens: z.number().int().min(2_000).optional(),
    /** Evict when the request would fill more than this share of the window... */
    evictAtRatio: z.number().min(0.1).max(1).default(0.75),
    /** ...down to this share (no model call: eviction cannot deadlock like compaction). */
    evictToRatio: z.number().min(0.05).max(1).default(0.5),
    /** Model calls (turns) whose messages are never evicted. */
    preserveRecentTurns: z.number().int().min(0).max(100).default(3),
    /** recency (librarian, archivalist), topic (academic), task (architect). */
    strategy: z.enum(["recency", "topic", "task"]).default("recency"),
    /** Share of the remaining window that prefetch may fill before the model sees a prompt (seed: 10 %). */
    prefetchBudgetRatio: z.number().min(0).max(0.5).default(0.1),
  })
  .strict()
  .refine((value) => value.evictToRatio < value.evictAtRatio, {
    path: ["evictToRatio"],
    message: "must be smaller than evictAtRatio",
  });

export const configSchema = z
  .object({
    index: indexSchema.default(() => indexSchema.parse({})),
    embedding: embeddingSchema.default(() => embeddingSchema.parse({})),
    search: searchSchema.default(() => searchSchema.parse({})),
    model: modelSchema.default(() => modelSchema.parse({})),
    agent: agentSchema.default(() => agentSchema.parse({})),
    permissions: permissionsSchema.default(() => permissionsSchema.parse({})),
    context: contextSchema.default(() => contextSchema.parse({})),
  })
  .strict();

export type SylkConfig = z.infer<typeof configSchema>;
export type IndexConfig = SylkConfig["index"];
export type EmbeddingConfig = SylkConfig["embedding"];
export type SearchConfig = SylkConfig["search"];
export type ModelConfig = SylkConfig["model"];
export type AgentConfig = SylkConfig["agent"];
export type PermissionsConfig = SylkConfig["permissions"];
export type ContextConfig = SylkConfig["context"];

export function defaultConfig(): SylkConfig {
  return configSchema.parse({});
}
