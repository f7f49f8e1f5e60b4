import { randomUUID } from "node:crypto";
import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { ConversationLog } from "../context/conversation-log.js";
import type { ChatMessage, ModelResponse, ToolUseBlock, Usage } from "../llm/model-types.js";
import { maskSecretsIn } from "../security/mask-values.js";
import { maskSecrets } from "../security/secrets.js";
import type { NewContentEntry } from "../store/content-types.js";
import type { SessionMessageRow, SessionParent, SessionRecord, SessionRepository } from "../store/session-repository.js";
import type { ToolRunResult } from "./tools/tool-registry.js";

/** Context Sylk put in front of the model on its own (prefetch), recorded like everything else. */
export interface InjectedContext {
  text: string;
  relatedFiles: string[];
}

/** The result a call cut off by a crash gets: it may have run in part, or not at all. */
const UNFINISHED_CALL_RESULT =
  "Sylk stopped before this tool call finished (the process ended), so it may or may not have taken effect. Check before repeating it.";

/** What the user typed and was shown of something done outside the conversation (`!ls`; "Undid …"). */
export interface NoteDisplay {
  typed?: string;
  outcome?: string;
}

export interface SessionIdentity {
  agentId: string;
  agentType: string;
}

/**
 * Every prompt, response, tool call and tool
 * result is a content entry, written as it happens, with session, agent,
 * turn and the parent that prompted it (result → call → response → prompt).
 * The message list the model sees is kept beside it for resuming, and is
 * the conversation log the context manager builds each window from.
 */
export class SessionRecorder implements ConversationLog {
  private turn: number;

  private constructor(
    readonly session: SessionRecord,
    private readonly sessions: SessionRepository,
    private readonly contentStore: UniversalContentStore,
    private identity: SessionIdentity,
    private readonly history: SessionMessageRow[],
    /** The model this recorder's calls go to: a resumed session may go on with another one (`/model`). */
    private readonly model: string,
  ) {
    this.turn = session.turns;
  }

  static start(
    deps: { sessions: SessionRepository; contentStore: UniversalContentStore; identity: SessionIdentity },
    details: { title: string; provider: string; model: string; parent?: SessionParent; id?: string },
  ): SessionRecorder {
    // The id may be the conversation's, known before its first prompt stores it.
    const id = details.id ?? randomUUID();
    deps.sessions.create({
      id,
      // Masked before it is cut: the first prompt or a `!command` may hold a key, and a cut one no longer looks like one.
      title: maskSecrets(details.title).text.replace(/\s+/g, " ").trim().slice(0, 100),
      provider: details.provider,
      model: details.model,
      ...(details.parent ? { parent: details.parent } : {}),
    });
    const session = deps.sessions.get(id) as SessionRecord;
    return new SessionRecorder(session, deps.sessions, deps.contentStore, deps.identity, [], details.model);
  }

  static resume(
    deps: { sessions: SessionRepository; contentStore: UniversalContentStore; identity: SessionIdentity },
    session: SessionRecord,
    model: string = session.model,
  ): SessionRecorder {
    return new SessionRecorder(session, deps.sessions, deps.contentStore, deps.identity, deps.sessions.messageRows(session.id), model);
  }

  get sessionId(): string {
    return this.session.id;
  }

  /** A handoff: what is recorded from now on belongs to the new agent instance. */
  switchAgent(identity: SessionIdentity): void {
    this.identity = identity;
  }

  get agent(): SessionIdentity {
    return this.identity;
  }

  /** The whole conversation, evicted messages included. */
  messages(): ChatMessage[] {
    return this.history.map((row) => row.message);
  }

  /** The conversation as stored, with turns, entry ids and evictions: what the context manager works on. */
  rows(): readonly SessionMessageRow[] {
    return this.history;
  }

