import type { AgentType } from "../roles/agent-types.js";

/**
 * Handoff states: what a new instance of an agent starts from. Each type
 * has its own fields (snake_case, since the state is stored and shown as
 * JSON), filled from
 * Sylk's prepared context; fields Sylk has no source for yet (a pipeline's
 * routing, an inspector's structured issues) stay empty rather than
 * invented. Every state also carries the prepared context's common part,
 * so whatever the type, the original prompt goes along verbatim.
 */

export interface FileChange {
  path: string;
  action: "create" | "modify" | "delete";
  description: string;
  lines_changed?: number;
}

export const ISSUE_SEVERITIES = ["critical", "major", "minor"] as const;
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];

/** One problem an inspector found, where it is, and what to do about it. */
export interface Issue {
  id: string;
  severity: IssueSeverity;
  /** "security", "performance", "correctness", "style", ... (the key of `validation_state`). */
  category: string;
  /** Relative to the project root. */
  file: string;
  line?: number;
  description: string;
  suggestion?: string;
}

/** Whether an issue's fix was applied, as the re-review found. */
export interface Fix {
  issue_id: string;
  description: string;
  applied: boolean;
}

/** A test the tester knows of. */
export interface TestInfo {
  file: string;
  test_name: string;
  /** "unit", "integration" or "e2e". */
  type: string;
  for_task?: string;
}

export const TEST_STATUSES = ["pass", "fail", "skip"] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/** The outcome of one test run. */
export interface TestResult {
  test_name: string;
  status: TestStatus;
  duration?: string;
  error?: string;
}

/** One failing test and why. */
export interface FailureDesc {
  test_name: string;
  error: string;
  expected?: string;
  actual?: string;
  suggestion?: string;
}

/** The workflow an orchestrator manages (in Sylk, a pipeline: `id` is the pipeline's). */
export interface WorkflowState {
  id: string;
  name: string;
  phase: "planning" | "executing" | "validating" | "completing";
  /** 0 to 1. */
  progress: number;
  start_time: string;
}

/** One task of an orchestrator's plan, assigned to an agent type. */
export interface OrchestratorTask {
  id: string;
  description: string;
  /** The agent type it is for. */
  assigned_to?: string;
  pipeline_id?: string;
  /** "pending", "in_progress", "completed" or "blocked". */
  status: string;
  dependencies?: string[];
}

export interface TaskItemState {
  content: string;
  status: "pending" | "in_progress" | "done";
}

/** What Sylk keeps up to date during the work, for whichever agent hands off. */
export interface PreparedContextSnapshot {
  sessionId: string;
  originalPrompt: string;
  /** The prompt being answered when the handoff happened, when it is not the original. */
  currentPrompt?: string;
  tasks: TaskItemState[];
  decisions: string[];
  blockers: string[];
  filesChanged: FileChange[];
  /** Tool errors the instance hit, newest last (blockers it may not have written down). */
  toolErrors: string[];
  /** Recent user prompts, oldest first (the guide's conversation history). */
  recentPrompts: Array<{ turn: number; text: string }>;
}

interface HandoffMetadata {
  handoff_index: number;
  handoff_reason: string;
  timestamp: string;
}

/** The part every state has. */
interface CommonState extends HandoffMetadata {
  original_prompt: string;
  current_prompt?: string;
  tool_errors: string[];
}

export interface EngineerHandoffState extends CommonState {
  task_id: string;
  pipeline_id: string;
  accomplished: string[];
  files_changed: FileChange[];
  remaining: string[];
  context_notes: string;
  key_decisions: string[];
  blockers_hit: string[];
}

export interface DesignerHandoffState extends CommonState {
  task_id: string;
  pipeline_id: string;
  accomplished: string[];
  components_created: string[];
  styles_applied: string[];
  remaining: string[];
  design_decisions: string[];
  tokens_used: string[];
  a11y_considerations: string[];
}

export interface InspectorHandoffState extends CommonState {
  task_id: string;
  pipeline_id: string;
  checks_performed: string[];
  issues_found: Issue[];
  fixes_applied: Fix[];
  pending_issues: Issue[];
  validation_state: Record<string, boolean>;
}

