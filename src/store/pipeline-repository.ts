import type { Usage } from "../llm/model-types.js";
import type { SqliteDatabase } from "./database.js";
import { maskSecretsInJson } from "../security/mask-values.js";

/** The stages a pipeline runs, in the order they first run (a fix round repeats fix and review). */
export const PIPELINE_STAGES = ["plan", "design", "implement", "review", "fix", "test", "summary"] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** running until it ends; done: the summary ran; stopped: plan mode or the user; failed: a stage ended in error. */
const PIPELINE_STATUSES = ["running", "done", "stopped", "failed"] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

/** How a stage run ended; no_structure: it ended without its structured tool, even after a reminder. */
const STAGE_STATUSES = ["running", "done", "error", "interrupted", "no_structure"] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];
export type EndedStageStatus = Exclude<StageStatus, "running">;

export interface PipelineRecord {
  id: string;
  rootSessionId: string;
  /** The task as the user gave it. */
  task: string;
  status: PipelineStatus;
  stopReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface PipelineStageRecord {
  pipelineId: string;
  ordinal: number;
  stage: PipelineStage;
  agentType: string;
  agentId: string;
  childSessionId: string | null;
  /** The fix round the stage belongs to (0 before any). */
  round: number;
  /** The stage's state as JSON, once it ended. */
  state: string | null;
  stateEntryId: string | null;
  status: StageStatus;
  usage: Usage;
  startedAt: number;
  endedAt: number | null;
}

export interface PipelineWithStages extends PipelineRecord {
  stages: PipelineStageRecord[];
}

export interface StageStart {
  pipelineId: string;
  stage: PipelineStage;
  agentType: string;
  agentId: string;
  /** Null when the stage's session is opened after its row (set it when it ends). */
  childSessionId: string | null;
  round: number;
}

export interface StageEnd {
  status: EndedStageStatus;
  state: string | null;
  stateEntryId: string | null;
  usage: Usage;
  /** The stage's session, when it was not known at its start. */
  childSessionId?: string;
}

interface PipelineRow {
  id: string;
  root_session_id: string;
  task: string;
  status: PipelineStatus;
  stop_reason: string | null;
  created_at: number;
  updated_at: number;
}

interface StageRow {
  pipeline_id: string;
  ordinal: number;
  stage: PipelineStage;
  agent_type: string;
  agent_id: string;
  child_session_id: string | null;
  round: number;
  state: string | null;
  state_entry_id: string | null;
  status: StageStatus;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  started_at: number;
  ended_at: number | null;
}

/** The `pipelines` and `pipeline_stages` rows: what a pipeline ran, in order, and how each stage ended. */
export class PipelineRepository {
  constructor(private readonly db: SqliteDatabase) {}

  create(pipeline: { id: string; rootSessionId: string; task: string }, now: number = Date.now()): void {
    this.db
      .prepare("INSERT INTO pipelines (id, root_session_id, task, status, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?)")
      .run(pipeline.id, pipeline.rootSessionId, pipeline.task, now, now);
  }

  get(id: string): PipelineRecord | undefined {
    const row = this.db.prepare<[string], PipelineRow>("SELECT * FROM pipelines WHERE id = ?").get(id);
    return row ? toPipeline(row) : undefined;
  }

  /** Ends the pipeline; a reason says why it stopped or failed (where it stopped). */
  finish(id: string, status: Exclude<PipelineStatus, "running">, stopReason: string | null = null, now: number = Date.now()): void {
    this.db.prepare("UPDATE pipelines SET status = ?, stop_reason = ?, updated_at = ? WHERE id = ?").run(status, stopReason, now, id);
  }

  /** Starts the pipeline's next stage run and returns its ordinal (0 for the first). */
  startStage(start: StageStart, now: number = Date.now()): number {
    return this.db
      .transaction(() => {
        const ordinal = this.db
          .prepare("SELECT coalesce(max(ordinal) + 1, 0) FROM pipeline_stages WHERE pipeline_id = ?")
          .pluck()
          .get(start.pipelineId) as number;
        this.db
          .prepare(
            `INSERT INTO pipeline_stages (pipeline_id, ordinal, stage, agent_type, agent_id, child_session_id, round, status, started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?)`,
          )
          .run(start.pipelineId, ordinal, start.stage, start.agentType, start.agentId, start.childSessionId, start.round, now);
        this.touch(start.pipelineId, now);
        return ordinal;
      })
      .immediate();
  }

  endStage(pipelineId: string, ordinal: number, end: StageEnd, now: number = Date.now()): void {
    const result = this.db
      .prepare(
        `UPDATE pipeline_stages SET status = ?, state = ?, state_entry_id = ?, input_tokens = ?, output_tokens = ?,
           cache_read_tokens = ?, cache_write_tokens = ?, child_session_id = coalesce(?, child_session_id), ended_at = ?
         WHERE pipeline_id = ? AND ordinal = ?`,
      )
      .run(
        end.status,
        // The stage's structured answer (a plan, a review), the model's own text.
        end.state === null ? null : maskSecretsInJson(end.state),
        end.stateEntryId,
        end.usage.inputTokens,
        end.usage.outputTokens,
        end.usage.cacheReadTokens,
        end.usage.cacheWriteTokens,
        end.childSessionId ?? null,
        now,
        pipelineId,
        ordinal,
      );
    if (result.changes === 0) throw new Error(`Pipeline ${pipelineId} has no stage ${ordinal}.`);
    this.touch(pipelineId, now);
  }

  stages(pipelineId: string): PipelineStageRecord[] {
    const rows = this.db
      .prepare<[string], StageRow>("SELECT * FROM pipeline_stages WHERE pipeline_id = ? ORDER BY ordinal")
      .all(pipelineId);
    return rows.map(toStage);
  }

  /** The root session's pipelines, oldest first, each with its stages in order. */
  listForSession(rootSessionId: string): PipelineWithStages[] {
    const rows = this.db
      .prepare<[string], PipelineRow>("SELECT * FROM pipelines WHERE root_session_id = ? ORDER BY created_at, rowid")
      .all(rootSessionId);
    return rows.map((row) => ({ ...toPipeline(row), stages: this.stages(row.id) }));
  }

  private touch(id: string, now: number): void {
    this.db.prepare("UPDATE pipelines SET updated_at = ? WHERE id = ?").run(now, id);
  }
}

function toPipeline(row: PipelineRow): PipelineRecord {
  return {
    id: row.id,
    rootSessionId: row.root_session_id,
    task: row.task,
    status: row.status,
    stopReason: row.stop_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toStage(row: StageRow): PipelineStageRecord {
  return {
    pipelineId: row.pipeline_id,
    ordinal: row.ordinal,
    stage: row.stage,
    agentType: row.agent_type,
    agentId: row.agent_id,
    childSessionId: row.child_session_id,
    round: row.round,
    state: row.state,
    stateEntryId: row.state_entry_id,
    status: row.status,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      cacheReadTokens: row.cache_read_tokens,
      cacheWriteTokens: row.cache_write_tokens,
    },
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}
