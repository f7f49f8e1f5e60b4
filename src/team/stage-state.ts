import type { AgentType } from "../roles/agent-types.js";
import type {
  EngineerHandoffState,
  FailureDesc,
  Fix,
  InspectorHandoffState,
  Issue,
  OrchestratorHandoffState,
  OrchestratorTask,
  TestInfo,
  TestResult,
  TesterHandoffState,
} from "../handoff/handoff-state.js";
import type { ContentType } from "../store/content-types.js";
import type { EndedStageStatus, PipelineStage } from "../store/pipeline-repository.js";

/**
 * What each pipeline stage leaves for the next (the stage table of
 * docs/DESIGN-NOTES.md): the structured tool's input mapped into the handoff
 * state for the stage's agent, or, for a stage that ended without its tool,
 * empty structures and a note. Nothing here reads prose.
 */

/** The architect's design (a knowledge agent has no handoff state of its own, so the design stage keeps this). */
export interface ArchitectDesign {
  summary: string;
  steps: DesignStep[];
  key_decisions: string[];
  risks: string[];
}

export interface DesignStep {
  id: string;
  description: string;
  /** Relative paths the step creates or changes. */
  files: string[];
  done_when: string;
}

/** `submit_plan`'s input: the tasks, each for an agent type. */
export interface SubmittedPlan {
  summary: string;
  tasks: Array<{ id: string; description: string; assigned_to: AgentType; dependencies?: string[] }>;
  key_decisions: string[];
}

/** `report_issues`'s input: the open issues, the verdict on earlier ones, and pass/fail per category. */
export interface SubmittedReview {
  checks_performed: string[];
  issues: Issue[];
  fixes_applied: Fix[];
  validation_state: Record<string, boolean>;
}

/** `report_test_results`'s input. */
export interface SubmittedTestResults {
  tests_created: TestInfo[];
  test_results: TestResult[];
  failing_tests: FailureDesc[];
  coverage_gaps: string[];
}

/** The summary stage ends with its answer (end of turn). */
export interface SubmittedSummary {
  answer: string;
}

/** Set on a stage's state when it ended without its structured tool. */
export const NO_STRUCTURE_NOTE = "no structured findings";

interface StageNote {
  /** `NO_STRUCTURE_NOTE` when the stage ended without its structured tool. */
  note?: string;
}

/** The state each stage stores. */
export interface StageStates {
  plan: OrchestratorHandoffState & StageNote;
  design: ArchitectDesign & StageNote;
  implement: EngineerHandoffState & StageNote;
  review: InspectorHandoffState & StageNote;
  fix: EngineerHandoffState & StageNote;
  test: TesterHandoffState & StageNote;
  summary: OrchestratorHandoffState & StageNote;
}

/** What each stage hands in: its tool's input, or (engineer stages) the state built from its prepared context. */
export interface StageSubmissions {
  plan: SubmittedPlan;
  design: ArchitectDesign;
  implement: EngineerHandoffState;
  review: SubmittedReview;
  fix: EngineerHandoffState;
  test: SubmittedTestResults;
  summary: SubmittedSummary;
}

/** A stage run that ended, as the machine and the state builder read it; `state` is null after an error or interruption. */
export type EndedStage = {
  [S in PipelineStage]: { stage: S; round: number; status: EndedStageStatus; state: StageStates[S] | null; agentId?: string };
}[PipelineStage];

/** The agent type of each stage (a fix round's engineer and inspector are the same agents as before). */
export const STAGE_AGENT_TYPES: Readonly<Record<PipelineStage, AgentType>> = {
  plan: "orchestrator",
  design: "architect",
  implement: "engineer",
  review: "inspector",
  fix: "engineer",
  test: "tester",
  summary: "orchestrator",
};

/** The content entry type each stage's state is stored as. */
export const STAGE_CONTENT_TYPES: Readonly<Record<PipelineStage, ContentType>> = {
  plan: "plan_workflow",
  design: "plan_workflow",
  implement: "agent_handoff",
  review: "inspector_finding",
  fix: "agent_handoff",
  test: "test_result",
  summary: "plan_workflow",
};

/** The structured tool that ends each stage; engineer and summary stages end with their turn. */
export const STAGE_TOOLS: Readonly<Record<PipelineStage, string | null>> = {
  plan: "submit_plan",
  design: "submit_design",
  implement: null,
  review: "report_issues",
  fix: null,
  test: "report_test_results",
  summary: null,
};

