/**
 * The handoff tables' rows as the rest of Sylk reads them: agent instances,
 * quality observations, degradation firings, task lists, files changed and
 * learned profiles, and the conversions from their SQL rows.
 */

/** One agent instance of a session, as stored. */
export interface AgentInstanceRecord {
  sessionId: string;
  agentId: string;
  agentType: string;
  model: string;
  handoffIndex: number;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  handoffEntryId: string | null;
  /** The handoff state it started from (JSON), and the text its window starts with. */
  state: string | null;
  stateText: string | null;
  preparedFraction: number | null;
  /**
   * The onset posterior it started from, as JSON `OnsetMemory`: a continued
   * session starts it again from there. Null on rows from before it was kept.
   */
  onsetStart: string | null;
  /** JSON summary of its observations, written when it ended. */
  summary: string | null;
  profileApplied: boolean;
  userProfileApplied: boolean;
}

export interface QualityObservationRecord {
  sessionId: string;
  agentId: string;
  agentType: string;
  model: string;
  turn: number;
  contextTokens: number;
  quality: number;
  signals: Record<string, number>;
  createdAt?: number;
}

export interface FiringRecord {
  sessionId: string;
  agentId: string;
  turn: number;
  condition: string;
  action: "handoff" | "evict";
  contextTokens: number;
  lookaheadTokens: number;
  predictedMean: number;
  predictedSd: number;
  lookaheadMean: number;
  lookaheadSd: number;
  peak: number;
  threshold: number;
}

export interface TaskItem {
  content: string;
  status: "pending" | "in_progress" | "done";
}

export interface TaskListRecord {
  items: TaskItem[];
  decisions: string[];
  blockers: string[];
  updatedAt: number;
}

export interface FileChangeRecord {
  path: string;
  action: "create" | "modify" | "delete";
  linesAdded: number;
  linesRemoved: number;
}

export interface InstanceRow {
  session_id: string;
  agent_id: string;
  agent_type: string;
  model: string;
  handoff_index: number;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  handoff_entry_id: string | null;
  state: string | null;
  state_text: string | null;
  prepared_fraction: number | null;
  onset_start: string | null;
  summary: string | null;
  profile_applied: number;
  user_profile_applied: number;
}

export interface ProfileRow {
  agentType: string;
  model: string;
  /** `ProfileStatistics` as JSON. */
  statistics: string;
}

/** An `agent_instances` row as read. */
export function toInstance(row: InstanceRow): AgentInstanceRecord {
  return {
    sessionId: row.session_id,
    agentId: row.agent_id,
    agentType: row.agent_type,
    model: row.model,
    handoffIndex: row.handoff_index,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    endReason: row.end_reason,
    handoffEntryId: row.handoff_entry_id,
    state: row.state,
    stateText: row.state_text,
    preparedFraction: row.prepared_fraction,
    onsetStart: row.onset_start,
    summary: row.summary,
    profileApplied: row.profile_applied === 1,
    userProfileApplied: row.user_profile_applied === 1,
  };
}

/** A `quality_observations` row as read. */
export function toObservation(row: Record<string, unknown>): QualityObservationRecord {
  return {
    sessionId: row.session_id as string,
    agentId: row.agent_id as string,
    agentType: row.agent_type as string,
    model: row.model as string,
    turn: row.turn as number,
    contextTokens: row.context_tokens as number,
    quality: row.quality as number,
    signals: JSON.parse(row.signals as string) as Record<string, number>,
    createdAt: row.created_at as number,
  };
}

/** A `degradation_firings` row as read. */
export function toFiring(row: Record<string, number | string>): FiringRecord & { createdAt: number } {
  return {
    sessionId: row.session_id as string,
    agentId: row.agent_id as string,
    turn: row.turn as number,
    condition: row.condition as string,
    action: row.action as "handoff" | "evict",
    contextTokens: row.context_tokens as number,
    lookaheadTokens: row.lookahead_tokens as number,
    predictedMean: row.predicted_mean as number,
    predictedSd: row.predicted_sd as number,
    lookaheadMean: row.lookahead_mean as number,
    lookaheadSd: row.lookahead_sd as number,
    peak: row.peak as number,
    threshold: row.threshold as number,
    createdAt: row.created_at as number,
  };
}
