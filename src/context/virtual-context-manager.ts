import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { ChatMessage } from "../llm/model-types.js";
import type { TokenCounter } from "../llm/token-counter.js";
import type { ContentType, ContextReference } from "../store/content-types.js";
import type { SessionMessageRow } from "../store/session-repository.js";
import { AgentContext, buildItems, markerItem, type ContextItem } from "./agent-context.js";
import { type EvictionNotice, type EvictionTrigger, evictionNotice, firstOfNewest, freed, partitionEvicted } from "./evicted-items.js";
import type { ConversationLog } from "./conversation-log.js";
import { foldReferences, generateReference, newReferenceId, widestMarker } from "./context-reference.js";
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
  /** Told before an eviction is written (the user's `PreEvict` hooks); it cannot stop one: the window is a hard bound. */
  beforeEvict?: (notice: EvictionNotice) => Promise<void>;
}

/** What a handoff's trim leaves: the reference standing for what left, and the items that stay. */
export interface TrimmedWindow {
  reference?: ContextReference;
  context: AgentContext;
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
/** Entries whose keywords describe a reference at most (the first and the newest of what leaves). */
const SUMMARY_SAMPLE = 96;
/** Markers may take this share of the window; past it, the oldest fold into one. */
const MARKER_BUDGET_SHARE = 0.05;

/**
 * The virtual context manager: before each model call it builds the
 * agent's window from the session, asks the degradation policy whether to
 * evict, lets the strategy choose, stores a reference for what leaves and
 * puts its marker where it was. Whatever the policy says, the request never
 * exceeds the window: past the limit, preserved items and older markers go
 * too (markers fold into a reference that points at all their content).
 * Nothing is summarised: evicted entries stay in the store, byte for byte.
 */
export class VirtualContextManager {
  /**
   * Tokens of each stored message, by the row object the conversation log
   * holds (messages never change): the window is rebuilt from every row
   * before each model call, and a key string built and hashed per row cost
   * more than the rest of the rebuild. Rows go with their log.
   */
  private readonly tokenCache = new WeakMap<SessionMessageRow, number>();
  /**
   * The references of each session this manager has prepared, read from the
   * store once: this manager is the only writer, and folded references carry
   * every content id behind them, so re-reading them each turn would cost
   * time in proportion to the whole evicted history.
   */
  private readonly referencesBySession = new Map<string, Map<string, ContextReference>>();
  private lastFixedTokens = 0;
  private lastUsedTokens = 0;
  private pressure: PressureLevel = "normal";
  /** What a handed-off instance's window starts with (its handoff state), before any stored message. */
  private preamble: { text: string; message: ChatMessage; tokens: number } | undefined;
  private agent = { id: "engineer-1", type: "engineer" };

  constructor(private readonly deps: VirtualContextManagerDeps) {}

  get windowTokens(): number {
    return this.deps.windowTokens;
  }

  /** The instance whose window this is (references record who evicted what). */
  setAgent(id: string, type: string): void {
    this.agent = { id, type };
  }

  /**
   * The text an instance's window starts with, ahead of the stored
   * messages (a handoff state); it counts against the window like the
   * system prompt and is never evicted. Undefined: none. It is counted
   * when the instance starts: the same text again keeps its count.
   */
  setPreamble(text: string | undefined): void {
    if (text === this.preamble?.text) return;
    this.preamble =
      text === undefined
        ? undefined
        : { text, message: { role: "user", content: [{ type: "text", text }] }, tokens: this.deps.tokenCounter.count(text) + 4 };
  }

  get preambleTokens(): number {
    return this.preamble?.tokens ?? 0;
  }

