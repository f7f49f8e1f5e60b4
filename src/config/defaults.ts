import { availableParallelism } from "node:os";
import { DEFAULT_AGENT_TYPE } from "../roles/agent-types.js";

/**
 * The configuration's defaults, without zod: the schema (`schema.ts`) reads
 * its defaults from here, and a process with nothing configured uses them
 * without loading zod at all (`unconfigured.ts`). A test holds
 * `configDefaults()` equal to a parse of `{}`.
 */

export const CONFIG_FILE_NAME = ".sylkrc";

/**
 * Defaults of the startup indexer: the directories indexed first and the
 * directories and patterns never indexed.
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

/** A current Claude model that the SDK does not mark deprecated. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";

/** Every setting that has a default (what each one means: `schema.ts`). */
export function configDefaults() {
  return {
    index: {
      maxConcurrency: availableParallelism() * 2,
      workerThreads: availableParallelism(),
      batchSize: 100,
      priorityPaths: DEFAULT_PRIORITY_PATHS,
      excludePaths: DEFAULT_EXCLUDE_PATHS,
      excludePatterns: DEFAULT_EXCLUDE_PATTERNS,
      maxFileSize: 1 << 20,
      respectGitignore: true,
      chunkLines: 45,
    },
    embedding: {
      provider: "builtin" as const,
      apiKeyEnv: "OPENAI_API_KEY",
      dimensions: 256,
      batchSize: 64,
      timeoutMs: 30_000,
    },
    search: {
      rrfK: 60,
      defaultLimit: 10,
      candidatesPerSignal: 200,
      vectorCandidates: 100,
    },
    model: {
      provider: "anthropic" as const,
      maxTokens: 16_000,
      timeoutMs: 600_000,
      maxAttempts: 6,
      retryBaseDelayMs: 1_000,
      retryMaxDelayMs: 60_000,
    },
    agent: {
      maxTurns: 50,
      type: DEFAULT_AGENT_TYPE,
    },
    agents: {
      maxParallel: 4,
      maxDepth: 2,
      maxTurns: 30,
      models: {} as Record<string, string>,
    },
    pipeline: {
      maxFixRounds: 2,
    },
    knowledge: {
      enabled: false,
      maxPerLayer: 5,
      maxKnowledgePerSession: 20,
      maxLearningsPerSession: 10,
      maxSkillsPerSession: 5,
    },
    observationalMemory: {
      enabled: false,
      provider: "" as "" | "anthropic" | "openai-compatible",
      model: "",
      messageTokenThreshold: 1_000,
      observationTokenThreshold: 2_000,
      maxMessageTokenBudget: 8_000,
      memoryTokenBudget: 4_000,
      maxReflectionsInContext: 5,
      maxObservationsInContext: 20,
    },
    permissions: {
      mode: "default" as const,
      allow: [] as string[],
      ask: [] as string[],
      deny: [] as string[],
    },
    context: {
      evictAtRatio: 0.75,
      evictToRatio: 0.5,
      preserveRecentTurns: 3,
      prefetch: true,
      prefetchBudgetRatio: 0.1,
    },
    sandbox: {
      enabled: true,
      network: false,
      writableDirectories: [] as string[],
      denyRead: [] as string[],
    },
    handoff: {
      enabled: true,
      burnInTurns: 3,
      shareProfiles: true,
    },
    mcp: {
      startupTimeoutMs: 10_000,
      toolTimeoutMs: 60_000,
      maxOutputTokens: 8_000,
    },
    mcpServers: {} as Record<string, never>,
    learning: {
      enabled: true,
      decayFactor: 0.999,
      outlierThreshold: 3,
      minEffectiveSamples: 10,
      driftRate: 0.001,
      maxEffectiveSamples: 200,
    },
    /** None: a hook is what the user (or a trusted project) configures. */
    hooks: {},
  };
}
