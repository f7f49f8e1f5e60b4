import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { EVICTION_STRATEGIES } from "../roles/agent-types.js";
import { configDefaults } from "./defaults.js";
import { hooksSchema } from "./hooks-schema.js";
import { mcpServersSchema } from "./mcp-servers-schema.js";
import { PERMISSION_RULE_FORM, PERMISSION_RULE_HINT } from "./permission-rule-form.js";

// zod's mini build: the classic one's chained methods bring in all of zod, and this
// module is on every command's start-up path (a one-shot search's included).
// Mini has no messages of its own; the classic build sets the same English ones.
z.config(en());

export { DEFAULT_ANTHROPIC_MODEL, DEFAULT_EXCLUDE_PATHS, DEFAULT_EXCLUDE_PATTERNS, DEFAULT_PRIORITY_PATHS } from "./defaults.js";

/** Every default below is read from here, so that `configDefaults()` (no zod) and a parse of `{}` agree (a test holds them equal). */
const d = configDefaults();

const indexSchema = z.strictObject({
  /** Files processed at once; by default twice the number of CPUs. */
  maxConcurrency: z._default(z.int().check(z.minimum(1)), d.index.maxConcurrency),
  /** Worker threads parsing files (CPU-bound, so one per core by default; at most two per core, see `machine-limits.ts`). */
  workerThreads: z._default(z.int().check(z.minimum(1)), d.index.workerThreads),
  /** Files per write transaction. */
  batchSize: z._default(z.int().check(z.minimum(1), z.maximum(10_000)), d.index.batchSize),
  priorityPaths: z._default(z.array(z.string()), d.index.priorityPaths),
  excludePaths: z._default(z.array(z.string()), d.index.excludePaths),
  excludePatterns: z._default(z.array(z.string()), d.index.excludePatterns),
  /** Files larger than this many bytes are skipped (default 1 MiB). */
  maxFileSize: z._default(z.int().check(z.minimum(1)), d.index.maxFileSize),
  respectGitignore: z._default(z.boolean(), d.index.respectGitignore),
  /** Target lines per chunk; symbols larger than this are split. */
  chunkLines: z._default(z.int().check(z.minimum(5), z.maximum(1000)), d.index.chunkLines),
});

const embeddingSchema = z
  .strictObject({
    /**
     * `builtin` works offline with no model download. `openai-compatible`
     * calls any `/v1/embeddings` endpoint (Ollama, vLLM, LM Studio, OpenAI).
     */
    provider: z._default(z.enum(["builtin", "openai-compatible"]), d.embedding.provider),
    model: z.optional(z.string().check(z.minLength(1))),
    baseUrl: z.optional(z.url()),
    /** Name of the environment variable holding the API key (never the key itself). */
    apiKeyEnv: z._default(z.string().check(z.minLength(1)), d.embedding.apiKeyEnv),
    dimensions: z._default(z.int().check(z.minimum(8), z.maximum(8192)), d.embedding.dimensions),
    batchSize: z._default(z.int().check(z.minimum(1), z.maximum(2048)), d.embedding.batchSize),
    timeoutMs: z._default(z.int().check(z.minimum(100)), d.embedding.timeoutMs),
  })
  .check(
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
  /** Reciprocal Rank Fusion constant where code and history meet (`sylk search --scope all`; 60, the usual choice); each store fuses its own signals by relative scores. */
  rrfK: z._default(z.int().check(z.minimum(1)), d.search.rrfK),
  defaultLimit: z._default(z.int().check(z.minimum(1), z.maximum(1000)), d.search.defaultLimit),
  /** Chunks the full-text signal contributes before fusion. */
  candidatesPerSignal: z._default(z.int().check(z.minimum(10), z.maximum(5000)), d.search.candidatesPerSignal),
  /** Chunks the vector signal contributes (k of the k-NN query; its cost grows with k). */
  vectorCandidates: z._default(z.int().check(z.minimum(10), z.maximum(5000)), d.search.vectorCandidates),
});

