export type AccessType = "prefetch_used" | "tool_retrieved" | "in_response" | "prefetch_injected";

export interface AccessEvent {
  contentId: string;
  turn: number;
  type: AccessType;
  timestamp: number;
}

export interface AccessTrackerOptions {
  /** Accesses within the window that make content hot (default 3). */
  hotThreshold?: number;
  /** Turns content stays hot after an access (default 5). */
  hotWindow?: number;
  /** Turns an access counts for: older ones decay away (the sliding window gap 1.4 asks for). */
  countWindow?: number;
  /** Content ids remembered at most (least recently accessed forgotten first). */
  maxTracked?: number;
  /** Events kept in the log (a ring buffer). */
  logSize?: number;
}

/**
 * Access tracking for the hot tier, bounded: access counts over a sliding window of turns, an LRU map of last
 * accesses, and a ring-buffer log, so a session of any length uses a fixed
 * amount of memory.
 */
export class AccessTracker {
  private readonly hotThreshold: number;
  private readonly hotWindow: number;
  private readonly countWindow: number;
  private readonly maxTracked: number;
  /** contentId → turns of its recent accesses; Map order is LRU order. */
  private readonly accesses = new Map<string, number[]>();
  private readonly log: Array<AccessEvent | undefined>;
  private logNext = 0;
  private currentTurn = 0;

  constructor(options: AccessTrackerOptions = {}) {
    this.hotThreshold = options.hotThreshold ?? 3;
    this.hotWindow = options.hotWindow ?? 5;
    this.countWindow = options.countWindow ?? 50;
    this.maxTracked = options.maxTracked ?? 10_000;
    this.log = new Array(options.logSize ?? 1_000);
  }

  recordAccess(contentId: string, turn: number, type: AccessType, timestamp: number = Date.now()): void {
    this.currentTurn = Math.max(this.currentTurn, turn);
    const turns = (this.accesses.get(contentId) ?? []).filter((seen) => seen > turn - this.countWindow);
    turns.push(turn);
    this.accesses.delete(contentId);
    this.accesses.set(contentId, turns);
    while (this.accesses.size > this.maxTracked) {
      const oldest = this.accesses.keys().next().value as string;
      this.accesses.delete(oldest);
    }
    this.log[this.logNext] = { contentId, turn, type, timestamp };
    this.logNext = (this.logNext + 1) % this.log.length;
  }

  /** Hot: accessed often lately, or very recently. */
  isHot(contentId: string, currentTurn: number = this.currentTurn): boolean {
    const turns = this.accesses.get(contentId);
    if (!turns || turns.length === 0) return false;
    const recent = turns.filter((turn) => turn > currentTurn - this.countWindow).length;
    const last = turns[turns.length - 1] as number;
    return recent >= this.hotThreshold || currentTurn - last <= this.hotWindow;
  }

  hotContent(currentTurn: number = this.currentTurn): string[] {
    return [...this.accesses.keys()].filter((id) => this.isHot(id, currentTurn));
  }

  get trackedCount(): number {
    return this.accesses.size;
  }

  /** The log, oldest first. */
  recentEvents(): AccessEvent[] {
    return [...this.log.slice(this.logNext), ...this.log.slice(0, this.logNext)].filter(
      (event): event is AccessEvent => event !== undefined,
    );
  }

  /** Forgets the least recently accessed share of what is tracked (memory pressure). */
  shed(fraction: number): number {
    const count = Math.floor(this.accesses.size * fraction);
    const victims = [...this.accesses.keys()].slice(0, count);
    for (const id of victims) this.accesses.delete(id);
    return victims.length;
  }
}
