import { isCheckCommand } from "../signals/check-command.js";
import { isCorrection } from "../signals/correction.js";
import type { QualitySignal, SignalCounts } from "./quality-signals.js";

/** What the tracker needs of a tool call and its result (the loop's `ToolRunResult` fits). */
export interface TrackedCall {
  name: string;
  input: unknown;
}

export interface TrackedResult {
  isError?: boolean;
  permission: "allowed" | "approved" | "denied";
  failure?: "edit_miss" | "malformed_input" | "missing_file";
}

const WRITE_TOOLS = new Set(["write_file", "edit_file"]);
/** Turns after an eviction during which fetching it back counts as having needed it. */
const RECALL_TURNS = 3;

/**
 * Counts one agent instance's quality signals turn by turn, from what the
 * loop sees: results of tool calls, how the answer stopped, evictions, the
 * next prompt. It remembers what it must across turns (calls made since the
 * last write, reads still in the window, whether anything was edited), and
 * starts over with a new instance.
 */
export class TurnQualityTracker {
  private counts: SignalCounts = {};
  /** Calls (tool and input) made since the last write, with their turn: the same one again, while its result is in the window, repeats it. */
  private callsSinceWrite = new Map<string, number>();
  /** Whole-file reads still in the window, by path, with the turn that made them. */
  private readsInWindow = new Map<string, number>();
  private edited = false;
  private recentEvictions: Array<{ id: string; turnRange: [number, number]; evictedAt: number }> = [];
  private turn = 0;

  /** A new instance starts with a clean slate: its window holds none of this. */
  reset(): void {
    this.counts = {};
    this.callsSinceWrite.clear();
    this.readsInWindow.clear();
    this.edited = false;
    this.recentEvictions = [];
  }

  startTurn(turn: number): void {
    this.turn = turn;
  }

  /** The user's prompt: a correction counts against the turn it opens (it judges the answer before). */
  prompt(text: string): void {
    if (isCorrection(text)) this.add("user_correction");
  }

  interrupted(): void {
    this.add("interrupted");
  }

  answerStopped(stopReason: string): void {
    if (stopReason === "max_tokens") this.add("truncated_output");
  }

  /**
   * Content left the window: reads and calls from those turns are no longer
   * in it (making them again is no mistake), and fetching it back soon is a sign.
   */
  evicted(reference: { id: string; turnRange: [number, number] }): void {
    const inRange = (turn: number) => turn >= reference.turnRange[0] && turn <= reference.turnRange[1];
    for (const [path, turn] of this.readsInWindow) if (inRange(turn)) this.readsInWindow.delete(path);
    for (const [key, turn] of this.callsSinceWrite) if (inRange(turn)) this.callsSinceWrite.delete(key);
    this.recentEvictions.push({ id: reference.id, turnRange: reference.turnRange, evictedAt: this.turn });
  }

  toolResult(call: TrackedCall, result: TrackedResult): void {
    const input = (call.input ?? {}) as Record<string, unknown>;
    const key = `${call.name}\u0000${stableJson(input)}`;
    const repeated = this.callsSinceWrite.has(key);
    if (repeated) this.add("repeated_call");
    this.callsSinceWrite.set(key, this.turn);

    if (result.failure === "edit_miss") this.add("edit_miss");
    else if (result.failure === "malformed_input") this.add("malformed_input");
    else if (result.permission === "denied") this.add("tool_refused");
    else if (result.isError) {
      if (call.name === "run_command" && this.edited && typeof input.command === "string" && isCheckCommand(input.command)) {
        this.add("check_failed_after_edit");
      } else this.add("tool_failed");
    }

    const path = typeof input.path === "string" ? input.path : undefined;
    if (call.name === "read_file" && path && !result.isError) {
      const wholeFile = (input.offset === undefined || input.offset === 1) && input.limit === undefined;
      if (!repeated && this.readsInWindow.has(path)) this.add("redundant_read");
      if (wholeFile) this.readsInWindow.set(path, this.turn);
    }
    if (WRITE_TOOLS.has(call.name) && !result.isError) {
      this.edited = true;
      this.callsSinceWrite.clear();
      if (path) this.readsInWindow.delete(path);
    }
    if (call.name === "run_command" && !result.isError) {
      // A command may have changed any file: what was read before may be stale, and a repeat is not a repeat.
      this.callsSinceWrite.clear();
      this.readsInWindow.clear();
    }
    if (this.fetchesRecentEviction(call.name, input)) this.add("evicted_recall");
  }

  /** The counts of the turn that just ended; the next turn starts from none. */
  finishTurn(): SignalCounts {
    const counts = this.counts;
    this.counts = {};
    this.recentEvictions = this.recentEvictions.filter((eviction) => this.turn - eviction.evictedAt < RECALL_TURNS);
    return counts;
  }

  private fetchesRecentEviction(tool: string, input: Record<string, unknown>): boolean {
    const recent = this.recentEvictions.filter((eviction) => this.turn - eviction.evictedAt <= RECALL_TURNS);
    if (tool === "retrieve_context" && typeof input.ref_id === "string") return recent.some((eviction) => eviction.id === input.ref_id);
    if (tool === "get_turn_range" && typeof input.from_turn === "number" && typeof input.to_turn === "number") {
      const from = input.from_turn;
      const to = input.to_turn;
      return recent.some((eviction) => from <= eviction.turnRange[1] && to >= eviction.turnRange[0]);
    }
    return false;
  }

  private add(signal: QualitySignal): void {
    this.counts[signal] = (this.counts[signal] ?? 0) + 1;
  }
}

/** JSON with keys sorted, so `{a, b}` and `{b, a}` are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
