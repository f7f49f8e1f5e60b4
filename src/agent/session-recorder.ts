import { randomUUID } from "node:crypto";
import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { ChatMessage, ModelResponse, ToolUseBlock, Usage } from "../llm/model-types.js";
import type { SessionMessageRow, SessionRecord, SessionRepository } from "../store/session-repository.js";
import type { ToolRunResult } from "./tools/tool-registry.js";

/** Context Sylk put in front of the model on its own (prefetch), recorded like everything else. */
export interface InjectedContext {
  text: string;
  relatedFiles: string[];
}

export interface SessionIdentity {
  agentId: string;
  agentType: string;
}

/**
 * Seed 002 "Universal Indexing": every prompt, response, tool call and tool
 * result is a content entry, written as it happens, with session, agent,
 * turn and the parent that prompted it (result → call → response → prompt).
 * The message list the model sees is kept beside it for resuming.
 */
export class SessionRecorder {
  private turn: number;

  private constructor(
    readonly session: SessionRecord,
    private readonly sessions: SessionRepository,
    private readonly contentStore: UniversalContentStore,
    private readonly identity: SessionIdentity,
    private readonly history: SessionMessageRow[],
  ) {
    this.turn = session.turns;
  }

  static start(
    deps: { sessions: SessionRepository; contentStore: UniversalContentStore; identity: SessionIdentity },
    details: { title: string; provider: string; model: string },
  ): SessionRecorder {
    const id = randomUUID();
    deps.sessions.create({ id, title: details.title.replace(/\s+/g, " ").trim().slice(0, 100), provider: details.provider, model: details.model });
    const session = deps.sessions.get(id) as SessionRecord;
    return new SessionRecorder(session, deps.sessions, deps.contentStore, deps.identity, []);
  }

  static resume(
    deps: { sessions: SessionRepository; contentStore: UniversalContentStore; identity: SessionIdentity },
    session: SessionRecord,
  ): SessionRecorder {
    return new SessionRecorder(session, deps.sessions, deps.contentStore, deps.identity, deps.sessions.messageRows(session.id));
  }

  /** The whole conversation, evicted messages included. */
  messages(): ChatMessage[] {
    return this.history.map((row) => row.message);
  }

  /** The conversation as stored, with turns, entry ids and evictions: what the context manager works on. */
  rows(): readonly SessionMessageRow[] {
    return this.history;
  }

  /** Records that a reference replaced these messages in the window. */
  markEvicted(ordinals: readonly number[], referenceId: string): void {
    this.sessions.markEvicted(this.session.id, ordinals, referenceId);
    const evicted = new Set(ordinals);
    for (const row of this.history) if (evicted.has(row.ordinal)) row.evictedBy = referenceId;
  }

  get currentTurn(): number {
    return this.turn;
  }

  /** A new model call; turn numbers run on across the prompts of a session. */
  nextTurn(): number {
    this.turn += 1;
    return this.turn;
  }

  /**
   * Records the prompt (and the prefetched context injected with it, as its
   * own entry) and appends them as one user message; returns the prompt's id.
   */
  async recordPrompt(prompt: string, turn: number, injected?: InjectedContext): Promise<string> {
    const entry = await this.contentStore.indexContent({ ...this.base(turn), contentType: "user_prompt", content: prompt });
    const extra = injected ? await this.recordInjection(turn, injected, entry.id) : undefined;
    this.append(
      { role: "user", content: [{ type: "text", text: prompt }, ...(extra ? [{ type: "text" as const, text: injected?.text ?? "" }] : [])] },
      turn,
      [entry.id, ...(extra ? [extra] : [])],
    );
    return entry.id;
  }

  /** Records the response text and each tool call; returns the entry ids (response first, then calls). */
  async recordResponse(turn: number, response: ModelResponse, parentId: string): Promise<{ responseId: string; callIds: Map<string, string> }> {
    this.sessions.recordTurn(this.session.id, response.usage);
    const text = responseText(response);
    const responseEntry = await this.contentStore.indexContent({
      ...this.base(turn),
      contentType: "agent_response",
      content: text,
      parentId,
      metadata: { stopReason: response.stopReason, model: response.model, usage: response.usage },
    });
    const callIds = new Map<string, string>();
    for (const call of response.content.filter((block): block is ToolUseBlock => block.type === "tool_use")) {
      const entry = await this.contentStore.indexContent({
        ...this.base(turn),
        contentType: "tool_call",
        content: JSON.stringify({ name: call.name, input: call.input }),
        parentId: responseEntry.id,
        metadata: { toolUseId: call.id, tool: call.name },
      });
      callIds.set(call.id, entry.id);
    }
    this.append({ role: "assistant", content: response.content }, turn, [responseEntry.id, ...callIds.values()]);
    return { responseId: responseEntry.id, callIds };
  }

