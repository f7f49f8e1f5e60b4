import { randomUUID } from "node:crypto";
import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import { createReportIssuesTool } from "../../agent/tools/report-issues.js";
import { createReportTestResultsTool } from "../../agent/tools/report-test-results.js";
import { createSubmitDesignTool } from "../../agent/tools/submit-design.js";
import { createSubmitPlanTool } from "../../agent/tools/submit-plan.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { PermissionMode } from "../../agent/permissions/permission-policy.js";
import type { AgentType } from "../../roles/agent-types.js";
import { EMPTY_USAGE, addUsage, type Usage } from "../../llm/model-types.js";
import type { EndedStageStatus, PipelineStage } from "../../store/pipeline-repository.js";
import { nextStep, renderStoppedReport, stagePrompt, summaryInputs, type PipelineProgress, type RunStep } from "../pipeline-machine.js";
import {
  buildStageState,
  type EndedStage,
  noStructureState,
  STAGE_CONTENT_TYPES,
  STAGE_TOOLS,
  type StageStateContext,
  type StageStates,
  type StageSubmissions,
} from "../stage-state.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import type { WorkflowSource } from "../workflow-block.js";
import type { ProjectServices } from "../../app/project-services.js";
import type { AgentIdAllocator } from "./agent-ids.js";
import { ChildRun } from "./child-run.js";
import type { ChildSession, OpenChildSession } from "./child-session.js";

export interface PipelineRunnerDeps {
  services: Pick<ProjectServices, "pipelines" | "contentStore">;
  /** Opens a stage agent's session in the root's tree. */
  openSession: OpenChildSession;
  agentIds: Pick<AgentIdAllocator, "next">;
  /** The session the user talks to: the pipeline's stages are its children, its task and answer are its turn. */
  root: {
    /** Starts the root session if it has none yet; returns its id. */
    ensureSession(title: string): string;
    /** Records the task and the pipeline's answer as one turn of the root conversation. */
    recordTurn(task: string, answer: string): Promise<void>;
  };
  settings: { maxTurns: number; models: Readonly<Record<string, string>>; maxFixRounds: number };
  /** The permission mode the run starts in (plan mode plans and stops; default mode asks before writes). */
  permissionMode: () => PermissionMode;
  /** The run cannot ask the user (a script): writes will be refused unless settings allow them. */
  canAsk: boolean;
  model: string | undefined;
}

const REMINDER = (tool: string) => `You have not called ${tool}. Call it now with what this stage produced, then end your turn.`;

/** One stage agent of a pipeline: the same engineer fixes what it implemented, the same inspector re-reviews. */
interface StageAgent {
  agentId: string;
  agentType: AgentType;
  session: ChildSession;
  submitted: Partial<StageSubmissions>;
}

/**
 * Runs a pipeline: the machine says which stage
 * runs next; each stage is an agent in a child session of the root, told
 * the task and the previous stage's state, ending with its structured tool
 * (one reminder, then an empty state with a note, never findings read from
 * prose). Each stage's state is stored as an entry and a row. Permissions
 * apply as in any run: the agents share the root's policy and approver.
 */
