import type { PipelineSummaryInputs } from "./pipeline-machine.js";

/**
 * The orchestrator's hook: before each prompt, a `[WORKFLOW]` block of at most
 * `MAX_WORKFLOW_CHARS` in place of a code prefetch. In a pipeline it holds
 * the phase, each stage's outcome, the pending issues and the failing
 * tests; outside one, the task list.
 */

/** About 1,500 tokens. */
export const MAX_WORKFLOW_CHARS = 6_000;

export interface WorkflowTask {
  content: string;
  status: "pending" | "in_progress" | "done";
}

export type WorkflowSource =
  | { kind: "pipeline"; phase: string; inputs: PipelineSummaryInputs }
  | { kind: "tasks"; tasks: readonly WorkflowTask[] };

export function workflowBlock(source: WorkflowSource): string {
  const lines = source.kind === "pipeline" ? pipelineLines(source.phase, source.inputs) : taskLines(source.tasks);
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > MAX_WORKFLOW_CHARS - 40) {
      kept.push(`(… ${lines.length - kept.length} more lines left out)`);
      break;
    }
    kept.push(line);
    size += line.length + 1;
  }
  return kept.join("\n");
}

function pipelineLines(phase: string, inputs: PipelineSummaryInputs): string[] {
  const lines = [`[WORKFLOW · pipeline · phase ${phase} · fix rounds ${inputs.fix_rounds} of ${inputs.max_fix_rounds}]`];
  for (const stage of inputs.completed) {
    lines.push(
      `- ${stage.stage}${stage.round > 0 ? ` (round ${stage.round})` : ""}${stage.agent_id ? ` · ${stage.agent_id}` : ""}: ${stage.note ?? stage.status}`,
    );
  }
  if (inputs.pending_issues.length > 0) {
    lines.push(`Pending issues${inputs.pending_issues_unverified ? " (not checked again)" : ""}:`);
    for (const issue of inputs.pending_issues)
      lines.push(`- [${issue.severity}] ${issue.file}${issue.line ? `:${issue.line}` : ""} ${issue.description}`);
  }
  if (inputs.failing_tests.length > 0) {
    lines.push("Failing tests:");
    for (const test of inputs.failing_tests) lines.push(`- ${test.test_name}: ${test.error}`);
  }
  if (inputs.stopped) lines.push(`Stopped at ${inputs.stopped.stage}: ${inputs.stopped.reason}`);
  return lines;
}

function taskLines(tasks: readonly WorkflowTask[]): string[] {
  if (tasks.length === 0) return ["[WORKFLOW · no task list yet: keep one with todo_write]"];
  const done = tasks.filter((task) => task.status === "done").length;
  return [
    `[WORKFLOW · task list · ${done} of ${tasks.length} done]`,
    ...tasks.map((task) => `- [${task.status === "done" ? "x" : task.status === "in_progress" ? "~" : " "}] ${task.content}`),
  ];
}
