import { describe, expect, it } from "vitest";
import {
  blockingIssues,
  nextStep,
  type PipelineStep,
  renderStoppedReport,
  type RunStep,
  stagePrompt,
  summaryInputs,
} from "../../src/team/pipeline-machine.js";
import { NO_STRUCTURE_NOTE } from "../../src/team/stage-state.js";
import { DESIGN, drive, engineerState, HAPPY, issue, review, TASK } from "./pipeline-fixtures.js";

const order = (steps: PipelineStep[]) =>
  steps.map((step) => (step.kind === "run" ? `${step.stage}${step.round > 0 ? step.round : ""}` : `finish:${step.status}`));

describe("nextStep: the pipeline's order", () => {
  it("runs plan → design → implement → review → test → summary when the review finds nothing, each stage by its agent type", () => {
    const { steps, finish } = drive(HAPPY);
    expect(order(steps)).toEqual(["plan", "design", "implement", "review", "test", "summary", "finish:done"]);
    expect(steps.filter((step): step is RunStep => step.kind === "run").map((step) => step.agentType)).toEqual([
      "orchestrator",
      "architect",
      "engineer",
      "inspector",
      "tester",
      "orchestrator",
    ]);
    expect(finish).toEqual({ kind: "finish", status: "done", reason: null });
  });

  it("bounds the fix loop: with maxFixRounds 2 and a major issue that never goes away, exactly two fix rounds, then the test", () => {
    const { steps, progress } = drive({ ...HAPPY, review: () => review([issue("i1", "major")]) }, { maxFixRounds: 2 });
    expect(order(steps)).toEqual([
      "plan",
      "design",
      "implement",
      "review",
      "fix1",
      "review1",
      "fix2",
      "review2",
      "test",
      "summary",
      "finish:done",
    ]);
    const inputs = summaryInputs({ ...progress, stages: progress.stages.slice(0, -1) });
    expect(inputs.fix_rounds).toBe(2);
    expect(inputs.pending_issues.map((pending) => pending.id)).toEqual(["i1"]);
  });

  it("stops fixing as soon as a re-review finds nothing critical or major left", () => {
    const reviews = [
      review([issue("i1", "critical")]),
      review([], { fixes_applied: [{ issue_id: "i1", description: "guarded", applied: true }] }),
    ];
    const { steps, progress } = drive({ ...HAPPY, review: (round) => reviews[round] ?? review([]) }, { maxFixRounds: 3 });
    expect(order(steps)).toEqual(["plan", "design", "implement", "review", "fix1", "review1", "test", "summary", "finish:done"]);
    expect(summaryInputs(progress).pending_issues).toEqual([]);
  });

  it("never starts a fix round for minor issues: they go to the summary", () => {
    const { steps, progress } = drive({ ...HAPPY, review: () => review([issue("m1", "minor"), issue("m2", "minor")]) });
    expect(order(steps)).toEqual(["plan", "design", "implement", "review", "test", "summary", "finish:done"]);
    expect(summaryInputs(progress).pending_issues.map((pending) => `${pending.id}:${pending.severity}`)).toEqual(["m1:minor", "m2:minor"]);
  });

  it("runs no fix round when maxFixRounds is 0: the critical issue is reported", () => {
    const { steps, progress } = drive({ ...HAPPY, review: () => review([issue("c1", "critical")]) }, { maxFixRounds: 0 });
    expect(order(steps)).toEqual(["plan", "design", "implement", "review", "test", "summary", "finish:done"]);
    expect(summaryInputs(progress).pending_issues.map((pending) => pending.id)).toEqual(["c1"]);
  });

  it("stops after the design in plan mode, and says why", () => {
    const { steps, finish, progress } = drive(HAPPY, { planMode: true });
    expect(order(steps)).toEqual(["plan", "design", "finish:stopped"]);
    expect(finish.reason).toMatch(/plan mode/);
    expect(summaryInputs(progress).stopped).toEqual({ stage: "design", round: 0, status: "stopped", reason: finish.reason });
  });

  it("stops the pipeline at a stage that ended in an error (failed) or was interrupted (stopped), saying where", () => {
    const failed = drive({ ...HAPPY, implement: () => "error" });
    expect(order(failed.steps)).toEqual(["plan", "design", "implement", "finish:failed"]);
    expect(failed.finish.reason).toBe("the implement stage ended in an error");
    expect(summaryInputs(failed.progress).stopped).toMatchObject({ stage: "implement", status: "failed" });

    const interrupted = drive({ ...HAPPY, review: (round) => (round === 1 ? "interrupted" : review([issue("i1", "major")])) });
    expect(order(interrupted.steps)).toEqual(["plan", "design", "implement", "review", "fix1", "review1", "finish:stopped"]);
    expect(interrupted.finish.reason).toBe("the review stage (fix round 1) was interrupted");
  });

  it("goes on after a stage with no structured findings, and a review without structure starts no fix round", () => {
    const { steps, stages } = drive({ ...HAPPY, plan: () => "no_structure", review: () => "no_structure" });
    expect(order(steps)).toEqual(["plan", "design", "implement", "review", "test", "summary", "finish:done"]);
    expect(stages[0]?.state).toMatchObject({ note: NO_STRUCTURE_NOTE, pending_tasks: [] });
    expect(blockingIssues(stages)).toEqual([]);
  });

  it("rejects a maxFixRounds that is not a whole number ≥ 0", () => {
    expect(() => nextStep({ stages: [], maxFixRounds: -1, planMode: false })).toThrow(RangeError);
    expect(() => nextStep({ stages: [], maxFixRounds: 1.5, planMode: false })).toThrow(RangeError);
  });
});