const modelSchema = z.strictObject({
  /**
   * `anthropic` (Claude through the official SDK), `openai-compatible` (any
   * chat-completions server with tool calls: OpenAI, Ollama, vLLM, LM Studio),
   * or `none`: answer from the index only. Without an API key Sylk also
   * answers from the index, and says so.
   */
  provider: z._default(z.enum(["anthropic", "openai-compatible", "none"]), d.model.provider),
  /** Model name; defaults to a current Claude model for `anthropic`. */
  name: z.optional(z.string().check(z.minLength(1))),
  /** Base URL of the API (also ANTHROPIC_BASE_URL for `anthropic`). */
  baseUrl: z.optional(z.url()),
  /** Environment variable with the API key; ANTHROPIC_API_KEY or OPENAI_API_KEY by default. */
  apiKeyEnv: z.optional(z.string().check(z.minLength(1))),
  /** Most tokens one answer may have. */
  maxTokens: z._default(z.int().check(z.minimum(256), z.maximum(128_000)), d.model.maxTokens),
  /** The model's context window in tokens; known models have a default. */
  contextWindow: z.optional(z.int().check(z.minimum(1_000))),
  /** Milliseconds before one request is abandoned and retried: until the answer starts, and between its streamed parts. */
  timeoutMs: z._default(z.int().check(z.minimum(1_000)), d.model.timeoutMs),
  /** Attempts per model call (429, 529, 5xx, dropped connections and cut streams are retried). */
  maxAttempts: z._default(z.int().check(z.minimum(1), z.maximum(20)), d.model.maxAttempts),
  /** First retry delay; it doubles each attempt (jittered), unless the server says otherwise. */
  retryBaseDelayMs: z._default(z.int().check(z.minimum(1)), d.model.retryBaseDelayMs),
  /**
   * The retry cap: the longest wait before one retry. A server that asks for
   * a longer one (`retry-after`) fails the call at once, naming its wait.
   */
  retryMaxDelayMs: z._default(z.int().check(z.minimum(1)), d.model.retryMaxDelayMs),
});

const agentSchema = z.strictObject({
  /** Model calls per prompt before the run stops (exit code 53 in `sylk ask`). */
  maxTurns: z._default(z.int().check(z.minimum(1), z.maximum(10_000)), d.agent.maxTurns),
  /**
   * The agent the user talks to (`--agent`): a built-in type or a custom
   * agent's name, checked against the agents loaded when the session opens
   * (`resolveRole`). Its type decides what a degradation does and which
   * learned profile it starts from.
   */
  type: z._default(z.string().check(z.regex(/^[a-z][a-z0-9-]{0,39}$/, "must be an agent's name: `sylk agents` lists them")), d.agent.type),
});

const agentsSchema = z.strictObject({
  /** Sub-agents one response may run at once (`delegate` and `consult_*` calls of one response). */
  maxParallel: z._default(z.int().check(z.minimum(1), z.maximum(16)), d.agents.maxParallel),
  /** How deep delegation goes: an agent at this depth is built without `delegate` and the `consult_*` tools. */
  maxDepth: z._default(z.int().check(z.minimum(1), z.maximum(5)), d.agents.maxDepth),
  /** Model calls a sub-agent may make for one task. */
  maxTurns: z._default(z.int().check(z.minimum(1), z.maximum(10_000)), d.agents.maxTurns),
  /** A model per agent name (`{"inspector": "claude-haiku-4-5"}`); others use the session's. */
  models: z._default(z.record(z.string().check(z.regex(/^[a-z][a-z0-9:-]{0,47}$/)), z.string().check(z.minLength(1))), () => ({
    ...d.agents.models,
  })),
});

const pipelineSchema = z.strictObject({
  /** Review → fix rounds a pipeline runs while critical or major issues are pending (then what is left is reported). */
  maxFixRounds: z._default(z.int().check(z.minimum(0), z.maximum(10)), d.pipeline.maxFixRounds),
});

const knowledgeSchema = z.strictObject({
  /** Knowledge that lasts across sessions (opt-in). Off, requests are unchanged. */
  enabled: z._default(z.boolean(), d.knowledge.enabled),
  /** Items each context layer may add to the system prompt. */
  maxPerLayer: z._default(z.int().check(z.minimum(1), z.maximum(50)), d.knowledge.maxPerLayer),
  /** Per session, at most this many knowledge saves, learnings and skills (the reserve-slot limits). */
  maxKnowledgePerSession: z._default(z.int().check(z.minimum(0), z.maximum(1_000)), d.knowledge.maxKnowledgePerSession),
  maxLearningsPerSession: z._default(z.int().check(z.minimum(0), z.maximum(1_000)), d.knowledge.maxLearningsPerSession),
  maxSkillsPerSession: z._default(z.int().check(z.minimum(0), z.maximum(1_000)), d.knowledge.maxSkillsPerSession),
});