  /**
   * Records that a reference replaced these messages in the window. Each
   * message is found where its ordinal says (a session's ordinals run from
   * 0 without gaps) rather than by a pass over the whole history per
   * eviction: a handoff's trim marks a whole session's worth at once.
   */
  markEvicted(ordinals: readonly number[], referenceId: string): void {
    this.sessions.markEvicted(this.session.id, ordinals, referenceId);
    for (const ordinal of ordinals) {
      const row =
        this.history[ordinal]?.ordinal === ordinal
          ? this.history[ordinal]
          : this.history.find((candidate) => candidate.ordinal === ordinal);
      if (row) row.evictedBy = referenceId;
    }
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
    const entry = { ...this.base(turn), id: randomUUID(), contentType: "user_prompt" as const, content: prompt };
    const injection = injected ? this.injectionEntry(turn, injected, entry.id) : undefined;
    await this.recordMessage(
      { role: "user", content: [{ type: "text", text: prompt }, ...(injected ? [{ type: "text" as const, text: injected.text }] : [])] },
      turn,
      injection ? [entry, injection] : [entry],
    );
    return entry.id;
  }

  /**
   * Records the response text and each tool call; returns the entry ids (response first, then calls).
   * The turn counter, the entries and the message commit together: a crash in between once left
   * a counted turn the conversation did not hold (`--continue` then skipped a turn number).
   */
  async recordResponse(
    turn: number,
    response: ModelResponse,
    parentId: string,
  ): Promise<{ responseId: string; callIds: Map<string, string> }> {
    // The calls run with the model's real input (a file that holds a key is written whole); what is
    // kept, and sent back in later requests, has it masked. The entries are made from the masked
    // input: serialised first, a quoted `password = \"…\"` in it would no longer look like one.
    const content = maskSecretsIn(response.content).value;
    const responseEntry = {
      ...this.base(turn),
      id: randomUUID(),
      contentType: "agent_response" as const,
      content: responseText({ content }),
      parentId,
      metadata: { stopReason: response.stopReason, model: response.model, usage: response.usage },
    };
    const calls = content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    const callEntries = calls.map((call) => ({
      ...this.base(turn),
      id: randomUUID(),
      contentType: "tool_call" as const,
      content: JSON.stringify({ name: call.name, input: call.input }),
      parentId: responseEntry.id,
      metadata: { toolUseId: call.id, tool: call.name },
    }));
    await this.recordMessage({ role: "assistant", content }, turn, [responseEntry, ...callEntries], {
      alongside: () => this.sessions.recordTurn(this.session.id, response.usage, this.model),
    });
    // Keyed by the calls as the model made them, which the loop runs (masking keeps their order).
    const madeCalls = response.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    return { responseId: responseEntry.id, callIds: new Map(madeCalls.map((call, index) => [call.id, callEntries[index]?.id as string])) };
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

  /**
   * An entry Sylk derived from the conversation (a check command's outcome as
   * a `test_result`), at the current turn: searchable like any entry, not a
   * message the model is sent.
   */
  async recordDerived(entry: Pick<NewContentEntry, "contentType" | "content" | "metadata">): Promise<string> {
    const stored = await this.contentStore.indexContent({ ...this.base(this.turn), ...entry });
    return stored.id;
  }

  /** Tool results go back to the model as one user message (with prefetched context after them, if any). */
  async appendToolResults(
    turn: number,
    results: Array<{ call: ToolUseBlock; result: Pick<ToolRunResult, "output" | "isError">; entryId?: string }>,
    injected?: InjectedContext,
  ): Promise<void> {
    const injection = injected ? this.injectionEntry(turn, injected, results.at(-1)?.entryId) : undefined;
    await this.recordMessage(
      {
        role: "user",
        content: [
          ...results.map(({ call, result }) => ({
            type: "tool_result" as const,
            toolUseId: call.id,
            content: result.output,
            isError: result.isError ?? false,
          })),
          ...(injected ? [{ type: "text" as const, text: injected.text }] : []),
        ],
      },
      turn,
      injection ? [injection] : [],
      // The results were recorded as each tool finished.
      { heldEntryIds: results.flatMap(({ entryId }) => (entryId ? [entryId] : [])) },
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
    // A note (the user's /undo, a `!command`) waits for the next prompt; it is not a question left unanswered.
    if (this.lastExchange()?.message.role !== "user") return;
    const text = `${partial.trim() ? `${partial.trimEnd()}\n\n` : ""}[${note}]`;
    const entry = {
      ...this.base(turn),
      id: randomUUID(),
      contentType: "agent_response" as const,
      content: text,
      metadata: { unanswered: note },
      ...(parentId ? { parentId } : {}),
    };
    await this.recordMessage({ role: "assistant", content: [{ type: "text", text }] }, turn, [entry]);
  }

  /**
   * Something the model must know that happened outside the conversation
   * (the user took back edits): a note it reads with the next prompt, kept
   * with what the user typed and saw of it, which a resumed session shows.
   */
  async recordNote(text: string, display: NoteDisplay): Promise<void> {
    const metadata = { note: true, display };
    const entry = { ...this.base(this.turn), id: randomUUID(), contentType: "agent_message" as const, content: text, metadata };
    await this.recordMessage({ role: "user", content: [{ type: "text", text: `[${text}]` }] }, this.turn, [entry]);
  }

  /**
   * A process killed between a model's tool calls and their results leaves the calls
   * unanswered, and the Messages API refuses a conversation where a tool_use is not followed
   * by its tool_result: the session could never be continued. Before a resumed session goes
   * on, each such call is answered, with the result stored before the crash when there is
   * one, else as unfinished. Returns how many calls it answered.
   */
  async answerUnfinishedCalls(): Promise<number> {
    const last = this.history.at(-1);
    if (last?.message.role !== "assistant") return 0;
    const calls = last.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    if (calls.length === 0) return 0;
    const stored = this.contentStore
      .getByTurnRange(this.session.id, last.turn, last.turn)
      .filter((entry) => entry.contentType === "tool_result");
    const results: Array<{ call: ToolUseBlock; result: Pick<ToolRunResult, "output" | "isError">; entryId: string }> = [];
    for (const [index, call] of calls.entries()) {
      const done = stored.find((entry) => entry.metadata.toolUseId === call.id);
      if (done) {
        results.push({ call, result: { output: done.content, isError: done.metadata.isError === true }, entryId: done.id });
        continue;
      }
      // The assistant message holds the response's entry, then one per call, in order.
      const parentId = last.entryIds[index + 1] ?? last.entryIds[0] ?? "";
      const unfinished: ToolRunResult = { output: UNFINISHED_CALL_RESULT, isError: true, permission: "denied" };
      results.push({ call, result: unfinished, entryId: await this.recordToolResult(last.turn, call, unfinished, parentId) });
    }
    await this.appendToolResults(last.turn, results);
    return calls.length;
  }

  private injectionEntry(turn: number, injected: InjectedContext, parentId: string | undefined): NewContentEntry & { id: string } {
    return {
      ...this.base(turn),
      id: randomUUID(),
      contentType: "agent_message",
      content: injected.text,
      relatedFiles: injected.relatedFiles,
      metadata: { prefetch: true },
      ...(parentId ? { parentId } : {}),
    };
  }

  totalUsage(): Usage {
    return (this.sessions.get(this.session.id) ?? this.session).usage;
  }

  /**
   * Stores `entries` and the message holding them (after `heldEntryIds`, entries stored before)
   * in one transaction, with `alongside`: a crash leaves all of it or none. Every message of the
   * conversation comes through here, and is kept, stored and later sent with its secrets masked
   * (the content store masks the entries).
   */
  private async recordMessage(
    raw: ChatMessage,
    turn: number,
    entries: ReadonlyArray<NewContentEntry & { id: string }>,
    options: { heldEntryIds?: readonly string[]; alongside?: () => void } = {},
  ): Promise<void> {
    const message = maskSecretsIn(raw).value;
    const entryIds = [...(options.heldEntryIds ?? []), ...entries.map((entry) => entry.id)];
    let ordinal = -1;
    await this.contentStore.indexContents(entries, () => {
      options.alongside?.();
      ordinal = this.sessions.appendMessage(this.session.id, message, { turn, entryIds });
    });
    this.history.push({ ordinal, message, turn, entryIds, evictedBy: null });
  }

  /** The last message that is not a note: the end of the conversation between the user and the model. */
  private lastExchange(): SessionMessageRow | undefined {
    for (let index = this.history.length - 1; index >= 0; index--) {
      const row = this.history[index] as SessionMessageRow;
      if (row.message.role !== "user" || !this.isNote(row)) return row;
    }
    return undefined;
  }

  private isNote(row: SessionMessageRow): boolean {
    const [first] = row.entryIds;
    return first !== undefined && this.contentStore.getByIds([first])[0]?.metadata.note === true;
  }

  private base(turn: number) {
    return { sessionId: this.session.id, agentId: this.identity.agentId, agentType: this.identity.agentType, turnNumber: turn };
  }
}

export function responseText(response: Pick<ModelResponse, "content">): string {
  return response.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
