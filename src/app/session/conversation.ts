import { randomUUID } from "node:crypto";
import { SessionRecorder, type SessionIdentity } from "../../agent/session-recorder.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import type { SessionParent, SessionRecord, SessionRepository } from "../../store/session-repository.js";
import type { CallerConversation } from "../../team/session/child-session.js";

export interface ConversationDeps {
  sessions: SessionRepository;
  contentStore: UniversalContentStore;
  /** The agent that records first (a handoff switches the recorder to the next instance). */
  identity: SessionIdentity;
}

/** What a new conversation's stored session says of where it runs. */
export interface ConversationOrigin {
  provider: string;
  model: string;
  parent?: SessionParent;
}

/**
 * One conversation: its id, a plain value from the moment it is opened (a
 * resumed session's own, or a new one), and its record. A new conversation
 * is stored with its first prompt, which titles it, so a session opened and
 * left without a prompt (the TUI started and closed, a `/model` switch)
 * leaves no empty session behind. Until then it has no history: what reads
 * the store by its id finds nothing, and nothing writes under it.
 */
export class Conversation implements CallerConversation {
  private constructor(
    readonly id: string,
    private readonly deps: ConversationDeps,
    private readonly origin: ConversationOrigin,
    private current: SessionRecorder | undefined,
  ) {}

  /** A new conversation, stored with its first prompt. */
  static begin(deps: ConversationDeps, origin: ConversationOrigin): Conversation {
    return new Conversation(randomUUID(), deps, origin, undefined);
  }

  /** A stored conversation, going on. */
  static resume(deps: ConversationDeps, origin: ConversationOrigin, record: SessionRecord): Conversation {
    return new Conversation(record.id, deps, origin, SessionRecorder.resume(deps, record, origin.model));
  }

  /** Whether it is stored: resumed, or a prompt has been recorded. */
  get started(): boolean {
    return this.current !== undefined;
  }

  /** Its recorder, once it is stored. */
  get recorder(): SessionRecorder | undefined {
    return this.current;
  }

  /** The recorder for a prompt; the first one stores the conversation, titled by it. */
  record(title: string): SessionRecorder {
    this.current ??= SessionRecorder.start(this.deps, { id: this.id, title, ...this.origin });
    return this.current;
  }

  get agentId(): string {
    return this.current?.agent.agentId ?? this.deps.identity.agentId;
  }

  get currentTurn(): number {
    return this.current?.currentTurn ?? 0;
  }
}
