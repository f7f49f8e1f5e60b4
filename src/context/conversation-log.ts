import type { SessionMessageRow } from "../store/session-repository.js";

/**
 * The conversation a window is built from, as the context manager sees it:
 * the stored messages in order (each with the reference that evicted it, if
 * any), the turn the conversation has reached, and the one change the window
 * makes to it, recording an eviction. The session recorder implements it;
 * the window knows nothing else of the agent that records.
 */
export interface ConversationLog {
  readonly sessionId: string;
  readonly currentTurn: number;
  rows(): readonly SessionMessageRow[];
  /**
   * Records that a reference replaced these messages in the window, in the
   * caller's transaction (the reference is stored in the same one).
   */
  markEvicted(ordinals: readonly number[], referenceId: string): void;
}
