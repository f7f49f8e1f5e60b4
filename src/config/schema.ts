import { availableParallelism } from "node:os";
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

// zod's mini build: the classic one's chained methods bring in all of zod, and this
// module is on every command's start-up path (a one-shot search's included).
// Mini has no messages of its own; the classic build sets the same English ones.
z.config(en());

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

const indexSchema = z.strictObject({
  /** Files processed at once; the seed's `NumCPU * 2`. */
  maxConcurrency: z._default(z.int().check(z.minimum(1)), availableParallelism() * 2),
  /** Worker threads parsing files (CPU-bound, so one per core by default). */
  workerThreads: z._default(z.int().check(z.minimum(1)), availableParallelism()),
  /** Files per write transaction. */
  batchSize: z._default(z.int().check(z.minimum(1), z.maximum(10_000)), 100),
  priorityPaths: z._default(z.array(z.string()), DEFAULT_PRIORITY_PATHS),
  excludePaths: z._default(z.array(z.string()), DEFAULT_EXCLUDE_PATHS),
  excludePatterns: z._default(z.array(z.string()), DEFAULT_EXCLUDE_PATTERNS),
  /** Files larger than this many bytes are skipped (seed: 1 MiB). */
  maxFileSize: z._default(z.int().check(z.minimum(1)), 1 << 20),
  respectGitignore: z._default(z.boolean(), true),
  /** Target lines per chunk; symbols larger than this are split. */
  chunkLines: z._default(z.int().check(z.minimum(5), z.maximum(1000)), 45),
});

const embeddingSchema = z.strictObject({
  /**
   * `builtin` works offline with no model download. `openai-compatible`
   * calls any `/v1/embeddings` endpoint (Ollama, vLLM, LM Studio, OpenAI).
   */
  provider: z._default(z.enum(["builtin", "openai-compatible"]), "builtin"),
  model: z.optional(z.string().check(z.minLength(1))),
  baseUrl: z.optional(z.url()),
  /** Name of the environment variable holding the API key (never the key itself). */
  apiKeyEnv: z._default(z.string().check(z.minLength(1)), "OPENAI_API_KEY"),
  dimensions: z._default(z.int().check(z.minimum(8), z.maximum(8192)), 256),
  batchSize: z._default(z.int().check(z.minimum(1), z.maximum(2048)), 64),
  timeoutMs: z._default(z.int().check(z.minimum(100)), 30_000),
}).check(
  z.superRefine((value, ctx) => {
    if (value.provider === "openai-compatible") {
      if (!value.baseUrl) {
        ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "required when provider is openai-compatible" });
      }
      if (!value.model) {
        ctx.addIssue({ code: "custom", path: ["model"], message: "required when provider is openai-compatible" });
      }
    }
  }),
);

const searchSchema = z.strictObject({
  /** Reciprocal Rank Fusion constant (seed: 60). */
  rrfK: z._default(z.int().check(z.minimum(1)), 60),
  defaultLimit: z._default(z.int().check(z.minimum(1), z.maximum(1000)), 10),
  /** Chunks the full-text signal contributes before fusion. */
  candidatesPerSignal: z._default(z.int().check(z.minimum(10), z.maximum(5000)), 200),
  /** Chunks the vector signal contributes (k of the k-NN query; its cost grows with k). */
  vectorCandidates: z._default(z.int().check(z.minimum(10), z.maximum(5000)), 100),
});

