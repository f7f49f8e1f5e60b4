import { createTodoWriteTool } from "../../agent/tools/todo-write.js";
import type { GitGate } from "../../agent/sandbox/repository-integrity.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { SylkConfig } from "../../config/schema.js";
import type { DecisionEntries } from "../../content-store/decision-entries.js";
import type { AgentType } from "../../roles/agent-types.js";
import type { HandoffState } from "../handoff-state.js";
import type { TokenCounter } from "../../llm/token-counter.js";
import { projectHash } from "../../project/project-paths.js";
import type { UserProfileDatabase } from "../../store/user-profile-database.js";
import type { ProjectServices } from "../../app/project-services.js";
import type { UserProfiles } from "../../app/user-profiles.js";
import { CommandChangeTracker } from "./command-changes.js";
import { recordFileChange } from "./files-changed.js";
import { HandoffController } from "./handoff-controller.js";
import { ProfileBook } from "./profile-book.js";

/** The conversation's agent: its type, where its instances' ids come from, and who records now. */
export interface SessionAgent {
  type: AgentType;
  /** A new instance's id, unique in the session tree. */
  allocateAgentId?: () => string;
  /** A sub-agent's first instance: its session's agent id. */
  firstAgentId?: string;
  /** The agent recording now and its turn, once the conversation has a recorder. */
  recording?: () => { agentId: string; agentType: string; turn: number } | undefined;
}

/**
 * The handoff controller's parts of one conversation: the task list tool,
 * the tracking of files the tools change, the learned profiles (the
 * user's file opened on first use) and the controller itself, made when
 * the model is known. `sessionId()` is the conversation's, once it has one.
 */
export class SessionHandoff {
  private readonly profiles: ProfileBook;
  private readonly decisions: DecisionEntries;
  private current: HandoffController | undefined;
  /** `/handoff` before the controller exists (no run yet): it applies to the first model call. */
  private pendingHandoff = false;

  constructor(
    private readonly services: ProjectServices,
    private readonly config: SylkConfig,
    private readonly sessionId: () => string | undefined,
    private readonly userProfiles: UserProfiles,
    private readonly agent: SessionAgent,
  ) {
    this.decisions = services.decisions;
    this.profiles = new ProfileBook(services.handoffs, () => this.userDatabase(), projectHash(services.paths.root));
  }

  get controller(): HandoffController | undefined {
    return this.current;
  }

  /** The controller of this conversation (its session row exists) and its model, made once. */
  controllerFor(sessionId: string, model: string, windowTokens: number, tokenCounter: TokenCounter): HandoffController {
    if (!this.current) {
      this.current = new HandoffController({
        repository: this.services.handoffs,
        profiles: this.profiles,
        contentStore: this.services.contentStore,
        sessionId,
        agentType: this.agent.type,
        ...(this.agent.allocateAgentId ? { allocateAgentId: this.agent.allocateAgentId } : {}),
        ...(this.agent.firstAgentId ? { firstAgentId: this.agent.firstAgentId } : {}),
        model,
        windowTokens,
        config: this.config.handoff,
        countTokens: (text) => tokenCounter.count(text),
      });
    }
    if (this.pendingHandoff) {
      this.current.requestHandoff();
      this.pendingHandoff = false;
    }
    return this.current;
  }

  requestHandoff(): void {
    if (this.current) this.current.requestHandoff();
    else this.pendingHandoff = true;
  }

  /** `todo_write`, keeping the list with the session. */
  todoTool(): ToolDefinition {
    const handoffs = this.services.handoffs;
    return createTodoWriteTool({
      load: () => {
        const id = this.sessionId();
        const list = id ? handoffs.taskList(id) : undefined;
        return { items: list?.items ?? [], decisions: list?.decisions ?? [], blockers: list?.blockers ?? [] };
      },
      save: (list) => {
        const id = this.sessionId();
        if (id) handoffs.saveTaskList(id, list);
      },
      recordDecisions: async (decisions) => {
        const sessionId = this.sessionId();
        if (!sessionId) return;
        const agent = this.agent.recording?.();
        const agentType = agent?.agentType ?? this.config.agent.type;
        const agentId = agent?.agentId ?? this.current?.agentId ?? `${agentType}-1`;
        await this.decisions.record({ sessionId, agentId, agentType, turnNumber: agent?.turn ?? 0 }, decisions);
      },
    });
  }

  /** The builtin tools, with the files `run_command` changes recorded (by `git status`, which `gitGate` may forbid). */
  trackCommands(tools: readonly ToolDefinition[], gitGate: GitGate): ToolDefinition[] {
    const commandChanges = new CommandChangeTracker(this.services.paths.root, gitGate);
    return tools.map((tool) =>
      tool.name === "run_command"
        ? commandChanges.wrap(tool, (changes) => {
            const id = this.sessionId();
            if (id) for (const change of changes) this.services.handoffs.recordFileChange(id, change);
          })
        : tool,
    );
  }

  /** A write tool's change (path, lines), for the prepared context. */
  recordWrite(sessionId: string, write: Parameters<typeof recordFileChange>[2]): void {
    recordFileChange(this.services.handoffs, sessionId, write);
  }

  tasks(): Array<{ content: string; status: "pending" | "in_progress" | "done" }> {
    const id = this.sessionId();
    return id ? (this.services.handoffs.taskList(id)?.items ?? []) : [];
  }

  /** The handoff state this conversation would carry now (a pipeline's engineer stage stores it). */
  stateNow(reason: string): HandoffState | undefined {
    return this.current?.stateNow(reason);
  }

  /** The conversation ends: what its instance learned goes into the profiles. */
  close(): void {
    this.current?.close();
  }

  private userDatabase(): UserProfileDatabase | undefined {
    return this.config.handoff.shareProfiles ? this.userProfiles.get() : undefined;
  }
}