describe("stagePrompt", () => {
  it("starts with the task verbatim, then the stage's instruction, then the previous stage's state as a JSON block", () => {
    const { progress } = drive(HAPPY);
    const atImplement = { ...progress, stages: progress.stages.slice(0, 2) };
    const prompt = stagePrompt(TASK, { kind: "run", stage: "implement", round: 0, agentType: "engineer" }, atImplement);
    expect(prompt.startsWith(`${TASK}\n\n---\n`)).toBe(true);
    expect(prompt).toContain("# Pipeline stage: implement (you are the engineer)");
    expect(prompt).toContain("Implement the design below");
    const block = /## The previous stage's state: the design stage\n\n```json\n([\s\S]*?)\n```/.exec(prompt);
    expect(JSON.parse(block?.[1] ?? "null")).toEqual(DESIGN);
  });

  it("gives the first stage no previous state", () => {
    const prompt = stagePrompt(
      TASK,
      { kind: "run", stage: "plan", round: 0, agentType: "orchestrator" },
      { stages: [], maxFixRounds: 2, planMode: false },
    );
    expect(prompt).toContain("submit_plan");
    expect(prompt).not.toContain("previous stage");
  });

  it("gives a fix round the critical and major issues to fix, and the re-review the pending issues to check", () => {
    const { progress } = drive({ ...HAPPY, review: () => review([issue("c1", "critical"), issue("m1", "minor")]) }, { maxFixRounds: 1 });
    const beforeFix = { ...progress, stages: progress.stages.slice(0, 4) };
    const fix = stagePrompt(TASK, { kind: "run", stage: "fix", round: 1, agentType: "engineer" }, beforeFix);
    expect(fix).toContain("fix round 1 of at most 1");
    const toFix = /## Issues to fix[^\n]*\n\n```json\n([\s\S]*?)\n```/.exec(fix);
    expect(JSON.parse(toFix?.[1] ?? "null").map((pending: { id: string }) => pending.id)).toEqual(["c1"]);

    const beforeReReview = { ...progress, stages: progress.stages.slice(0, 5) };
    const reReview = stagePrompt(TASK, { kind: "run", stage: "review", round: 1, agentType: "inspector" }, beforeReReview, {
      diff: "--- a/x\n+++ b/x\n",
    });
    expect(reReview).toContain("This is a re-review after a fix round");
    const toCheck = /## Pending issues to check\n\n```json\n([\s\S]*?)\n```/.exec(reReview);
    expect(JSON.parse(toCheck?.[1] ?? "null").map((pending: { id: string }) => pending.id)).toEqual(["c1", "m1"]);
    expect(reReview).toContain("```diff\n--- a/x\n+++ b/x\n");
  });

  it("keeps a JSON block closed even when the state holds backticks", () => {
    const { progress } = drive({ ...HAPPY, design: () => ({ ...DESIGN, summary: "Use ```code``` fences" }) });
    const prompt = stagePrompt(
      TASK,
      { kind: "run", stage: "implement", round: 0, agentType: "engineer" },
      { ...progress, stages: progress.stages.slice(0, 2) },
    );
    expect(prompt).toContain("````json\n");
  });

  it("gives the summary what completed, what is pending and what fails", () => {
    const failingTest = {
      tests_created: [],
      test_results: [{ test_name: "prints JSON", status: "fail" as const, error: "expected [" }],
      failing_tests: [],
      coverage_gaps: [],
    };
    const { progress } = drive({ ...HAPPY, review: () => review([issue("m1", "minor")]), test: () => failingTest });
    const beforeSummary = { ...progress, stages: progress.stages.slice(0, -1) };
    const prompt = stagePrompt(TASK, { kind: "run", stage: "summary", round: 0, agentType: "orchestrator" }, beforeSummary);
    const block = /## What the pipeline did\n\n```json\n([\s\S]*?)\n```/.exec(prompt);
    expect(JSON.parse(block?.[1] ?? "null")).toEqual({
      completed: ["plan", "design", "implement", "review", "test"].map((stage) => expect.objectContaining({ stage, status: "done" })),
      fix_rounds: 0,
      max_fix_rounds: 2,
      pending_issues: [expect.objectContaining({ id: "m1", severity: "minor" })],
      pending_issues_unverified: false,
      failing_tests: [{ test_name: "prints JSON", error: "expected [" }],
      stopped: null,
    });
  });
});