export interface StageStateContext {
  pipelineId: string;
  /** The root session the pipeline runs in (the orchestrator's `session_id`). */
  sessionId: string;
  /** The task, verbatim. */
  task: string;
  /** The stage's round (0 before any fix round). */
  round: number;
  /** The stages that ended before this one, in order. */
  earlier: readonly EndedStage[];
  now: number;
}

type Builders = { [S in PipelineStage]: (submitted: StageSubmissions[S], context: StageStateContext) => StageStates[S] };

const BUILDERS: Builders = {
  plan: (plan, context) => ({
    ...orchestratorBase(context, "planning", 0),
    pending_tasks: plan.tasks.map(
      (task): OrchestratorTask => ({
        id: task.id,
        description: task.description,
        assigned_to: task.assigned_to,
        pipeline_id: context.pipelineId,
        status: "pending",
        ...(task.dependencies && task.dependencies.length > 0 ? { dependencies: task.dependencies } : {}),
      }),
    ),
    key_decisions: plan.key_decisions,
    context_notes: plan.summary,
  }),
  design: (design) => ({
    summary: design.summary,
    steps: design.steps.map((step) => ({ ...step, files: [...step.files] })),
    key_decisions: [...design.key_decisions],
    risks: [...design.risks],
  }),
  implement: (state, context) => engineerState(state, context),
  fix: (state, context) => engineerState(state, context),
  review: (review, context) => reviewState(review, context),
  test: (results, context) => ({
    ...common(context, "test"),
    ...ids(context),
    tests_created: results.tests_created,
    test_results: results.test_results,
    failing_tests: withUnlistedFailures(results.failing_tests, results.test_results),
    coverage_gaps: results.coverage_gaps,
  }),
  summary: (summary, context) => {
    const plan = latestState(context.earlier, "plan");
    const completed = context.earlier.filter((stage) => stage.status === "done" || stage.status === "no_structure");
    const review = latestReviewState(context.earlier);
    const test = latestState(context.earlier, "test");
    return {
      ...orchestratorBase(context, "completing", 1),
      pending_tasks: [],
      completed_tasks: completed.map(
        (stage, index): OrchestratorTask => ({
          id: `stage-${index + 1}`,
          description: `${stage.stage}${stage.round > 0 ? ` (fix round ${stage.round})` : ""}${stage.status === "no_structure" ? `: ${NO_STRUCTURE_NOTE}` : ""}`,
          assigned_to: STAGE_AGENT_TYPES[stage.stage],
          pipeline_id: context.pipelineId,
          status: "completed",
        }),
      ),
      key_decisions: [...(plan?.key_decisions ?? []), ...(latestState(context.earlier, "design")?.key_decisions ?? [])],
      blockers: [
        ...(review?.pending_issues ?? []).map(
          (issue) => `pending ${issue.severity} issue ${issue.id}: ${issue.file}${issue.line ? `:${issue.line}` : ""} ${issue.description}`,
        ),
        ...(test?.failing_tests ?? []).map((failure) => `failing test ${failure.test_name}: ${failure.error}`),
      ],
      context_notes: summary.answer,
    };
  },
};

/** The state stored for a stage, from what it submitted (the design's stage table). */
export function buildStageState<S extends PipelineStage>(
  stage: S,
  submitted: StageSubmissions[S],
  context: StageStateContext,
): StageStates[S] {
  const build: Builders[S] = BUILDERS[stage];
  return build(submitted, context);
}

const EMPTY_STATES: { [S in PipelineStage]: (context: StageStateContext) => StageStates[S] } = {
  plan: (context) => BUILDERS.plan({ summary: "", tasks: [], key_decisions: [] }, context),
  design: () => ({ summary: "", steps: [], key_decisions: [], risks: [] }),
  implement: (context) => engineerState(emptyEngineerState(context, "implement"), context),
  fix: (context) => engineerState(emptyEngineerState(context, "fix"), context),
  review: (context) => ({
    ...common(context, "review"),
    ...ids(context),
    checks_performed: [],
    issues_found: [],
    fixes_applied: [],
    pending_issues: [],
    validation_state: {},
  }),
  test: (context) => BUILDERS.test({ tests_created: [], test_results: [], failing_tests: [], coverage_gaps: [] }, context),
  summary: (context) => BUILDERS.summary({ answer: "" }, context),
};

/**
 * The state of a stage that ended without its structured tool (after one
 * reminder): empty structures and the note, never findings read from its
 * prose. A review without findings carries no earlier issue forward either:
 * the summary reports those of the last review that had structure.
 */
export function noStructureState<S extends PipelineStage>(stage: S, context: StageStateContext): StageStates[S] {
  const empty: (context: StageStateContext) => StageStates[S] = EMPTY_STATES[stage];
  return { ...empty(context), note: NO_STRUCTURE_NOTE };
}

