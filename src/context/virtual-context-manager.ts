import { randomBytes } from "node:crypto";
import type { SessionRecorder } from "../agent/session-recorder.js";
import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { ChatMessage } from "../llm/model-types.js";
import type { TokenCounter } from "../llm/token-counter.js";
import type { ContentType, ContextReference } from "../store/content-types.js";
import type { SessionMessageRow } from "../store/session-repository.js";
import { AgentContext, buildItems, type ContextItem } from "./agent-context.js";
import { generateReference } from "./context-reference.js";
import type { DegradationPolicy, EvictionDecision } from "./degradation-policy.js";
import type { PressureLevel } from "./prefetch/memory-pressure.js";
import { oldestFirst, type EvictionStrategy } from "./eviction/eviction-strategy.js";

export interface VirtualContextManagerDeps {
  contentStore: UniversalContentStore;
  tokenCounter: TokenCounter;
  policy: DegradationPolicy;
  strategy: EvictionStrategy;
  windowTokens: number;
  preserveRecentTurns: number;
  preserveTypes: readonly ContentType[];
}

export interface PreparedWindow {
  messages: ChatMessage[];
  /** Estimated tokens of the whole request (fixed part included). */
  usedTokens: number;
  /** References created while preparing (each replaced some items in the window). */
  evictions: ContextReference[];
  context: AgentContext;
}

/** Evictions per request before giving up (each frees more than a marker costs). */
const MAX_EVICTION_ROUNDS = 64;
/** Roughly what a rendered marker takes in the window. */
const MARKER_ALLOWANCE = 80;

/**
 * Seed 002 "Virtual Context Manager": before each model call it builds the
 * agent's window from the session, asks the degradation policy whether to
 * evict, lets the strategy choose, stores a reference for what leaves and
 * puts its marker where it was. Whatever the policy says, the request never
 * exceeds the window: past the limit, preserved items and older markers go
 * too (markers fold into a reference that points at all their content).
 * Nothing is summarised: evicted entries stay in the store, byte for byte.
 */
export class VirtualContextManager {
  private readonly tokenCache = new Map<string, number>();
  private lastFixedTokens = 0;
  private lastUsedTokens = 0;
  private pressure: PressureLevel = "normal";

  constructor(private readonly deps: VirtualContextManagerDeps) {}

  get windowTokens(): number {
    return this.deps.windowTokens;
  }

  /**
   * Memory pressure (gap analysis 1.5): at high or critical pressure the next
   * request evicts down to the target even below the usual trigger.
   */
  setPressure(level: PressureLevel): void {
    this.pressure = level;
  }

  /** Tokens the window has left after the last request (all of it before the first). */
  remainingTokens(): number {
    return Math.max(0, this.deps.windowTokens - this.lastUsedTokens);
  }

  /**
   * Most tokens one retrieval may bring back: half of what the window has
   * beyond its fixed part (the rest stays for the conversation around it).
   */
  retrievalBudget(): number {
    return Math.max(100, Math.floor((this.deps.windowTokens - this.lastFixedTokens) / 2));
  }

  async prepare(recorder: SessionRecorder, fixedTokens: number): Promise<PreparedWindow> {
    this.lastFixedTokens = fixedTokens;
    const sessionId = recorder.session.id;
    const references = new Map(this.deps.contentStore.listReferences(sessionId).map((reference) => [reference.id, reference]));
    const evictions: ContextReference[] = [];
    let context = this.contextOf(recorder, references);
    for (let round = 0; round < MAX_EVICTION_ROUNDS; round++) {
      const usedTokens = fixedTokens + context.totalTokens;
      const decision = this.underPressure(usedTokens) ?? this.deps.policy.decide({ usedTokens, windowTokens: this.deps.windowTokens, currentTurn: recorder.currentTurn });
      const overflow = usedTokens - this.deps.windowTokens;
      if (!decision.evict && overflow <= 0) break;
      let selected = decision.evict ? this.deps.strategy.selectForEviction(context, decision.targetTokens) : [];
      if (overflow > 0 && freed(selected) < overflow) selected = this.hardLimitSelection(context, overflow, selected);
      // A marker costs tokens too: folding one lone marker into another frees nothing.
      if (selected.length === 0 || freed(selected) <= MARKER_ALLOWANCE) break;
      const reference = await this.evict(recorder, context, selected, references);
      evictions.push(reference);
      context = this.contextOf(recorder, references);
    }
    this.lastUsedTokens = fixedTokens + context.totalTokens;
    return { messages: context.messages(), usedTokens: this.lastUsedTokens, evictions, context };
  }

