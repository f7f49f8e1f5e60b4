import type { Prefetcher } from "../../context/prefetch/create-prefetcher.js";
import type { VirtualContextManager } from "../../context/virtual-context-manager.js";
import type { ModelProvider } from "../../llm/model-types.js";
import type { TokenCounter } from "../../llm/token-counter.js";
import type { QualityHooks } from "../quality-hooks.js";
import type { SessionRecorder } from "../session-recorder.js";
import type { ToolContext } from "../tools/tool.js";
import type { ToolRegistry } from "../tools/tool-registry.js";

export interface AgentLoopDeps {
  provider: ModelProvider;
  tools: ToolRegistry;
  toolContext: Omit<ToolContext, "signal">;
  recorder: SessionRecorder;
  systemPrompt: string;
  /**
   * The context-aware part of the request, as a hook of the loop: what the
   * prompt's knowledge and memory add after the system prompt, asked before
   * each model call (the window counts it). Undefined or empty: nothing.
   */
  systemContextFor?: (prompt: string, lastError?: string) => Promise<string | undefined>;
  maxTurns: number;
  /** Most output tokens per call; the window always keeps room for them. */
  maxTokens: number;
  tokenCounter: TokenCounter;
  /** Builds each request's window, evicting to references when needed. */
  contextManager: VirtualContextManager;
  /** Puts relevant code and history in front of the model before it asks (absent: no prefetch). */
  prefetcher?: Prefetcher;
  /** A write tool changed a file (for the checkpoints /undo restores), with the prompt and call it answered. */
  onFileWrite?: (where: { promptTurn: number; toolUseId: string }, write: FileWrite) => void;
  /** The handoff controller: told what each turn did, asked before each model call for a plan, which the loop applies. */
  quality?: QualityHooks;
  /** Concurrent calls (sub-agents) of one response that may run at once (`agents.maxParallel`; default 1). */
  maxParallel?: number;
  /** The user's `Stop` hooks (`SubagentStop` in a sub-agent's session): asked when an answer would end the run. */
  stopHooks?: StopHooks;
}

/** What the loop asks the user's hooks when the model ends its answer without calling a tool. */
export interface StopHooks {
  /** `blocked`: the hook's reason, which keeps the agent working. `stopHookActive`: a hook already kept this run going. */
  stop(input: { lastMessage: string; stopHookActive: boolean }, signal: AbortSignal): Promise<{ blocked?: string }>;
}

export type FileWrite = Parameters<NonNullable<ToolContext["recordWrite"]>>[0];