  async recordToolResult(turn: number, call: ToolUseBlock, result: ToolRunResult, parentId: string): Promise<string> {
    const entry = await this.contentStore.indexContent({
      ...this.base(turn),
      contentType: "tool_result",
      content: result.output,
      parentId,
      relatedFiles: result.relatedFiles ?? [],
      metadata: { toolUseId: call.id, tool: call.name, isError: result.isError ?? false, permission: result.permission },
    });
    return entry.id;
  }

  /** Tool results go back to the model as one user message (with prefetched context after them, if any). */
  async appendToolResults(
    turn: number,
    results: Array<{ call: ToolUseBlock; result: Pick<ToolRunResult, "output" | "isError">; entryId?: string }>,
    injected?: InjectedContext,
  ): Promise<void> {
    const extra = injected ? await this.recordInjection(turn, injected, results.at(-1)?.entryId) : undefined;
    this.append(
      {
        role: "user",
        content: [
          ...results.map(({ call, result }) => ({
            type: "tool_result" as const,
            toolUseId: call.id,
            content: result.output,
            isError: result.isError ?? false,
          })),
          ...(extra ? [{ type: "text" as const, text: injected?.text ?? "" }] : []),
        ],
      },
      turn,
      [...results.flatMap(({ entryId }) => (entryId ? [entryId] : [])), ...(extra ? [extra] : [])],
    );
  }

  /**
   * Closes a run that ended on a user message (interrupted, failed, stopped
   * at the turn limit) with an assistant message saying so, after whatever
   * part of the answer had arrived. The conversation then alternates as
   * recorded: the next prompt follows an answer, instead of being merged
   * with the unanswered one and answered twice.
   */
  async closeUnanswered(turn: number, partial: string, note: string, parentId?: string): Promise<void> {
    if (this.history.at(-1)?.message.role !== "user") return;
    const text = `${partial.trim() ? `${partial.trimEnd()}\n\n` : ""}[${note}]`;
    const entry = await this.contentStore.indexContent({
      ...this.base(turn),
      contentType: "agent_response",
      content: text,
      metadata: { unanswered: note },
      ...(parentId ? { parentId } : {}),
    });
    this.append({ role: "assistant", content: [{ type: "text", text }] }, turn, [entry.id]);
  }

  /**
   * Something the model must know that happened outside the conversation
   * (the user took back edits): a note it reads with the next prompt.
   */
  async recordNote(text: string): Promise<void> {
    const entry = await this.contentStore.indexContent({ ...this.base(this.turn), contentType: "agent_message", content: text, metadata: { note: true } });
    this.append({ role: "user", content: [{ type: "text", text: `[${text}]` }] }, this.turn, [entry.id]);
  }

  private async recordInjection(turn: number, injected: InjectedContext, parentId: string | undefined): Promise<string> {
    const entry = await this.contentStore.indexContent({
      ...this.base(turn),
      contentType: "agent_message",
      content: injected.text,
      relatedFiles: injected.relatedFiles,
      metadata: { prefetch: true },
      ...(parentId ? { parentId } : {}),
    });
    return entry.id;
  }

  totalUsage(): Usage {
    return (this.sessions.get(this.session.id) ?? this.session).usage;
  }

  private append(message: ChatMessage, turn: number, entryIds: string[]): void {
    const ordinal = this.sessions.appendMessage(this.session.id, message, { turn, entryIds });
    this.history.push({ ordinal, message, turn, entryIds, evictedBy: null });
  }

  private base(turn: number) {
    return { sessionId: this.session.id, agentId: this.identity.agentId, agentType: this.identity.agentType, turnNumber: turn };
  }
}

export function responseText(response: Pick<ModelResponse, "content">): string {
  return response.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