describe("summaryInputs and renderStoppedReport", () => {
  it("marks pending issues unverified when the last review ended without structure", () => {
    const { progress } = drive(
      { ...HAPPY, review: (round) => (round === 0 ? review([issue("i1", "major")]) : "no_structure") },
      { maxFixRounds: 2 },
    );
    const inputs = summaryInputs({ ...progress, stages: progress.stages.slice(0, -1) });
    expect(inputs.pending_issues.map((pending) => pending.id)).toEqual(["i1"]);
    expect(inputs.pending_issues_unverified).toBe(true);
    expect(inputs.completed.find((stage) => stage.stage === "review" && stage.round === 1)).toMatchObject({
      status: "no_structure",
      note: NO_STRUCTURE_NOTE,
    });
  });

  it("renders where it stopped, each stage, and what is left, from the inputs only", () => {
    const { progress } = drive({
      ...HAPPY,
      review: () => review([issue("i1", "major", { line: 7 })]),
      fix: (round) => (round === 1 ? "error" : engineerState()),
    });
    const text = renderStoppedReport(summaryInputs(progress));
    expect(text).toBe(
      [
        "The pipeline stopped at the fix stage: the fix stage (fix round 1) ended in an error.",
        "",
        "Stages:",
        "- plan, orchestrator-1: done",
        "- design, architect-1: done",
        "- implement, engineer-1: done",
        "- review, inspector-1: done",
        "- fix (fix round 1): error",
        "",
        "Pending issues:",
        "- [major] i1 src/cli/sessions.ts:7: problem i1",
      ].join("\n"),
    );
  });
});
