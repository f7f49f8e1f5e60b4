import { describe, expect, it } from "vitest";
import { qualityOf, SIGNAL_WEIGHTS } from "../../src/handoff/quality-signals.js";
import { TurnQualityTracker } from "../../src/handoff/turn-quality-tracker.js";

describe("qualityOf", () => {
  it("is 1 for a clean turn and multiplies what is left for each mistake", () => {
    expect(qualityOf({})).toBe(1);
    expect(qualityOf({ edit_miss: 1 })).toBeCloseTo(1 - SIGNAL_WEIGHTS.edit_miss, 12);
    expect(qualityOf({ edit_miss: 2, tool_failed: 1 })).toBeCloseTo(0.7 * 0.7 * 0.85, 12);
  });

  it("stays in (0, 1] however many mistakes a turn makes", () => {
    const worst = qualityOf({ edit_miss: 50, malformed_input: 50, repeated_call: 50 });
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(1e-6);
  });
});

describe("TurnQualityTracker", () => {
  const ok = { permission: "allowed" as const };
  const failed = { permission: "allowed" as const, isError: true };

  it("counts each kind of failed call once, by what went wrong", () => {
    const tracker = new TurnQualityTracker();
    tracker.startTurn(1);
    tracker.toolResult(
      { name: "edit_file", input: { path: "a.ts", old_string: "x", new_string: "y" } },
      { ...failed, failure: "edit_miss" },
    );
    tracker.toolResult({ name: "read_file", input: { path: "gone.ts" } }, { ...failed, failure: "missing_file" });
    tracker.toolResult({ name: "nope", input: {} }, { ...failed, failure: "malformed_input" });
    tracker.toolResult({ name: "run_command", input: { command: "rm -rf /" } }, { permission: "denied", isError: true });
    expect(tracker.finishTurn()).toEqual({ edit_miss: 1, tool_failed: 1, malformed_input: 1, tool_refused: 1 });
    expect(tracker.finishTurn()).toEqual({});
  });

  it("counts the same call with the same input as a repeat until something is written", () => {
    const tracker = new TurnQualityTracker();
    tracker.startTurn(1);
    tracker.toolResult({ name: "grep", input: { pattern: "foo", path: "src" } }, ok);
    tracker.toolResult({ name: "grep", input: { path: "src", pattern: "foo" } }, ok);
    expect(tracker.finishTurn()).toEqual({ repeated_call: 1 });
    tracker.startTurn(2);
    tracker.toolResult({ name: "write_file", input: { path: "b.ts", content: "x" } }, ok);
    tracker.toolResult({ name: "grep", input: { pattern: "foo", path: "src" } }, ok);
    expect(tracker.finishTurn()).toEqual({});
  });

  it("does not count a call repeated after its result left the window", () => {
    const tracker = new TurnQualityTracker();
    tracker.startTurn(1);
    tracker.toolResult({ name: "grep", input: { pattern: "foo" } }, ok);
    tracker.finishTurn();
    tracker.evicted({ id: "r1", turnRange: [1, 1] });
    tracker.startTurn(9);
    tracker.toolResult({ name: "grep", input: { pattern: "foo" } }, ok);
    expect(tracker.finishTurn()).toEqual({});
  });

  it("counts a read of a file already in the window, unless it changed or left the window", () => {
    const tracker = new TurnQualityTracker();
    tracker.startTurn(1);
    tracker.toolResult({ name: "read_file", input: { path: "a.ts" } }, ok);
    tracker.startTurn(2);
    tracker.toolResult({ name: "read_file", input: { path: "a.ts", offset: 10 } }, ok);
    expect(tracker.finishTurn()).toEqual({ redundant_read: 1 });
    tracker.startTurn(3);
    tracker.toolResult({ name: "edit_file", input: { path: "a.ts", old_string: "a", new_string: "b" } }, ok);
    tracker.toolResult({ name: "read_file", input: { path: "a.ts" } }, ok);
    expect(tracker.finishTurn()).toEqual({});
    tracker.evicted({ id: "r1", turnRange: [1, 3] });
    tracker.startTurn(4);
    tracker.toolResult({ name: "read_file", input: { path: "a.ts", offset: 5 } }, ok);
    expect(tracker.finishTurn()).toEqual({});
  });

  it("counts a failing build or test only after an edit", () => {
    const tracker = new TurnQualityTracker();
    tracker.startTurn(1);
    tracker.toolResult({ name: "run_command", input: { command: "npm test" } }, failed);
    expect(tracker.finishTurn()).toEqual({ tool_failed: 1 });
    tracker.startTurn(2);
    tracker.toolResult({ name: "edit_file", input: { path: "a.ts", old_string: "a", new_string: "b" } }, ok);
    tracker.toolResult({ name: "run_command", input: { command: "npm test" } }, failed);
    expect(tracker.finishTurn()).toEqual({ check_failed_after_edit: 1 });
  });

  it("counts fetching back what was evicted moments before, not long after", () => {
    const tracker = new TurnQualityTracker();
    tracker.startTurn(5);
    tracker.evicted({ id: "abcd1234", turnRange: [1, 3] });
    tracker.startTurn(6);
    tracker.toolResult({ name: "retrieve_context", input: { ref_id: "abcd1234" } }, ok);
    tracker.toolResult({ name: "get_turn_range", input: { from_turn: 2, to_turn: 2 } }, ok);
    expect(tracker.finishTurn()).toEqual({ evicted_recall: 2 });
    tracker.startTurn(12);
    tracker.toolResult({ name: "retrieve_context", input: { ref_id: "abcd1234", max_tokens: 500 } }, ok);
    expect(tracker.finishTurn()).toEqual({});
  });

  it("counts corrections, interruptions and cut answers, and forgets everything on reset", () => {
    const tracker = new TurnQualityTracker();
    tracker.prompt("no, I said the other one");
    tracker.startTurn(1);
    tracker.answerStopped("max_tokens");
    tracker.interrupted();
    expect(tracker.finishTurn()).toEqual({ user_correction: 1, truncated_output: 1, interrupted: 1 });
    tracker.toolResult({ name: "grep", input: { pattern: "x" } }, ok);
    tracker.reset();
    tracker.toolResult({ name: "grep", input: { pattern: "x" } }, ok);
    expect(tracker.finishTurn()).toEqual({});
  });
});
