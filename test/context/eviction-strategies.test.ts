import { describe, expect, it } from "vitest";
import { AgentContext, type ContextItem } from "../../src/context/agent-context.js";
import { TokenUsagePolicy } from "../../src/context/degradation-policy.js";
import { RecencyEviction } from "../../src/context/eviction/recency-eviction.js";
import { TaskCompletionEviction } from "../../src/context/eviction/task-completion-eviction.js";
import { TopicClusterEviction } from "../../src/context/eviction/topic-cluster-eviction.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { textTermCounts } from "../../src/parsing/term-counts.js";

function item(kind: ContextItem["kind"], turn: number, text: string, tokens = 100): ContextItem {
  const contentTypes: ContextItem["contentTypes"] =
    kind === "prompt"
      ? ["user_prompt"]
      : kind === "answer"
        ? ["agent_response"]
        : kind === "reference"
          ? ["context_reference"]
          : ["agent_response", "tool_call", "tool_result"];
  return { kind, ordinals: [turn * 10], messages: [], entryIds: [`e${turn}`], contentTypes, firstTurn: turn, lastTurn: turn, tokens, text };
}

const context = (items: ContextItem[], currentTurn: number, preserveRecentTurns = 2) =>
  new AgentContext("a", "engineer", "s", items, 10_000, currentTurn, preserveRecentTurns, ["user_prompt"]);

describe("eviction strategies", () => {
  it("recency evicts oldest first, never preserved types or recent turns", () => {
    const items = [
      item("prompt", 1, "p"),
      item("exchange", 1, "a"),
      item("exchange", 2, "b"),
      item("exchange", 3, "c"),
      item("exchange", 9, "d"),
      item("exchange", 10, "e"),
    ];
    const selected = new RecencyEviction().selectForEviction(context(items, 10), 150);
    expect(selected.map((entry) => entry.text)).toEqual(["a", "b"]);
    const all = new RecencyEviction().selectForEviction(context(items, 10), 10_000);
    expect(all.map((entry) => entry.text)).toEqual(["a", "b", "c"]);
  });

  it("task completion evicts finished tasks whole, oldest first, then falls back to recency", () => {
    const items = [
      item("prompt", 1, "fix the bug"),
      item("exchange", 1, "read"),
      item("answer", 2, "fixed it"),
      item("prompt", 3, "now write docs"),
      item("exchange", 3, "reading docs"),
      item("exchange", 4, "still working"),
      item("exchange", 9, "recent"),
    ];
    const strategy = new TaskCompletionEviction();
    const ctx = new AgentContext("a", "architect", "s", items, 10_000, 10, 2, ["plan_workflow"]);
    expect(strategy.selectForEviction(ctx, 250).map((entry) => entry.text)).toEqual(["fix the bug", "read", "fixed it"]);
    expect(strategy.selectForEviction(ctx, 350).map((entry) => entry.text)).toEqual(["fix the bug", "read", "fixed it", "now write docs"]);
    const signalled = [
      item("prompt", 1, "plan"),
      item("exchange", 1, "Plan approved, moving on"),
      item("prompt", 9, "next"),
      item("exchange", 9, "recent"),
    ];
    expect(
      strategy.selectForEviction(new AgentContext("a", "architect", "s", signalled, 10_000, 10, 2, []), 50).map((entry) => entry.text),
    ).toEqual(["plan", "Plan approved, moving on"]);
  });

  it("topic clusters evict whole clusters, concluded ones first", () => {
    const embedder = new HashingEmbedder();
    const strategy = new TopicClusterEviction(
      (text) => embedder.embedCounts(textTermCounts(text)),
      () => 0,
      () => 0,
    );
    const items = [
      item("exchange", 1, "jwt token validation expiry jwt token"),
      item("exchange", 2, "database migration schema tables migration"),
      item("exchange", 3, "jwt token refresh rotation jwt token"),
      item("exchange", 4, "database migration rollback schema. In conclusion, migrations are done"),
      item("exchange", 9, "recent"),
    ];
    const ctx = new AgentContext("a", "academic", "s", items, 10_000, 10, 2, ["research_paper"]);
    expect(
      strategy
        .selectForEviction(ctx, 150)
        .map((entry) => entry.firstTurn)
        .sort(),
    ).toEqual([2, 4]);
    expect(
      strategy
        .selectForEviction(ctx, 350)
        .map((entry) => entry.firstTurn)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
  });
});

describe("TokenUsagePolicy", () => {
  it("evicts above the trigger, down to the target", () => {
    const policy = new TokenUsagePolicy(0.75, 0.5);
    expect(policy.decide({ usedTokens: 7_000, windowTokens: 10_000, currentTurn: 1 })).toEqual({ evict: false, targetTokens: 0 });
    expect(policy.decide({ usedTokens: 8_000, windowTokens: 10_000, currentTurn: 1 })).toEqual({ evict: true, targetTokens: 3_000 });
    expect(() => new TokenUsagePolicy(0.5, 0.6)).toThrow(RangeError);
  });
});