export interface TesterHandoffState extends CommonState {
  task_id: string;
  pipeline_id: string;
  tests_created: TestInfo[];
  test_results: TestResult[];
  failing_tests: FailureDesc[];
  coverage_gaps: string[];
}

export interface OrchestratorHandoffState extends CommonState {
  session_id: string;
  original_goal: string;
  /** The pipeline it plans or summarises; null outside one. */
  current_workflow: WorkflowState | null;
  pending_tasks: OrchestratorTask[];
  active_pipelines: unknown[];
  completed_tasks: OrchestratorTask[];
  agent_states: Record<string, unknown>;
  waiting_on: unknown[];
  next_actions: unknown[];
  key_decisions: string[];
  blockers: string[];
  context_notes: string;
}

export interface GuideHandoffState extends CommonState {
  session_id: string;
  conversation_history: Array<{ turn_number: number; role: "user"; summary: string }>;
  current_intent: string;
  active_topics: string[];
  recent_routings: unknown[];
  agent_affinities: Record<string, number>;
  pending_followups: string[];
  active_agents: string[];
  key_context: string;
  assumptions: string[];
}

export type HandoffState =
  | ({ agent_type: "engineer" } & EngineerHandoffState)
  | ({ agent_type: "designer" } & DesignerHandoffState)
  | ({ agent_type: "inspector" } & InspectorHandoffState)
  | ({ agent_type: "tester" } & TesterHandoffState)
  | ({ agent_type: "orchestrator" } & OrchestratorHandoffState)
  | ({ agent_type: "guide" } & GuideHandoffState);

/** Agent types that hand off (knowledge agents evict instead). */
export type HandoffAgentType = HandoffState["agent_type"];

export function isHandoffAgentType(type: AgentType): type is HandoffAgentType {
  return (
    type === "engineer" || type === "designer" || type === "inspector" || type === "tester" || type === "orchestrator" || type === "guide"
  );
}

const TEST_FILE = /(^|\/)(test|tests|__tests__|spec)\/|[._-](test|spec)\.[a-z]+$/i;

/** Builds the type's state from the prepared context. */
export function buildHandoffState(
  type: HandoffAgentType,
  snapshot: PreparedContextSnapshot,
  metadata: { handoffIndex: number; reason: string; timestamp: number },
): HandoffState {
  const common: CommonState = {
    original_prompt: snapshot.originalPrompt,
    ...(snapshot.currentPrompt !== undefined ? { current_prompt: snapshot.currentPrompt } : {}),
    tool_errors: snapshot.toolErrors,
    handoff_index: metadata.handoffIndex,
    handoff_reason: metadata.reason,
    timestamp: new Date(metadata.timestamp).toISOString(),
  };
  const done = snapshot.tasks.filter((task) => task.status === "done").map((task) => task.content);
  const remaining = snapshot.tasks.filter((task) => task.status !== "done").map((task) => task.content);
  const ids = { task_id: snapshot.sessionId, pipeline_id: "" };
  const contextNotes = snapshot.currentPrompt ? `Working on the latest prompt: ${snapshot.currentPrompt}` : "";
  switch (type) {
    case "engineer":
      return {
        agent_type: type,
        ...common,
        ...ids,
        accomplished: done,
        files_changed: snapshot.filesChanged,
        remaining,
        context_notes: contextNotes,
        key_decisions: snapshot.decisions,
        blockers_hit: snapshot.blockers,
      };
    case "designer":
      return {
        agent_type: type,
        ...common,
        ...ids,
        accomplished: done,
        components_created: snapshot.filesChanged.filter((file) => file.action === "create").map((file) => file.path),
        styles_applied: [],
        remaining,
        design_decisions: snapshot.decisions,
        tokens_used: [],
        a11y_considerations: [],
      };
    case "inspector":
      return {
        agent_type: type,
        ...common,
        ...ids,
        checks_performed: done,
        issues_found: [],
        fixes_applied: [],
        pending_issues: snapshot.blockers.map((blocker, index) => ({
          id: `blocker-${index + 1}`,
          severity: "major",
          category: "blocker",
          file: "",
          description: blocker,
        })),
        validation_state: {},
      };
    case "tester":
      return {
        agent_type: type,
        ...common,
        ...ids,
        tests_created: snapshot.filesChanged
          .filter((file) => file.action === "create" && TEST_FILE.test(file.path))
          .map((file) => ({ file: file.path, test_name: "", type: "unit" })),
        test_results: [],
        failing_tests: [],
        coverage_gaps: remaining,
      };
    case "orchestrator":
      return {
        agent_type: type,
        ...common,
        session_id: snapshot.sessionId,
        original_goal: snapshot.originalPrompt,
        current_workflow: null,
        pending_tasks: snapshot.tasks
          .map((task, index) => ({
            id: `task-${index + 1}`,
            description: task.content,
            status: task.status === "in_progress" ? "in_progress" : task.status,
          }))
          .filter((task) => task.status !== "done"),
        active_pipelines: [],
        completed_tasks: snapshot.tasks
          .map((task, index) => ({ id: `task-${index + 1}`, description: task.content, status: "completed" }))
          .filter((_, index) => snapshot.tasks[index]?.status === "done"),
        agent_states: {},
        waiting_on: [],
        next_actions: [],
        key_decisions: snapshot.decisions,
        blockers: snapshot.blockers,
        context_notes: contextNotes,
      };
    case "guide":
      return {
        agent_type: type,
        ...common,
        session_id: snapshot.sessionId,
        conversation_history: snapshot.recentPrompts.map((prompt) => ({
          turn_number: prompt.turn,
          role: "user" as const,
          summary: prompt.text,
        })),
        current_intent: snapshot.currentPrompt ?? snapshot.originalPrompt,
        active_topics: [],
        recent_routings: [],
        agent_affinities: {},
        pending_followups: [],
        active_agents: [],
        key_context: contextNotes,
        assumptions: snapshot.decisions,
      };
  }
}