export async function* runPipeline(deps: PipelineRunnerDeps, task: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult> {
  const repository = deps.services.pipelines;
  const rootSessionId = deps.root.ensureSession(task);
  const pipelineId = randomUUID();
  repository.create({ id: pipelineId, rootSessionId, task });
  const progress: { stages: EndedStage[]; maxFixRounds: number; planMode: boolean } = {
    stages: [],
    maxFixRounds: deps.settings.maxFixRounds,
    planMode: deps.permissionMode() === "plan",
  };
  const agents = new Map<AgentType, StageAgent>();
  let usage: Usage = EMPTY_USAGE;
  let turns = 0;
  let toolCalls = 0;
  let summaryAnswer: string | undefined;
  let warnedAboutWrites = false;
  let phase: string = "plan";
  // Read when each of the orchestrator's prompts starts: the pipeline as it stands then.
  const workflow = (): WorkflowSource => ({ kind: "pipeline", phase, inputs: summaryInputs(progress as PipelineProgress) });
  try {
    for (;;) {
      const step = nextStep(progress as PipelineProgress);
      if (step.kind === "finish") {
        repository.finish(pipelineId, step.status, step.reason);
        const answer =
          step.status === "done" && summaryAnswer ? summaryAnswer : renderStoppedReport(summaryInputs(progress as PipelineProgress));
        await deps.root.recordTurn(task, answer);
        const stopReason =
          step.status === "done" ? "end_turn" : step.status === "failed" ? "error" : signal.aborted ? "interrupted" : "end_turn";
        // Shown and streamed as an answer is: the screen and the printers need nothing else.
        yield { type: "text_delta", text: answer };
        yield { type: "assistant_message", turn: 0, text: answer, toolCalls: 0 };
        const result: AgentResult = {
          sessionId: rootSessionId,
          response: answer,
          stopReason,
          turns,
          toolCalls,
          usage: EMPTY_USAGE,
          subagents: { runs: progress.stages.length, usage },
          ...(step.status === "failed" ? { error: { kind: "unknown" as const, message: step.reason ?? "a stage failed" } } : {}),
        };
        yield { type: "done", result };
        return result;
      }
      if (
        (step.stage === "implement" || step.stage === "fix") &&
        !deps.canAsk &&
        !warnedAboutWrites &&
        deps.permissionMode() === "default"
      ) {
        warnedAboutWrites = true;
        yield {
          type: "error",
          kind: "permissions",
          message:
            "The engineer stage will have its file edits and commands refused: this run cannot ask. Pass --permission-mode accept-edits, or allow them in .sylkrc.",
          fatal: false,
        };
      }
      phase = step.stage;
      const agent = stageAgent(deps, agents, step, rootSessionId, pipelineId, workflow);
      const ordinal = repository.startStage({
        pipelineId,
        stage: step.stage,
        agentType: step.agentType,
        agentId: agent.agentId,
        childSessionId: null,
        round: step.round,
      });
      const parentToolUseId = `pipeline-${pipelineId.slice(0, 8)}-${ordinal}`;
      const started = { pipelineId, stage: step.stage, ordinal, round: step.round, agentId: agent.agentId, agentType: step.agentType };
      yield { type: "pipeline_stage", ...started, status: "start" };
      delete agent.submitted[step.stage];
      const diff = step.stage === "review" ? agents.get("engineer")?.session.diff() : undefined;
      const run = new ChildRun(agent, parentToolUseId, signal);
      const first = yield* run.prompt(stagePrompt(task, step, progress as PipelineProgress, diff !== undefined ? { diff } : {}));
      const tool = STAGE_TOOLS[step.stage];
      const last =
        tool && agent.submitted[step.stage] === undefined && first.stopReason === "end_turn" ? yield* run.prompt(REMINDER(tool)) : first;
      const stageUsage = run.usage;
      usage = addUsage(usage, stageUsage);
      turns += run.turns;
      toolCalls += run.toolCalls;
      const context: StageStateContext = {
        pipelineId,
        sessionId: rootSessionId,
        task,
        round: step.round,
        earlier: progress.stages,
        now: Date.now(),
      };
      const { status, state } = stageOutcome(step, agent, last, context);
      if (step.stage === "summary" && status === "done") summaryAnswer = last.response;
      const stateEntryId = state ? await storeState(deps.services, agent, step, state, pipelineId) : null;
      repository.endStage(pipelineId, ordinal, {
        status,
        state: state ? JSON.stringify(state) : null,
        stateEntryId,
        usage: stageUsage,
        childSessionId: agent.session.sessionId,
      });
      progress.stages.push({ stage: step.stage, round: step.round, status, state, agentId: agent.agentId } as EndedStage);
      yield {
        type: "pipeline_stage",
        ...started,
        status: "end",
        outcome: status,
        usage: stageUsage,
        ...(stateEntryId ? { stateEntryId } : {}),
      };
    }
  } finally {
    for (const agent of agents.values()) agent.session.close();
  }
}

/** The stage's agent: opened once per type (the fix round's engineer is the implementer), with its stage's structured tool. */
function stageAgent(
  deps: PipelineRunnerDeps,
  agents: Map<AgentType, StageAgent>,
  step: RunStep,
  rootSessionId: string,
  pipelineId: string,
  workflow: () => WorkflowSource,
): StageAgent {
  const existing = agents.get(step.agentType);
  if (existing) return existing;
  const agentId = deps.agentIds.next(step.agentType);
  const submitted: Partial<StageSubmissions> = {};
  const model = deps.settings.models[step.agentType] ?? deps.model;
  const session = deps.openSession({
    agentType: step.agentType,
    placement: "pipeline",
    parent: { sessionId: rootSessionId, toolUseId: `pipeline-${pipelineId.slice(0, 8)}`, agentId, kind: "stage", depth: 1 },
    extraTools: structuredTools(step.agentType, submitted),
    // The orchestrator's hook: the pipeline's state as it stands when each of its prompts starts.
    workflow,
    maxTurns: deps.settings.maxTurns,
    ...(model ? { model } : {}),
  });
  const agent = { agentId, agentType: step.agentType, session, submitted };
  agents.set(step.agentType, agent);
  return agent;
}

/** The tools a stage ends with, keeping the last call of each (a second call replaces the first, as their descriptions say). */
function structuredTools(type: AgentType, submitted: Partial<StageSubmissions>): ToolDefinition[] {
  switch (type) {
    case "orchestrator":
      return [
        createSubmitPlanTool({
          submit: (input) => {
            submitted.plan = input;
          },
        }),
      ];
    case "architect":
      return [
        createSubmitDesignTool({
          submit: (input) => {
            submitted.design = input;
          },
        }),
      ];
    case "inspector":
      return [
        createReportIssuesTool({
          submit: (input) => {
            submitted.review = input;
          },
        }),
      ];
    case "tester":
      return [
        createReportTestResultsTool({
          submit: (input) => {
            submitted.test = input;
          },
        }),
      ];
    default:
      return [];
  }
}

/** How the stage ended, and the state it stores (null after an error or an interruption). */
function stageOutcome(
  step: RunStep,
  agent: StageAgent,
  result: AgentResult,
  context: StageStateContext,
): { status: EndedStageStatus; state: StageStates[PipelineStage] | null } {
  if (result.stopReason === "interrupted") return { status: "interrupted", state: null };
  if (result.stopReason === "error") return { status: "error", state: null };
  const stage = step.stage;
  if (stage === "implement" || stage === "fix") {
    const handoff = agent.session.handoffState(`pipeline ${stage} stage`);
    if (handoff?.agent_type !== "engineer") return { status: "no_structure", state: noStructureState(stage, context) };
    const { agent_type: _type, ...engineer } = handoff;
    return { status: "done", state: buildStageState(stage, engineer, context) };
  }
  if (stage === "summary") return { status: "done", state: buildStageState("summary", { answer: result.response }, context) };
  const submitted = agent.submitted[stage];
  if (submitted === undefined) return { status: "no_structure", state: noStructureState(stage, context) };
  return { status: "done", state: buildStageState(stage, submitted as never, context) };
}

/** The stage's state as a content entry of the stage's type, in the stage agent's session: searchable like everything else. */
async function storeState(
  services: Pick<ProjectServices, "contentStore">,
  agent: StageAgent,
  step: RunStep,
  state: object,
  pipelineId: string,
): Promise<string> {
  const content = JSON.stringify(state, null, 2);
  const [entry] = await services.contentStore.indexContents([
    {
      sessionId: agent.session.sessionId,
      agentId: agent.agentId,
      agentType: step.agentType,
      contentType: STAGE_CONTENT_TYPES[step.stage],
      content,
      tokenCount: estimateTokens(content),
      timestamp: Date.now(),
      turnNumber: 0,
      metadata: { kind: "pipeline_stage_state", pipeline_id: pipelineId, stage: step.stage, round: step.round },
    },
  ]);
  return entry?.id ?? "";
}
