import { readFileSync } from "node:fs";
import type { AgentType } from "../roles/agent-types.js";
import type { FailureDesc, Issue } from "../handoff/handoff-state.js";
import type { EndedStageStatus, PipelineStage, PipelineStatus } from "../store/pipeline-repository.js";
import { type EndedStage, latestReviewState, latestState, NO_STRUCTURE_NOTE, STAGE_AGENT_TYPES } from "./stage-state.js";

/**
 * The pipeline's state machine: plan → design →
 * implement → review → (fix → review)* → test → summary. Pure: it reads the
 * stages that ended and says what runs next, what each stage is told, and
 * what the summary is made of. The runner does the running.
 */

export interface PipelineProgress {
  /** The stages that ended, in the order they ran. */
  stages: readonly EndedStage[];
  /** `pipeline.maxFixRounds` (default 2). */
  maxFixRounds: number;
  /** The permission mode is `plan`: nothing may change, so the pipeline stops after the design. */
  planMode: boolean;
}

export interface RunStep {
  kind: "run";
  stage: PipelineStage;
  /** A fix and the review after it share their round (1, 2, ...); every other stage is round 0. */
  round: number;
  agentType: AgentType;
}

export interface FinishStep {
  kind: "finish";
  status: Exclude<PipelineStatus, "running">;
  /** Where and why it stopped; null when the summary ran. */
  reason: string | null;
}

export type PipelineStep = RunStep | FinishStep;

/** Severities that start a fix round; minor issues go to the summary. */
const BLOCKING: ReadonlySet<Issue["severity"]> = new Set(["critical", "major"]);

/** What runs next, or how the pipeline ends. */
export function nextStep(progress: PipelineProgress): PipelineStep {
  if (!Number.isInteger(progress.maxFixRounds) || progress.maxFixRounds < 0) {
    throw new RangeError(`maxFixRounds must be a whole number ≥ 0 (got ${progress.maxFixRounds}).`);
  }
  const last = progress.stages.at(-1);
  if (!last) return run("plan", 0);
  if (last.status === "error") return { kind: "finish", status: "failed", reason: `${stageName(last)} ended in an error` };
  if (last.status === "interrupted") return { kind: "finish", status: "stopped", reason: `${stageName(last)} was interrupted` };
  switch (last.stage) {
    case "plan":
      return run("design", 0);
    case "design":
      return progress.planMode
        ? { kind: "finish", status: "stopped", reason: "plan mode: the pipeline stops after the design, before anything is changed" }
        : run("implement", 0);
    case "implement":
      return run("review", 0);
    case "review":
      return last.round < progress.maxFixRounds && blockingIssues(progress.stages).length > 0 ? run("fix", last.round + 1) : run("test", 0);
    case "fix":
      return run("review", last.round);
    case "test":
      return run("summary", 0);
    case "summary":
      return { kind: "finish", status: "done", reason: null };
  }
}

/**
 * The critical and major issues the last review left pending. Only a review
 * that reported through its tool counts: one without structure found nothing
 * it can be held to, and so starts no fix round.
 */
export function blockingIssues(stages: readonly EndedStage[]): Issue[] {
  const last = [...stages].reverse().find((stage) => stage.stage === "review");
  if (last?.status !== "done" || !last.state) return [];
  return last.state.pending_issues.filter((issue) => BLOCKING.has(issue.severity));
}

export interface StagePromptExtras {
  /** For a review: the exact diff of the engineer stages' checkpoints. */
  diff?: string;
}

/**
 * What a stage is told: the task verbatim, what the stage is to do, then the
 * previous stage's state as a JSON block. A fix round also gets the issues
 * to fix, a re-review the issues to check, the summary what it is made of.
 */
export function stagePrompt(task: string, step: RunStep, progress: PipelineProgress, extras: StagePromptExtras = {}): string {
  const instruction = step.stage === "review" && step.round > 0 ? "re-review" : step.stage;
  const round = step.round > 0 ? `, fix round ${step.round} of at most ${progress.maxFixRounds}` : "";
  const parts = [
    task,
    "",
    "---",
    "",
    `# Pipeline stage: ${step.stage}${round} (you are the ${step.agentType})`,
    "",
    INSTRUCTIONS[instruction],
  ];
  const previous = progress.stages.at(-1);
  if (previous?.state) {
    const note = previous.status === "no_structure" ? ` (it ended without its structured tool: ${NO_STRUCTURE_NOTE})` : "";
    parts.push(
      "",
      `## The previous stage's state: ${stageName(previous)}${note}`,
      "",
      fenced("json", JSON.stringify(previous.state, null, 2)),
    );
  }
  if (step.stage === "fix") {
    parts.push(
      "",
      "## Issues to fix (critical and major, pending after the last review)",
      "",
      fenced("json", JSON.stringify(blockingIssues(progress.stages), null, 2)),
    );
  }
  if (step.stage === "review" && step.round > 0) {
    const pending = latestReviewState(progress.stages)?.pending_issues ?? [];
    parts.push("", "## Pending issues to check", "", fenced("json", JSON.stringify(pending, null, 2)));
  }
  if (step.stage === "review" && extras.diff !== undefined) {
    parts.push(
      "",
      "## The changes to review (the engineer's checkpoints)",
      "",
      extras.diff.trim() ? fenced("diff", extras.diff) : "(no file was changed)",
    );
  }
  if (step.stage === "summary") {
    parts.push("", "## What the pipeline did", "", fenced("json", JSON.stringify(summaryInputs(progress), null, 2)));
  }
  return parts.join("\n");
}