/** A current Claude model that the SDK does not mark deprecated. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";

const modelSchema = z.strictObject({
  /**
   * `anthropic` (Claude through the official SDK), `openai-compatible` (any
   * chat-completions server with tool calls: OpenAI, Ollama, vLLM, LM Studio),
   * or `none`: answer from the index only. Without an API key Sylk also
   * answers from the index, and says so.
   */
  provider: z._default(z.enum(["anthropic", "openai-compatible", "none"]), "anthropic"),
  /** Model name; defaults to a current Claude model for `anthropic`. */
  name: z.optional(z.string().check(z.minLength(1))),
  /** Base URL of the API (also ANTHROPIC_BASE_URL for `anthropic`). */
  baseUrl: z.optional(z.url()),
  /** Environment variable with the API key; ANTHROPIC_API_KEY or OPENAI_API_KEY by default. */
  apiKeyEnv: z.optional(z.string().check(z.minLength(1))),
  /** Most tokens one answer may have. */
  maxTokens: z._default(z.int().check(z.minimum(256), z.maximum(128_000)), 16_000),
  /** The model's context window in tokens; known models have a default. */
  contextWindow: z.optional(z.int().check(z.minimum(1_000))),
  /** Milliseconds before one request is abandoned and retried. */
  timeoutMs: z._default(z.int().check(z.minimum(1_000)), 600_000),
  /** Attempts per model call (429, 529, 5xx, dropped connections and cut streams are retried). */
  maxAttempts: z._default(z.int().check(z.minimum(1), z.maximum(20)), 6),
  /** First retry delay; it doubles each attempt (jittered), unless the server says otherwise. */
  retryBaseDelayMs: z._default(z.int().check(z.minimum(1)), 1_000),
  retryMaxDelayMs: z._default(z.int().check(z.minimum(1)), 30_000),
});

const agentSchema = z.strictObject({
  /** Model calls per prompt before the run stops (exit code 53 in `sylk ask`). */
  maxTurns: z._default(z.int().check(z.minimum(1), z.maximum(10_000)), 50),
});

const permissionsSchema = z.strictObject({
  /** default: ask before writes and commands; accept-edits; plan: read-only; bypass: allow all. */
  mode: z._default(z.enum(["default", "accept-edits", "plan", "bypass"]), "default"),
  /** Calls allowed without asking, e.g. "run_command(npm test*)", "edit_file(src/**)". */
  allow: z._default(z.array(z.string().check(z.regex(/^[a-z_]+(\(.*\))?$/, "must look like tool or tool(pattern)"))), []),
  /** Calls always refused; deny wins over allow. */
  deny: z._default(z.array(z.string().check(z.regex(/^[a-z_]+(\(.*\))?$/, "must look like tool or tool(pattern)"))), []),
});

const contextSchema = z.strictObject({
  /** The model's window in tokens, overriding what the provider reports (`--context-window`). */
  windowTokens: z.optional(z.int().check(z.minimum(2_000))),
  /** Evict when the request would fill more than this share of the window... */
  evictAtRatio: z._default(z.number().check(z.minimum(0.1), z.maximum(1)), 0.75),
  /** ...down to this share (no model call: eviction cannot deadlock like compaction). */
  evictToRatio: z._default(z.number().check(z.minimum(0.05), z.maximum(1)), 0.5),
  /** Model calls (turns) whose messages are never evicted. */
  preserveRecentTurns: z._default(z.int().check(z.minimum(0), z.maximum(100)), 3),
  /** recency (librarian, archivalist), topic (academic), task (architect). */
  strategy: z._default(z.enum(["recency", "topic", "task"]), "recency"),
  /** Share of the remaining window that prefetch may fill before the model sees a prompt (seed: 10 %). */
  prefetchBudgetRatio: z._default(z.number().check(z.minimum(0), z.maximum(0.5)), 0.1),
}).check(
  z.refine((value) => value.evictToRatio < value.evictAtRatio, {
    path: ["evictToRatio"],
    message: "must be smaller than evictAtRatio",
  }),
);

export const configSchema = z.strictObject({
  index: z._default(indexSchema, () => indexSchema.parse({})),
  embedding: z._default(embeddingSchema, () => embeddingSchema.parse({})),
  search: z._default(searchSchema, () => searchSchema.parse({})),
  model: z._default(modelSchema, () => modelSchema.parse({})),
  agent: z._default(agentSchema, () => agentSchema.parse({})),
  permissions: z._default(permissionsSchema, () => permissionsSchema.parse({})),
  context: z._default(contextSchema, () => contextSchema.parse({})),
});

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