const MARKS = { pending: "[ ]", in_progress: "[~]", done: "[x]" } as const;

/**
 * The text a new instance's window starts with: the same facts for every
 * type, in the order a person taking over would want them. The turns kept
 * and the marker for everything before follow it in the window.
 */
export function renderHandoffState(
  state: HandoffState,
  snapshot: PreparedContextSnapshot,
  agents: { from: string; to: string; referenceId?: string },
): string {
  const lines = [
    `[Handoff ${state.handoff_index}: you are ${agents.to}, a fresh instance of the ${state.agent_type} agent, continuing the work of ${agents.from} ` +
      `(reason: ${state.handoff_reason}). Nothing was summarised away: ` +
      (agents.referenceId
        ? `everything said and done before the turns below is retrievable with retrieve_context(ref_id="${agents.referenceId}"), search_history or get_turn_range.]`
        : "earlier turns are retrievable with search_history or get_turn_range.]"),
    "",
    "## Original prompt (verbatim)",
    snapshot.originalPrompt,
  ];
  if (snapshot.currentPrompt !== undefined) lines.push("", "## Current prompt (verbatim)", snapshot.currentPrompt);
  lines.push("", "## Task list (keep it up to date with todo_write)");
  lines.push(
    ...(snapshot.tasks.length > 0 ? snapshot.tasks.map((task) => `${MARKS[task.status]} ${task.content}`) : ["(none written yet)"]),
  );
  if (snapshot.decisions.length > 0) lines.push("", "## Key decisions", ...snapshot.decisions.map((note) => `- ${note}`));
  if (snapshot.blockers.length > 0) lines.push("", "## Blockers", ...snapshot.blockers.map((note) => `- ${note}`));
  if (snapshot.filesChanged.length > 0) {
    lines.push("", "## Files changed so far");
    lines.push(...snapshot.filesChanged.map((file) => `- ${file.path} (${file.action}${file.description ? `, ${file.description}` : ""})`));
  }
  if (snapshot.toolErrors.length > 0) lines.push("", "## Errors hit recently", ...snapshot.toolErrors.map((error) => `- ${error}`));
  lines.push("", "The most recent turns follow as they were. Continue the task from where it stands; do not redo what is done.");
  return lines.join("\n");
}