  /**
   * A handoff's trim of the prepared window: everything but the newest
   * items that fit in `keepTokens` leaves behind one reference (earlier
   * markers fold into it), so the new instance's window is its state, one
   * marker and those turns. Returns the reference (none when everything
   * fits) and what stays, which `prepareSuccessor` fits for the new instance.
   */
  async trim(log: ConversationLog, window: PreparedWindow, keepTokens: number): Promise<TrimmedWindow> {
    const { context } = window;
    const leaving = context.items.slice(0, firstOfNewest(context.items, keepTokens));
    // One lone marker already stands for everything before: nothing to fold.
    if (leaving.length === 0 || (leaving.length === 1 && leaving[0]?.kind === "reference")) return { context };
    const reference = await this.evict(log, context, leaving, this.referencesOf(log.sessionId), "handoff");
    return {
      reference,
      context: context.withEviction(
        leaving,
        markerItem(reference, (row) => this.tokensOf(row)),
      ),
    };
  }

  /**
   * The new instance's window after a trim, fitted as `prepare` fits one
   * (its agent and preamble set since count) from the items the trim left,
   * without building them from the conversation again.
   */
  async prepareSuccessor(log: ConversationLog, trimmed: TrimmedWindow): Promise<PreparedWindow> {
    const context = this.contextWith(log, trimmed.context.items);
    return this.fit(log, context, this.lastFixedTokens, { foldMarkers: true });
  }

  /**
   * The handoff controller's eviction (a knowledge agent whose curve says
   * its quality is about to degrade): `targetTokens` leave the prepared
   * window now, chosen by the strategy as the token policy's would be.
   */
  async evictFrom(log: ConversationLog, window: PreparedWindow, targetTokens: number): Promise<PreparedWindow> {
    return this.fit(log, window.context, this.lastFixedTokens, { first: () => ({ evict: true, targetTokens }), trigger: "quality" });
  }

  /**
   * Observational memory's compaction, without deleting anything: the messages an
   * observation covers (through `throughOrdinal`), except the newest that
   * fit in `keepTokens`, leave the window behind one reference whose
   * summary is the observation's. The originals stay stored and come back
   * with `retrieve_context`; the observation is in the request's memory.
   */
  async compactObserved(
    log: ConversationLog,
    throughOrdinal: number,
    keepTokens: number,
    summary: string,
  ): Promise<ContextReference | undefined> {
    const references = this.referencesOf(log.sessionId);
    const context = this.contextOf(log, references);
    const leaving = context.items
      .slice(0, firstOfNewest(context.items, keepTokens))
      .filter(
        (item) => item.kind !== "reference" && item.ordinals.length > 0 && item.ordinals.every((ordinal) => ordinal <= throughOrdinal),
      );
    if (leaving.length === 0) return undefined;
    return this.evict(log, context, leaving, references, "observed", summary);
  }

  /**
   * Memory pressure: at high or critical pressure the next
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
    return Math.max(100, Math.floor((this.deps.windowTokens - this.lastFixedTokens - this.preambleTokens) / 2));
  }

  /**
   * `/evict`: moves out now everything the strategy may take (the recent
   * turns and preserved kinds stay), with a reference standing for it as
   * always; returns the references made (none when nothing could go).
   */
  async evictNow(log: ConversationLog): Promise<ContextReference[]> {
    const context = this.contextOf(log, this.referencesOf(log.sessionId));
    const window = await this.fit(log, context, this.lastFixedTokens, {
      foldMarkers: true,
      first: (folded) => ({ evict: true, targetTokens: folded.totalTokens }),
      trigger: "manual",
    });
    return window.evictions;
  }

  /** The window of the next request, built from the conversation and fitted to the policy and the window's size. */
  async prepare(log: ConversationLog, requestFixedTokens: number): Promise<PreparedWindow> {
    return this.fit(log, this.contextOf(log, this.referencesOf(log.sessionId)), requestFixedTokens, { foldMarkers: true });
  }

