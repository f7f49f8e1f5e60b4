import { describe, expect, it } from "vitest";
import { PIPELINE_STAGES } from "../../src/store/pipeline-repository.js";
import {
  buildStageState,
  type EndedStage,
  NO_STRUCTURE_NOTE,
  noStructureState,
  STAGE_AGENT_TYPES,
  STAGE_CONTENT_TYPES,
  STAGE_TOOLS,
} from "../../src/team/stage-state.js";
import { context, DESIGN, drive, engineerState, HAPPY, issue, PLAN, review, TASK } from "./pipeline-fixtures.js";

const WHEN = "2026-01-02T00:00:00.000Z";

describe("buildStageState", () => {
  it("plan → the orchestrator's state: the workflow (the pipeline, phase planning) and the tasks as OrchestratorTask with assigned_to", () => {
    const state = buildStageState("plan", PLAN, context([]));
    expect(state).toMatchObject({
      session_id: "root-1",
      original_goal: TASK,
      original_prompt: TASK,
      current_workflow: { id: "pipe-1", name: "pipeline", phase: "planning", progress: 0, start_time: WHEN },
      pending_tasks: [
        { id: "t1", description: "Design the flag", assigned_to: "architect", pipeline_id: "pipe-1", status: "pending" },
        { id: "t2", description: "Implement it", assigned_to: "engineer", pipeline_id: "pipe-1", status: "pending", dependencies: ["t1"] },
      ],
      completed_tasks: [],
      key_decisions: ["One flag, no new subcommand"],
      context_notes: "Design, implement, review and test the flag.",
      handoff_reason: "pipeline plan stage",
      timestamp: WHEN,
    });
    expect(state.pending_tasks[0]).not.toHaveProperty("dependencies");
    expect(state).not.toHaveProperty("note");
  });

  it("design → the ArchitectDesign as submitted, nothing added", () => {
    expect(buildStageState("design", DESIGN, context([]))).toEqual(DESIGN);
  });

  it("implement and fix → the engineer's handoff state with this pipeline's id and the design's step ids as task_id", () => {
    const { stages } = drive(HAPPY);
    const earlier = stages.slice(0, 2);
    const state = buildStageState("implement", engineerState(), context(earlier));
    expect(state).toMatchObject({ pipeline_id: "pipe-1", task_id: "s1,s2", accomplished: ["Add the option"], original_prompt: TASK });
    expect(buildStageState("fix", engineerState(), context(earlier, 1))).toMatchObject({ pipeline_id: "pipe-1", task_id: "s1,s2" });
  });

  it("review → the inspector's state with the full issues (line and suggestion kept) and validation_state per category", () => {
    const found = issue("i1", "critical", { category: "security", line: 3, suggestion: "escape it" });
    const state = buildStageState("review", review([found], { validation_state: { security: false, style: true } }), context([]));
    expect(state).toMatchObject({
      pipeline_id: "pipe-1",
      checks_performed: ["read the diff"],
      issues_found: [found],
      pending_issues: [found],
      fixes_applied: [],
      validation_state: { security: false, style: true },
    });
  });

  it("a re-review closes the issues whose fix was applied, keeps those it does not mention, and adds new ones", () => {
    const first: EndedStage = {
      stage: "review",
      round: 0,
      status: "done",
      state: buildStageState("review", review([issue("a", "major"), issue("b", "critical")]), context([])),
    };
    const second = buildStageState(
      "review",
      review([issue("c", "minor")], { fixes_applied: [{ issue_id: "a", description: "checked the bound", applied: true }] }),
      context([first], 1),
    );
    expect(second.pending_issues.map((pending) => pending.id)).toEqual(["b", "c"]);
    expect(second.issues_found.map((found) => found.id)).toEqual(["a", "b", "c"]);
    expect(second.fixes_applied).toEqual([{ issue_id: "a", description: "checked the bound", applied: true }]);
    expect(second.handoff_reason).toBe("pipeline review stage, fix round 1");

    // A fix not applied leaves its issue pending; an issue reported again replaces what was said of it.
    const third = buildStageState(
      "review",
      review([issue("b", "major", { description: "still unguarded" })], {
        fixes_applied: [{ issue_id: "b", description: "tried", applied: false }],
      }),
      context([first, { stage: "review", round: 1, status: "done", state: second }], 2),
    );
    expect(third.pending_issues.map((pending) => `${pending.id}:${pending.severity}:${pending.description}`)).toEqual([
      "b:major:still unguarded",
      "c:minor:problem c",
    ]);
    expect(third.fixes_applied.map((fix) => `${fix.issue_id}:${fix.applied}`)).toEqual(["a:true", "b:false"]);
  });

  it("test → the tester's state; a failing result the tester did not describe is listed as failing with its error", () => {
    const state = buildStageState(
      "test",
      {
        tests_created: [{ file: "test/a.test.ts", test_name: "a", type: "unit", for_task: "t2" }],
        test_results: [
          { test_name: "a", status: "fail", error: "expected 1" },
          { test_name: "b", status: "fail" },
          { test_name: "c", status: "skip" },
          { test_name: "d", status: "fail", error: "boom" },
        ],
        failing_tests: [{ test_name: "a", error: "expected 1, got 2", expected: "1", actual: "2" }],
        coverage_gaps: ["the error path"],
      },
      context([]),
    );
    expect(state.failing_tests).toEqual([
      { test_name: "a", error: "expected 1, got 2", expected: "1", actual: "2" },
      { test_name: "b", error: "" },
      { test_name: "d", error: "boom" },
    ]);
    expect(state).toMatchObject({ tests_created: [{ for_task: "t2" }], coverage_gaps: ["the error path"], pipeline_id: "pipe-1" });
  });

  it("summary → the orchestrator's state, phase completing: completed stages as tasks, pending issues and failing tests as blockers, the answer as notes", () => {
    const { stages } = drive({
      ...HAPPY,
      review: () => review([issue("m1", "minor", { line: 9 })]),
      test: () => ({
        tests_created: [],
        test_results: [{ test_name: "x", status: "fail", error: "no" }],
        failing_tests: [],
        coverage_gaps: [],
      }),
    });
    const state = buildStageState("summary", { answer: "Done, with one minor issue." }, context(stages.slice(0, -1)));
    expect(state.current_workflow).toMatchObject({ id: "pipe-1", phase: "completing", progress: 1 });
    expect(state.completed_tasks.map((task) => `${task.description}:${task.assigned_to}:${task.status}`)).toEqual([
      "plan:orchestrator:completed",
      "design:architect:completed",
      "implement:engineer:completed",
      "review:inspector:completed",
      "test:tester:completed",
    ]);
    expect(state.blockers).toEqual(["pending minor issue m1: src/cli/sessions.ts:9 problem m1", "failing test x: no"]);
    expect(state.key_decisions).toEqual(["One flag, no new subcommand", "Reuse the table's rows"]);
    expect(state.context_notes).toBe("Done, with one minor issue.");
  });
});