/** The last ended stage of a kind that left a state. */
export function latestState<S extends PipelineStage>(stages: readonly EndedStage[], stage: S): StageStates[S] | undefined {
  for (let index = stages.length - 1; index >= 0; index--) {
    const ended = stages[index];
    if (ended?.stage === stage && ended.state) return ended.state as StageStates[S];
  }
  return undefined;
}

/** The last review that reported through `report_issues` (one without structure says nothing about issues). */
export function latestReviewState(stages: readonly EndedStage[]): StageStates["review"] | undefined {
  for (let index = stages.length - 1; index >= 0; index--) {
    const ended = stages[index];
    if (ended?.stage === "review" && ended.status === "done" && ended.state) return ended.state;
  }
  return undefined;
}

/**
 * A review's state. Issues stay pending until a review says their fix was
 * applied: those of the review before are carried over (a re-review that
 * forgets one does not make it disappear), the ones reported now replace
 * them by id, and `fixes_applied` with `applied: true` closes them.
 */
function reviewState(review: SubmittedReview, context: StageStateContext): StageStates["review"] {
  const before = latestReviewState(context.earlier);
  const fixes = mergeById(before?.fixes_applied ?? [], review.fixes_applied, (fix) => fix.issue_id);
  const closed = new Set(fixes.filter((fix) => fix.applied).map((fix) => fix.issue_id));
  const reportedNow = new Set(review.issues.map((issue) => issue.id));
  const pending = mergeById(before?.pending_issues ?? [], review.issues, (issue) => issue.id).filter(
    (issue) => reportedNow.has(issue.id) || !closed.has(issue.id),
  );
  return {
    ...common(context, "review"),
    ...ids(context),
    checks_performed: review.checks_performed,
    issues_found: mergeById(before?.issues_found ?? [], review.issues, (issue) => issue.id),
    fixes_applied: fixes,
    pending_issues: pending,
    validation_state: review.validation_state,
  };
}

/** A failing result the tester did not describe is still a failure: listed with the error it gave. */
function withUnlistedFailures(failing: readonly FailureDesc[], results: readonly TestResult[]): FailureDesc[] {
  const listed = new Set(failing.map((failure) => failure.test_name));
  const unlisted = results
    .filter((result) => result.status === "fail" && !listed.has(result.test_name))
    .map((result) => ({ test_name: result.test_name, error: result.error ?? "" }));
  return [...failing, ...unlisted];
}

function engineerState(state: EngineerHandoffState, context: StageStateContext): StageStates["implement"] {
  const design = latestState(context.earlier, "design");
  return { ...state, pipeline_id: context.pipelineId, task_id: (design?.steps ?? []).map((step) => step.id).join(",") };
}

function emptyEngineerState(context: StageStateContext, stage: PipelineStage): EngineerHandoffState {
  return {
    ...common(context, stage),
    ...ids(context),
    accomplished: [],
    files_changed: [],
    remaining: [],
    context_notes: "",
    key_decisions: [],
    blockers_hit: [],
  };
}

function orchestratorBase(context: StageStateContext, phase: "planning" | "completing", progress: number): OrchestratorHandoffState {
  return {
    ...common(context, phase === "planning" ? "plan" : "summary"),
    session_id: context.sessionId,
    original_goal: context.task,
    current_workflow: { id: context.pipelineId, name: "pipeline", phase, progress, start_time: new Date(context.now).toISOString() },
    pending_tasks: [],
    active_pipelines: [],
    completed_tasks: [],
    agent_states: {},
    waiting_on: [],
    next_actions: [],
    key_decisions: [],
    blockers: [],
    context_notes: "",
  };
}

function common(context: StageStateContext, stage: PipelineStage) {
  return {
    original_prompt: context.task,
    tool_errors: [],
    handoff_index: 0,
    handoff_reason: `pipeline ${stage} stage${context.round > 0 ? `, fix round ${context.round}` : ""}`,
    timestamp: new Date(context.now).toISOString(),
  };
}

function ids(context: StageStateContext): { task_id: string; pipeline_id: string } {
  const design = latestState(context.earlier, "design");
  return { task_id: (design?.steps ?? []).map((step) => step.id).join(","), pipeline_id: context.pipelineId };
}

/** `earlier` in order, each replaced by a later item of the same key; new keys appended in their order. */
function mergeById<T>(earlier: readonly T[], later: readonly T[], key: (item: T) => string): T[] {
  const merged = new Map<string, T>();
  for (const item of earlier) merged.set(key(item), item);
  for (const item of later) merged.set(key(item), item);
  return [...merged.values()];
}