  /**
   * Fits a window: markers that crowd it fold into one (`foldMarkers`), then
   * items leave, round after round, while the policy (or memory pressure, or
   * the `first` decision the caller made) asks for it or the request would
   * not fit. The request never exceeds the window whatever the policy says.
   */
  private async fit(
    log: ConversationLog,
    start: AgentContext,
    requestFixedTokens: number,
    options: { foldMarkers?: boolean; first?: (context: AgentContext) => EvictionDecision; trigger?: EvictionTrigger },
  ): Promise<PreparedWindow> {
    const fixedTokens = requestFixedTokens + this.preambleTokens;
    this.lastFixedTokens = requestFixedTokens;
    const references = this.referencesOf(log.sessionId);
    const evictions: ContextReference[] = [];
    let context = start;
    const markers = context.markers();
    if (options.foldMarkers && markers.length > 2 && freed(markers) > this.deps.windowTokens * MARKER_BUDGET_SHARE) {
      // Keep the newest marker as it is; the others become one.
      const folded = markers.slice(0, -1);
      const reference = await this.evict(log, context, folded, references, "window");
      evictions.push(reference);
      context = context.withEviction(
        folded,
        markerItem(reference, (row) => this.tokensOf(row)),
      );
    }
    for (let round = 0; round < MAX_EVICTION_ROUNDS; round++) {
      const usedTokens = fixedTokens + context.totalTokens;
      const asked = round === 0 ? options.first?.(context) : undefined;
      const decision =
        asked ??
        this.underPressure(usedTokens) ??
        this.deps.policy.decide({ usedTokens, windowTokens: this.deps.windowTokens, currentTurn: log.currentTurn });
      const overflow = usedTokens - this.deps.windowTokens;
      if (!decision.evict && overflow <= 0) break;
      let selected = decision.evict ? this.deps.strategy.selectForEviction(context, decision.targetTokens) : [];
      // What leaves must pay for the overflow and for the marker left in its place.
      const markerTokens = this.markerTokens();
      if (overflow > 0 && freed(selected) < overflow + markerTokens)
        selected = this.hardLimitSelection(context, overflow + markerTokens, selected);
      // A marker costs tokens too: folding one lone marker into another frees nothing.
      if (selected.length === 0 || freed(selected) <= markerTokens) break;
      const reference = await this.evict(log, context, selected, references, asked ? (options.trigger ?? "window") : "window");
      evictions.push(reference);
      context = context.withEviction(
        selected,
        markerItem(reference, (row) => this.tokensOf(row)),
      );
    }
    this.lastUsedTokens = fixedTokens + context.totalTokens;
    const messages = this.preamble ? [this.preamble.message, ...context.messages()] : context.messages();
    return { messages, usedTokens: this.lastUsedTokens, evictions, context };
  }

  private referencesOf(sessionId: string): Map<string, ContextReference> {
    let references = this.referencesBySession.get(sessionId);
    if (!references) {
      references = new Map(this.deps.contentStore.listReferences(sessionId).map((reference) => [reference.id, reference]));
      this.referencesBySession.set(sessionId, references);
    }
    return references;
  }

  /** Under high memory pressure, evict to half the window before the policy would. */
  private underPressure(usedTokens: number): EvictionDecision | undefined {
    if (this.pressure !== "high" && this.pressure !== "critical") return undefined;
    const target = usedTokens - Math.floor(this.deps.windowTokens / 2);
    return target > 0 ? { evict: true, targetTokens: target } : undefined;
  }

  /**
   * The most a marker can take in the window, by the current (calibrated)
   * count. The window is guaranteed to fit whenever the fixed part, the
   * newest item and one marker do.
   */
  markerTokens(): number {
    return this.tokensOf({
      ordinal: -1,
      message: { role: "user", content: [{ type: "text", text: widestMarker() }] },
      turn: 0,
      entryIds: [],
      evictedBy: null,
    });
  }

  /** What no eviction can free beside the request's fixed part: the preamble and one marker standing for what left. */
  floorTokens(): number {
    return this.preambleTokens + this.markerTokens();
  }

