import { describe, expect, it } from "vitest";
import { MAX_WORKFLOW_CHARS, workflowBlock } from "../../src/team/workflow-block.js";

describe("the orchestrator's [WORKFLOW] block", () => {
  it("outside a pipeline holds the task list, or says there is none", () => {
    expect(workflowBlock({ kind: "tasks", tasks: [] })).toBe("[WORKFLOW · no task list yet: keep one with todo_write]");
    expect(
      workflowBlock({
        kind: "tasks",
        tasks: [
          { content: "Plan", status: "done" },
          { content: "Build", status: "in_progress" },
          { content: "Ship", status: "pending" },
        ],
      }),
    ).toBe("[WORKFLOW · task list · 1 of 3 done]\n- [x] Plan\n- [~] Build\n- [ ] Ship");
  });

  it("in a pipeline holds the phase, each stage's outcome, pending issues and failing tests, within its size", () => {
    const block = workflowBlock({
      kind: "pipeline",
      phase: "summary",
      inputs: {
        completed: [
          { stage: "plan", round: 0, agent_id: "orchestrator-1", status: "done" },
          { stage: "review", round: 0, agent_id: "inspector-1", status: "no_structure", note: "no structured findings" },
        ],
        fix_rounds: 0,
        max_fix_rounds: 2,
        pending_issues: Array.from({ length: 400 }, (_, index) => ({
          id: `i${index}`,
          severity: "minor" as const,
          category: "style",
          file: "src/a.ts",
          line: index + 1,
          description: `Issue number ${index} in the code`,
        })),
        pending_issues_unverified: false,
        failing_tests: [{ test_name: "adds", error: "expected 3" }],
        stopped: null,
      },
    });
    expect(block.split("\n").slice(0, 3)).toEqual([
      "[WORKFLOW · pipeline · phase summary · fix rounds 0 of 2]",
      "- plan · orchestrator-1: done",
      "- review · inspector-1: no structured findings",
    ]);
    expect(block).toContain("- [minor] src/a.ts:1 Issue number 0 in the code");
    expect(block.length).toBeLessThanOrEqual(MAX_WORKFLOW_CHARS);
    expect(block).toMatch(/more lines left out\)$/);
  });
});