const observationalMemorySchema = z.strictObject({
  /** Observational memory: compressed notes of long conversations in later requests (off by default). */
  enabled: z._default(z.boolean(), d.observationalMemory.enabled),
  /** The observer's provider and model; empty: the session's. */
  provider: z._default(z.enum(["", "anthropic", "openai-compatible"]), d.observationalMemory.provider),
  model: z._default(z.string(), d.observationalMemory.model),
  /** Un-observed message tokens that start an observation. */
  messageTokenThreshold: z._default(z.int().check(z.minimum(100), z.maximum(1_000_000)), d.observationalMemory.messageTokenThreshold),
  /** Observation tokens that start a reflection. */
  observationTokenThreshold: z._default(
    z.int().check(z.minimum(100), z.maximum(1_000_000)),
    d.observationalMemory.observationTokenThreshold,
  ),
  /** Recent messages kept raw, in tokens. */
  maxMessageTokenBudget: z._default(z.int().check(z.minimum(500), z.maximum(10_000_000)), d.observationalMemory.maxMessageTokenBudget),
  /** Tokens of reflections and observations in a request's Conversation Memory. */
  memoryTokenBudget: z._default(z.int().check(z.minimum(100), z.maximum(200_000)), d.observationalMemory.memoryTokenBudget),
  /** The most recent reflections and observations a request may carry (0: no limit). */
  maxReflectionsInContext: z._default(z.int().check(z.minimum(0), z.maximum(1_000)), d.observationalMemory.maxReflectionsInContext),
  maxObservationsInContext: z._default(z.int().check(z.minimum(0), z.maximum(1_000)), d.observationalMemory.maxObservationsInContext),
});

const handoffSchema = z.strictObject({
  /**
   * Hand a degrading pipeline or standalone agent over to a fresh instance
   * of its type (knowledge agents evict instead). Off: every agent evicts
   * when the controller sees its quality fall.
   */
  enabled: z._default(z.boolean(), d.handoff.enabled),
  /** Quality observations an instance makes before its own curve may trigger anything. */
  burnInTurns: z._default(z.int().check(z.minimum(1), z.maximum(50)), d.handoff.burnInTurns),
  /** Learn from every project of this user too (statistics under $SYLK_HOME), not from this project alone. */
  shareProfiles: z._default(z.boolean(), d.handoff.shareProfiles),
});

const learningSchema = z.strictObject({
  /** Learn the prefetch thresholds and weights from how each prompt went (self-tuning retrieval). Off: the fixed priors. */
  enabled: z._default(z.boolean(), d.learning.enabled),
  /** Each update first multiplies earlier evidence by this: older episodes count less. */
  decayFactor: z._default(z.number().check(z.gt(0.9), z.lte(1)), d.learning.decayFactor),
  /** A sample this many standard deviations from a parameter's mean is an outlier and teaches nothing. */
  outlierThreshold: z._default(z.number().check(z.gt(0)), d.learning.outlierThreshold),
  /** Below this many effective samples updates are damped (cold start). */
  minEffectiveSamples: z._default(z.number().check(z.gte(0)), d.learning.minEffectiveSamples),
  /** Share of the way back to the prior each update drifts. */
  driftRate: z._default(z.number().check(z.gte(0), z.lt(1)), d.learning.driftRate),
  /** Evidence is scaled down past this many effective samples, so a parameter never freezes. */
  maxEffectiveSamples: z._default(z.number().check(z.gt(0)), d.learning.maxEffectiveSamples),
});

const permissionsSchema = z.strictObject({
  /** default: ask before writes and commands; accept-edits; plan: read-only; bypass: allow all. */
  mode: z._default(z.enum(["default", "accept-edits", "plan", "bypass"]), d.permissions.mode),
  /** Calls allowed without asking, e.g. "run_command(npm test*)", "edit_file(src/**)". */
  allow: z._default(
    z.array(z.string().check(z.regex(PERMISSION_RULE_FORM, `must look like ${PERMISSION_RULE_HINT}`))),
    d.permissions.allow,
  ),
  /** Calls asked about every time, even when an allow rule or the mode would allow them; deny wins over ask, ask over allow. */
  ask: z._default(z.array(z.string().check(z.regex(PERMISSION_RULE_FORM, `must look like ${PERMISSION_RULE_HINT}`))), d.permissions.ask),
  /** Calls always refused; deny wins over allow. */
  deny: z._default(z.array(z.string().check(z.regex(PERMISSION_RULE_FORM, `must look like ${PERMISSION_RULE_HINT}`))), d.permissions.deny),
});

const contextSchema = z
  .strictObject({
    /** The model's window in tokens, overriding what the provider reports (`--context-window`). */
    windowTokens: z.optional(z.int().check(z.minimum(2_000))),
    /** Evict when the request would fill more than this share of the window... */
    evictAtRatio: z._default(z.number().check(z.minimum(0.1), z.maximum(1)), d.context.evictAtRatio),
    /** ...down to this share (no model call: eviction cannot deadlock like compaction). */
    evictToRatio: z._default(z.number().check(z.minimum(0.05), z.maximum(1)), d.context.evictToRatio),
    /** Model calls (turns) whose messages are never evicted. */
    preserveRecentTurns: z._default(z.int().check(z.minimum(0), z.maximum(100)), d.context.preserveRecentTurns),
    /**
     * Which turns leave first: recency, topic or task. Unset, the agent type
     * decides (`evictionStrategyOf`): topic for the academic,
     * task for the architect, recency for everyone else.
     */
    strategy: z.optional(z.enum(EVICTION_STRATEGIES)),
    /** Put the most relevant code and history of this session in front of the model with each prompt (one dim line says what). */
    prefetch: z._default(z.boolean(), d.context.prefetch),
    /** Share of the remaining window that prefetch may fill before the model sees a prompt (default 10 %). */
    prefetchBudgetRatio: z._default(z.number().check(z.minimum(0), z.maximum(0.5)), d.context.prefetchBudgetRatio),
  })
  .check(
    z.refine((value) => value.evictToRatio < value.evictAtRatio, {
      path: ["evictToRatio"],
      message: "must be smaller than evictAtRatio",
    }),
  );