  /** Tokens one stored message takes in the window (a marker's pseudo-row, ordinal −1, is counted each time). */
  tokensOf(row: SessionMessageRow): number {
    let tokens = row.ordinal >= 0 ? this.tokenCache.get(row) : undefined;
    if (tokens === undefined) {
      tokens = this.deps.tokenCounter.count(JSON.stringify(row.message.content)) + 4;
      if (row.ordinal >= 0) this.tokenCache.set(row, tokens);
    }
    return tokens;
  }

  private contextOf(log: ConversationLog, references: ReadonlyMap<string, ContextReference>): AgentContext {
    return this.contextWith(
      log,
      buildItems(log.rows(), references, (row) => this.tokensOf(row)),
    );
  }

  /** These items as the current instance's window. */
  private contextWith(log: ConversationLog, items: readonly ContextItem[]): AgentContext {
    return new AgentContext(
      this.agent.id,
      this.agent.type,
      log.sessionId,
      items,
      this.deps.windowTokens,
      log.currentTurn,
      this.deps.preserveRecentTurns,
      this.deps.preserveTypes,
    );
  }

  /**
   * Past the window, anything but the newest item goes, oldest first,
   * preserved or not, until `target` tokens are freed; the newest goes too
   * only when everything else is not enough (it is too big to fit beside one
   * marker).
   */
  private hardLimitSelection(context: AgentContext, target: number, already: ContextItem[]): ContextItem[] {
    const candidates = context.items.slice(0, -1);
    const selected = [...already, ...oldestFirst(candidates, target - freed(already), new Set(already))];
    if (freed(selected) >= target) return selected;
    const newest = context.items[context.items.length - 1];
    return newest && newest.kind !== "reference" && !selected.includes(newest) ? [...selected, newest] : selected;
  }

  /**
   * Moves the selected items out of the window behind one new reference.
   * Only the newly evicted entries are read (for topics and entities); a
   * marker among them folds in by its metadata, and its messages keep
   * pointing at it (it now points at the new reference), so folding costs
   * the same however much history lies behind the marker.
   */
  private async evict(
    log: ConversationLog,
    context: AgentContext,
    selected: readonly ContextItem[],
    references: Map<string, ContextReference>,
    trigger: EvictionTrigger,
    /** What the reference says it stands for, when the caller knows better than its keywords (an observation). */
    summary?: string,
  ): Promise<ContextReference> {
    await this.deps.beforeEvict?.(evictionNotice(trigger, selected));
    const id = newReferenceId(this.deps.contentStore, references);
    const { folded, freshIds, freshOrdinals, freshTurns, freshTokens } = partitionEvicted(selected);
    // A large eviction (a handoff's trim of a long session) describes itself by its first entry and
    // its newest ones: reading every entry's keywords made it cost time in proportion to the session.
    const sampled = freshIds.length > SUMMARY_SAMPLE ? [freshIds[0] as string, ...freshIds.slice(-(SUMMARY_SAMPLE - 1))] : freshIds;
    const entries = this.deps.contentStore.getSummariesByIds(sampled);
    const all = sampled.length < freshIds.length ? { contentIds: freshIds, turnRange: freshTurns } : undefined;
    const generated =
      entries.length > 0
        ? generateReference({
            id,
            sessionId: context.sessionId,
            agentId: context.agentId,
            entries,
            tokensSaved: freshTokens,
            ...(all ? { all } : {}),
          })
        : undefined;
    const made = folded.length > 0 ? foldReferences({ id, folded, ...(generated ? { fresh: generated } : {}) }) : generated;
    if (!made) throw new Error("nothing to evict");
    const reference = summary ? { ...made, summary } : made;
    const foldedNow = folded.map((old) => ({ ...old, foldedInto: reference.id }));
    // One transaction: a crash leaves either the old window or the new one.
    this.deps.contentStore.atomically(() => {
      this.deps.contentStore.storeReference(reference);
      for (const old of foldedNow) this.deps.contentStore.storeReference(old);
      log.markEvicted(freshOrdinals, reference.id);
    });
    references.set(reference.id, reference);
    for (const old of foldedNow) references.set(old.id, old);
    return reference;
  }
}