export interface PipelineSummaryInputs {
  /** The stages that ended, in order, and how. */
  completed: Array<{ stage: PipelineStage; round: number; agent_id?: string; status: EndedStageStatus; note?: string }>;
  fix_rounds: number;
  max_fix_rounds: number;
  /** Every issue still pending after the last review that reported (minor ones included). */
  pending_issues: Issue[];
  /** True when a later review ended without structure, so these were not checked again. */
  pending_issues_unverified: boolean;
  failing_tests: FailureDesc[];
  /** Where the pipeline stopped early, and why; null when it ran through (or has not ended). */
  stopped: { stage: PipelineStage; round: number; status: Exclude<PipelineStatus, "running" | "done">; reason: string } | null;
}

/** What the summary is made of: what completed, what is pending, what fails, where it stopped. */
export function summaryInputs(progress: PipelineProgress): PipelineSummaryInputs {
  const reviewed = latestReviewState(progress.stages);
  const lastReview = [...progress.stages].reverse().find((stage) => stage.stage === "review");
  const step = progress.stages.length > 0 ? nextStep(progress) : undefined;
  const last = progress.stages.at(-1);
  return {
    completed: progress.stages.map((stage) => ({
      stage: stage.stage,
      round: stage.round,
      ...(stage.agentId ? { agent_id: stage.agentId } : {}),
      status: stage.status,
      ...(stage.status === "no_structure" ? { note: NO_STRUCTURE_NOTE } : {}),
    })),
    fix_rounds: progress.stages.filter((stage) => stage.stage === "fix").length,
    max_fix_rounds: progress.maxFixRounds,
    pending_issues: reviewed?.pending_issues ?? [],
    pending_issues_unverified: reviewed !== undefined && lastReview?.status !== "done",
    failing_tests: latestState(progress.stages, "test")?.failing_tests ?? [],
    stopped:
      step?.kind === "finish" && step.status !== "done" && last
        ? { stage: last.stage, round: last.round, status: step.status, reason: step.reason ?? "" }
        : null,
  };
}

/**
 * The run's answer when it stopped before its summary stage (plan mode, an
 * error, an interruption): the same inputs, as plain text, with nothing
 * added that a stage did not record.
 */
export function renderStoppedReport(inputs: PipelineSummaryInputs): string {
  const lines: string[] = [];
  lines.push(
    inputs.stopped ? `The pipeline stopped at the ${inputs.stopped.stage} stage: ${inputs.stopped.reason}.` : "The pipeline ran through.",
  );
  lines.push("", "Stages:");
  for (const stage of inputs.completed) {
    const round = stage.round > 0 ? ` (fix round ${stage.round})` : "";
    lines.push(
      `- ${stage.stage}${round}${stage.agent_id ? `, ${stage.agent_id}` : ""}: ${stage.status === "no_structure" ? NO_STRUCTURE_NOTE : stage.status}`,
    );
  }
  if (inputs.pending_issues.length > 0) {
    lines.push("", inputs.pending_issues_unverified ? "Pending issues (not checked again by the last review):" : "Pending issues:");
    for (const issue of inputs.pending_issues) {
      lines.push(`- [${issue.severity}] ${issue.id} ${issue.file}${issue.line ? `:${issue.line}` : ""}: ${issue.description}`);
    }
  }
  if (inputs.failing_tests.length > 0) {
    lines.push("", "Failing tests:", ...inputs.failing_tests.map((failure) => `- ${failure.test_name}: ${failure.error}`));
  }
  return lines.join("\n");
}

function run(stage: PipelineStage, round: number): RunStep {
  return { kind: "run", stage, round, agentType: STAGE_AGENT_TYPES[stage] };
}

function stageName(stage: Pick<EndedStage, "stage" | "round">): string {
  return `the ${stage.stage} stage${stage.round > 0 ? ` (fix round ${stage.round})` : ""}`;
}

/** A fenced block whose fence no run of backticks inside can close. */
function fenced(language: string, text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

type InstructionKey = PipelineStage | "re-review";

/** `stage-instructions.md`: one `## <stage>` section per stage, and `## re-review`. */
const INSTRUCTIONS: Readonly<Record<InstructionKey, string>> = parseInstructions(
  readFileSync(new URL("./stage-instructions.md", import.meta.url), "utf8"),
);

function parseInstructions(text: string): Record<InstructionKey, string> {
  const sections = new Map<string, string>();
  for (const part of text.split(/^## /m).slice(1)) {
    const newline = part.indexOf("\n");
    sections.set(part.slice(0, newline).trim(), part.slice(newline + 1).trim());
  }
  const keys: InstructionKey[] = ["plan", "design", "implement", "review", "fix", "test", "summary", "re-review"];
  const missing = keys.filter((key) => !sections.get(key));
  if (missing.length > 0) throw new Error(`stage-instructions.md has no section for ${missing.join(", ")}.`);
  return Object.fromEntries(keys.map((key) => [key, sections.get(key) as string])) as Record<InstructionKey, string>;
}