describe("noStructureState", () => {
  it("is empty structures and the note for every stage, never a finding", () => {
    const { stages } = drive({ ...HAPPY, review: () => review([issue("i1", "major")]) }, { maxFixRounds: 1 });
    const earlier = stages.slice(0, 4);
    for (const stage of PIPELINE_STAGES) {
      const state = noStructureState(stage, context(earlier, stage === "fix" || stage === "review" ? 1 : 0)) as unknown as Record<
        string,
        unknown
      >;
      expect(state.note, stage).toBe(NO_STRUCTURE_NOTE);
      for (const field of [
        "pending_tasks",
        "steps",
        "key_decisions",
        "risks",
        "issues_found",
        "pending_issues",
        "fixes_applied",
        "tests_created",
        "test_results",
        "failing_tests",
        "coverage_gaps",
        "accomplished",
        "files_changed",
      ]) {
        if (field in state && !(stage === "summary" && field === "key_decisions")) expect(state[field], `${stage}.${field}`).toEqual([]);
      }
    }
    // A review without structure carries no earlier issue forward.
    expect(noStructureState("review", context(earlier, 1)).pending_issues).toEqual([]);
  });
});

describe("the stage table", () => {
  it("names each stage's agent, entry type and structured tool", () => {
    expect(PIPELINE_STAGES.map((stage) => [stage, STAGE_AGENT_TYPES[stage], STAGE_CONTENT_TYPES[stage], STAGE_TOOLS[stage]])).toEqual([
      ["plan", "orchestrator", "plan_workflow", "submit_plan"],
      ["design", "architect", "plan_workflow", "submit_design"],
      ["implement", "engineer", "agent_handoff", null],
      ["review", "inspector", "inspector_finding", "report_issues"],
      ["fix", "engineer", "agent_handoff", null],
      ["test", "tester", "test_result", "report_test_results"],
      ["summary", "orchestrator", "plan_workflow", null],
    ]);
  });
});
