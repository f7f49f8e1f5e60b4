import { availableParallelism } from "node:os";
import { SessionRules } from "../agent/permissions/session-rules.js";
import { openAgentSession, type AgentSession, type AgentSessionOptions } from "./session/open-agent-session.js";
import { openProject, type ProjectServices } from "./project-services.js";
import { createScreenReadModel, type ScreenReadModel } from "./screen-read-model.js";
import { loadConfig } from "../config/load-config.js";
import { type BackgroundIndexing, backgroundIndexingOf } from "./background-indexing.js";
import { indexProcessHandOff } from "./index-process.js";
import { Mentions } from "./mentions.js";
import { PromptHistoryStore, type PromptHistory } from "./prompt-history.js";
import { warmIndexSocketPath } from "./warm-index/protocol.js";
import { WarmIndexServer } from "./warm-index/warm-index-server.js";
import type { McpServers } from "../mcp/client/mcp-servers.js";
import { configuredMcpServers } from "../mcp/session/start-mcp-servers.js";

/** A conversation as the screen opens it; the project and the environment are the interactive session's. */
export type ScreenSessionOptions = Pick<AgentSessionOptions, "approver" | "permissionMode" | "model" | "resume">;

export interface InteractiveSession {
  /** The project's services, for the command line around the screen; the screen itself reads `screen`. */
  services: ProjectServices;
  /** What the screen reads of the project. */
  screen: ScreenReadModel;
  /** Opens a conversation in this project. */
  openAgentSession(options: ScreenSessionOptions): AgentSession;
  indexing: BackgroundIndexing;
  /** The prompts typed in this project, across restarts. */
  promptHistory: PromptHistory;
  /** `@` completion: the project's indexed files and definitions. */
  mentions: Mentions;
  /** The MCP servers every conversation of the screen uses, for the screen to start (absent when none is configured). */
  mcp: McpServers | undefined;
  /** Starts serving the warm index to `sylk search` and `sylk ask` beside this session (no-op where it cannot). */
  serveWarmIndex(): Promise<void>;
  /**
   * Loads the vector hot tier on another thread, so the session's searches
   * scan it instead of sqlite-vec once loaded; resolves then (or when it
   * cannot be loaded: the store keeps answering).
   */
  warmVectorsInBackground(): Promise<void>;
  /** Stops the watcher and indexing, saves the full-text index, closes the project. Safe to call twice. */
  shutdown(): Promise<void>;
}

// Where a large pass runs: read by the benchmarks of the hand-off.
export { SEPARATE_INDEX_PROCESS_ABOVE_FILES } from "./first-index-process.js";

/**
 * The TUI's composition root: the project's services and the background
 * indexing that serves them. Shared by `sylk` and the TUI tests, so both
 * start and stop the same way.
 */
export function openInteractiveSession(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  flags?: Record<string, unknown>;
  /** See `SEPARATE_INDEX_PROCESS_ABOVE_FILES` (the default); tests of the separate process set a lower one. */
  separateIndexProcessAbove?: number;
}): InteractiveSession {
  const services = openProject({ root: options.root, env: options.env, flags: withInteractiveDefaults(options), interactive: true });
  const indexing = backgroundIndexingOf(services, indexProcessHandOff(services, options.env, options.separateIndexProcessAbove));
  // The rules typed with /permissions hold until Sylk ends, whichever conversation is open (/clear, /model, /resume).
  const sessionRules = new SessionRules();
  // Started by the screen once its first frame is drawn (`mcp.start()`); each server's tools join when it is ready.
  const mcp = configuredMcpServers(services.loadedConfig.config, options.env, services.paths.root);
  let closing: Promise<void> | undefined;
  let server: Promise<WarmIndexServer | undefined> | undefined;
  return {
    services,
    screen: createScreenReadModel(services, options.env),
    openAgentSession: (sessionOptions) =>
      openAgentSession({ ...sessionOptions, services, env: options.env, sessionRules, ...(mcp ? { mcp } : {}) }),
    mcp,
    indexing,
    promptHistory: new PromptHistoryStore(services.paths.promptHistory),
    mentions: new Mentions(services.paths.root, services.files),
    serveWarmIndex() {
      server ??= WarmIndexServer.start({
        socketPath: warmIndexSocketPath(services.paths),
        root: services.paths.root,
        handlers: {
          codeSearch: ({ query, ...options }) => services.codeSearcher.search(query, options),
          catchUp: () => indexing.catchUp(),
        },
      });
      return server.then(() => undefined);
    },
    warmVectorsInBackground: () => services.codeVectorIndex.warmInBackground(),
    shutdown() {
      closing ??= (async () => {
        try {
          await mcp?.close();
          await (await server)?.close();
          await indexing.close();
          // Folds what this session indexed into the snapshot, so the next start does not re-tokenise it.
          await services.codeFullText.checkpoint();
        } finally {
          await services.close();
        }
      })();
      return closing;
    },
  };
}

/**
 * Worker threads while someone types: one core is left to the thread that
 * draws the screen. With every core parsing, keystrokes waited for the CPU
 * (echo p50 22 ms during a cold index on two cores, 6 ms with one worker).
 * A thread count the user configured wins; `sylk index` uses every core.
 */
function interactiveWorkerThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

function withInteractiveDefaults(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  flags?: Record<string, unknown>;
}): Record<string, unknown> {
  const flags = { ...options.flags };
  if (flags["index.workerThreads"] !== undefined) return flags;
  const { sources } = loadConfig({ projectRoot: options.root, env: options.env });
  if (!sources.has("index.workerThreads")) flags["index.workerThreads"] = interactiveWorkerThreads();
  return flags;
}
