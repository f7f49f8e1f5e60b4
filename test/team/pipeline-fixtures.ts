import { buildHandoffState, type EngineerHandoffState, type Issue } from "../../src/handoff/handoff-state.js";
import type { EndedStageStatus, PipelineStage } from "../../src/store/pipeline-repository.js";
import { type PipelineProgress, type PipelineStep, nextStep } from "../../src/team/pipeline-machine.js";
import {
  type ArchitectDesign,
  buildStageState,
  type EndedStage,
  noStructureState,
  type StageStateContext,
  type StageSubmissions,
  type SubmittedReview,
} from "../../src/team/stage-state.js";

export const TASK = "Add a `--json` flag to `sylk sessions`.\n\nKeep the table output as it is.";

export const PLAN: StageSubmissions["plan"] = {
  summary: "Design, implement, review and test the flag.",
  tasks: [
    { id: "t1", description: "Design the flag", assigned_to: "architect" },
    { id: "t2", description: "Implement it", assigned_to: "engineer", dependencies: ["t1"] },
  ],
  key_decisions: ["One flag, no new subcommand"],
};

export const DESIGN: ArchitectDesign = {
  summary: "Print the same rows as JSON.",
  steps: [
    { id: "s1", description: "Add the option", files: ["src/cli/sessions.ts"], done_when: "--json parses" },
    { id: "s2", description: "Print JSON", files: ["src/cli/sessions.ts"], done_when: "output parses as JSON" },
  ],
  key_decisions: ["Reuse the table's rows"],
  risks: ["Scripts parse the table"],
};

export const issue = (id: string, severity: Issue["severity"], extra: Partial<Issue> = {}): Issue => ({
  id,
  severity,
  category: "correctness",
  file: "src/cli/sessions.ts",
  line: 12,
  description: `problem ${id}`,
  ...extra,
});

export const review = (issues: Issue[], extra: Partial<SubmittedReview> = {}): SubmittedReview => ({
  checks_performed: ["read the diff"],
  issues,
  fixes_applied: [],
  validation_state: { correctness: issues.length === 0 },
  ...extra,
});

export function engineerState(): EngineerHandoffState {
  const state = buildHandoffState(
    "engineer",
    {
      sessionId: "child-engineer",
      originalPrompt: TASK,
      tasks: [{ content: "Add the option", status: "done" }],
      decisions: [],
      blockers: [],
      filesChanged: [{ path: "src/cli/sessions.ts", action: "modify", description: "" }],
      toolErrors: [],
      recentPrompts: [],
    },
    { handoffIndex: 0, reason: "stage end", timestamp: 0 },
  );
  if (state.agent_type !== "engineer") throw new Error("not an engineer state");
  const { agent_type: _type, ...rest } = state;
  return rest;
}

export const context = (earlier: readonly EndedStage[], round = 0): StageStateContext => ({
  pipelineId: "pipe-1",
  sessionId: "root-1",
  task: TASK,
  round,
  earlier,
  now: Date.UTC(2026, 0, 2),
});

/** A stage's outcome in a scripted run: what it submitted, or how it failed. */
export type Script = { [S in PipelineStage]?: (round: number) => StageSubmissions[S] | EndedStageStatus };

/** Runs the machine to its end with scripted stages, as the runner will; returns the steps and the stages. */
export function drive(script: Script, options: { maxFixRounds?: number; planMode?: boolean } = {}) {
  const stages: EndedStage[] = [];
  const steps: PipelineStep[] = [];
  const progress = (): PipelineProgress => ({ stages, maxFixRounds: options.maxFixRounds ?? 2, planMode: options.planMode ?? false });
  for (let guard = 0; guard < 50; guard++) {
    const step = nextStep(progress());
    steps.push(step);
    if (step.kind === "finish") return { steps, stages, progress: progress(), finish: step };
    const outcome = (script[step.stage] as ((round: number) => unknown) | undefined)?.(step.round) ?? "no_structure";
    const ctx = context(stages, step.round);
    if (outcome === "error" || outcome === "interrupted") {
      stages.push({ stage: step.stage, round: step.round, status: outcome, state: null } as EndedStage);
    } else if (outcome === "no_structure") {
      stages.push({ stage: step.stage, round: step.round, status: "no_structure", state: noStructureState(step.stage, ctx) } as EndedStage);
    } else {
      const state = buildStageState(step.stage, outcome as never, ctx);
      stages.push({ stage: step.stage, round: step.round, status: "done", state, agentId: `${step.agentType}-1` } as EndedStage);
    }
  }
  throw new Error("the machine did not finish within 50 steps");
}

export const HAPPY: Script = {
  plan: () => PLAN,
  design: () => DESIGN,
  implement: () => engineerState(),
  review: () => review([]),
  fix: () => engineerState(),
  test: () => ({
    tests_created: [{ file: "test/cli/sessions.test.ts", test_name: "prints JSON", type: "unit" }],
    test_results: [{ test_name: "prints JSON", status: "pass", duration: "12ms" }],
    failing_tests: [],
    coverage_gaps: [],
  }),
  summary: () => ({ answer: "Added --json." }),
};