  /** Under high memory pressure, evict to half the window before the policy would. */
  private underPressure(usedTokens: number): EvictionDecision | undefined {
    if (this.pressure !== "high" && this.pressure !== "critical") return undefined;
    const target = usedTokens - Math.floor(this.deps.windowTokens / 2);
    return target > 0 ? { evict: true, targetTokens: target } : undefined;
  }

  /** Tokens one stored message takes in the window (cached: messages never change). */
  tokensOf(row: SessionMessageRow): number {
    const key = `${row.ordinal}:${row.message.content.length}:${row.entryIds[0] ?? ""}`;
    let tokens = row.ordinal >= 0 ? this.tokenCache.get(key) : undefined;
    if (tokens === undefined) {
      tokens = this.deps.tokenCounter.count(JSON.stringify(row.message.content)) + 4;
      if (row.ordinal >= 0) this.tokenCache.set(key, tokens);
    }
    return tokens;
  }

  private contextOf(recorder: SessionRecorder, references: ReadonlyMap<string, ContextReference>): AgentContext {
    const items = buildItems(recorder.rows(), references, (row) => this.tokensOf(row));
    return new AgentContext(
      "engineer-1",
      "engineer",
      recorder.session.id,
      items,
      this.deps.windowTokens,
      recorder.currentTurn,
      this.deps.preserveRecentTurns,
      this.deps.preserveTypes,
    );
  }

  /**
   * Past the window, anything but the newest item goes, oldest first,
   * preserved or not; the newest goes too only when it alone is too big.
   */
  private hardLimitSelection(context: AgentContext, overflow: number, already: ContextItem[]): ContextItem[] {
    const candidates = context.items.slice(0, -1);
    const selected = [...already, ...oldestFirst(candidates, overflow - freed(already), new Set(already))];
    if (freed(selected) >= overflow) return selected;
    const newest = context.items[context.items.length - 1];
    return newest && newest.kind !== "reference" && !selected.includes(newest) ? [...selected, newest] : selected;
  }

  private async evict(
    recorder: SessionRecorder,
    context: AgentContext,
    selected: readonly ContextItem[],
    references: Map<string, ContextReference>,
  ): Promise<ContextReference> {
    const folded = selected.flatMap((item) => (item.reference ? [item.reference] : []));
    const contentIds = [...new Set([...folded.flatMap((reference) => reference.contentIds), ...selected.flatMap((item) => item.entryIds)])];
    const entries = this.deps.contentStore.getByIds(contentIds);
    const tokensSaved = selected.reduce((sum, item) => sum + (item.reference ? item.reference.tokensSaved : item.tokens), 0);
    const reference = generateReference({
      id: this.newReferenceId(references),
      sessionId: context.sessionId,
      agentId: context.agentId,
      entries,
      tokensSaved,
    });
    this.deps.contentStore.storeReference(reference);
    references.set(reference.id, reference);
    const foldedIds = new Set(folded.map((item) => item.id));
    const ordinals = [
      ...selected.flatMap((item) => item.ordinals),
      ...recorder.rows().flatMap((row) => (row.evictedBy && foldedIds.has(row.evictedBy) ? [row.ordinal] : [])),
    ];
    recorder.markEvicted(ordinals, reference.id);
    return reference;
  }

  private newReferenceId(existing: ReadonlyMap<string, ContextReference>): string {
    for (;;) {
      const id = randomBytes(4).toString("hex");
      if (!existing.has(id) && !this.deps.contentStore.getReference(id)) return id;
    }
  }
}

function freed(items: readonly ContextItem[]): number {
  return items.reduce((sum, item) => sum + item.tokens, 0);
}