/** A path in a sandbox setting: absolute, or from the home directory. */
const sandboxPath = z.string().check(z.regex(/^(~$|~\/|\/)/, "must be an absolute path or start with ~/"));

const sandboxSchema = z.strictObject({
  /**
   * Run `run_command` inside an OS sandbox (bubblewrap on Linux,
   * sandbox-exec on macOS) in every permission mode, bypass included:
   * the project and a temporary directory are writable, everything else is
   * read-only. `--no-sandbox` turns it off for one run.
   */
  enabled: z._default(z.boolean(), d.sandbox.enabled),
  /** Let sandboxed commands reach the network (off by default; `network(<command pattern>)` allow rules open it per command). */
  network: z._default(z.boolean(), d.sandbox.network),
  /** More directories commands may write, e.g. "~/.npm" or "~/.cache/go-build" for build caches. */
  writableDirectories: z._default(z.array(sandboxPath), d.sandbox.writableDirectories),
  /**
   * More files and directories commands cannot read, besides `$SYLK_HOME`
   * and the usual credential places (`~/.ssh`, `~/.aws`, `~/.npmrc`, …),
   * which are always hidden.
   */
  denyRead: z._default(z.array(sandboxPath), d.sandbox.denyRead),
});

const mcpSchema = z.strictObject({
  /** How long a server may take to connect and list its tools before it is marked failed (`sylk ask` waits at most this before its first request). */
  startupTimeoutMs: z._default(z.int().check(z.minimum(100)), d.mcp.startupTimeoutMs),
  /** An MCP tool call that takes longer is cancelled and answered as failed. */
  toolTimeoutMs: z._default(z.int().check(z.minimum(100)), d.mcp.toolTimeoutMs),
  /** Past this, an MCP tool's output is stored and the model gets its beginning and a [CTX-REF:…] marker. */
  maxOutputTokens: z._default(z.int().check(z.minimum(200), z.maximum(100_000)), d.mcp.maxOutputTokens),
});

export const configSchema = z.strictObject({
  index: z._default(indexSchema, () => indexSchema.parse({})),
  embedding: z._default(embeddingSchema, () => embeddingSchema.parse({})),
  search: z._default(searchSchema, () => searchSchema.parse({})),
  model: z._default(modelSchema, () => modelSchema.parse({})),
  agent: z._default(agentSchema, () => agentSchema.parse({})),
  agents: z._default(agentsSchema, () => agentsSchema.parse({})),
  pipeline: z._default(pipelineSchema, () => pipelineSchema.parse({})),
  knowledge: z._default(knowledgeSchema, () => knowledgeSchema.parse({})),
  observationalMemory: z._default(observationalMemorySchema, () => observationalMemorySchema.parse({})),
  permissions: z._default(permissionsSchema, () => permissionsSchema.parse({})),
  context: z._default(contextSchema, () => contextSchema.parse({})),
  sandbox: z._default(sandboxSchema, () => sandboxSchema.parse({})),
  handoff: z._default(handoffSchema, () => handoffSchema.parse({})),
  learning: z._default(learningSchema, () => learningSchema.parse({})),
  /** Commands run at the agent's events (Claude Code's shape); each layer's hooks add up (see `hook-layers.ts`). */
  hooks: z._default(hooksSchema, () => ({ ...d.hooks })),
  mcp: z._default(mcpSchema, () => mcpSchema.parse({})),
  /** MCP servers by name, in the shape Claude Code and others use (`src/config/mcp-servers-schema.ts`). */
  mcpServers: z._default(mcpServersSchema, () => ({})),
});

export type SylkConfig = z.infer<typeof configSchema>;
export type IndexConfig = SylkConfig["index"];
export type EmbeddingConfig = SylkConfig["embedding"];
export type SearchConfig = SylkConfig["search"];
export type ModelConfig = SylkConfig["model"];
export type ContextConfig = SylkConfig["context"];
export type SandboxConfig = SylkConfig["sandbox"];
export type HandoffConfig = SylkConfig["handoff"];
export type LearningConfig = SylkConfig["learning"];
export type McpConfig = SylkConfig["mcp"];

export function defaultConfig(): SylkConfig {
  return configSchema.parse({});
}
