import type { SessionRepository } from "../../store/session-repository.js";

/**
 * Agent ids are `<type>-<n>`, unique across a session tree: the root, its
 * sub-agents' sessions and every instance of their handoff chains. So every
 * id in one `stream-json` stream names one agent. The store is the record
 * of what is taken; ids handed out and not yet written are held here, so
 * sub-agents started together never get the same one.
 */
export class AgentIdAllocator {
  private readonly reserved = new Set<string>();

  constructor(
    private readonly sessions: Pick<SessionRepository, "agentIdsInTree">,
    /** The tree's root session (before its first prompt is stored, nothing in the tree is taken). */
    private readonly rootSessionId: string,
  ) {}

  /** The lowest free `<type>-<n>`. */
  next(type: string): string {
    const taken = new Set([...this.sessions.agentIdsInTree(this.rootSessionId), ...this.reserved]);
    let n = 1;
    while (taken.has(`${type}-${n}`)) n++;
    const id = `${type}-${n}`;
    this.reserved.add(id);
    return id;
  }
}
