import type { ChatMessage } from "../llm/model-types.js";
import type { ContentType, ContextReference } from "../store/content-types.js";
import type { SessionMessageRow } from "../store/session-repository.js";
import { renderReference } from "./context-reference.js";

export type ContextItemKind = "prompt" | "answer" | "exchange" | "reference";

/**
 * The unit the window is made of and eviction removes: a prompt, an answer,
 * an exchange (an assistant message asking for tools together with the
 * message carrying their results: the API rejects one without the other),
 * or a reference marker standing where evicted items were.
 */
export interface ContextItem {
  kind: ContextItemKind;
  /** Stored message ordinals (none for a marker). */
  ordinals: number[];
  messages: ChatMessage[];
  /** Content entries that hold this item byte for byte. */
  entryIds: string[];
  /** What the item's entries are, for preserved types and reference types. */
  contentTypes: ContentType[];
  firstTurn: number;
  lastTurn: number;
  tokens: number;
  /** Plain text of the item, for topic and task heuristics. */
  text: string;
  /** For a marker: the reference it renders. */
  reference?: ContextReference;
}

/**
 * `AgentContext`: one agent instance's window, built from the
 * session's stored messages: evicted messages appear as the marker of the
 * reference that replaced them, at the place where they were.
 */
export class AgentContext {
  constructor(
    readonly agentId: string,
    readonly agentType: string,
    readonly sessionId: string,
    readonly items: readonly ContextItem[],
    readonly windowTokens: number,
    readonly currentTurn: number,
    readonly preserveRecentTurns: number,
    readonly preserveTypes: readonly ContentType[],
  ) {}

  get totalTokens(): number {
    return this.items.reduce((sum, item) => sum + item.tokens, 0);
  }

  get references(): ContextReference[] {
    return this.items.flatMap((item) => (item.reference ? [item.reference] : []));
  }

  usagePercent(fixedTokens = 0): number {
    return ((this.totalTokens + fixedTokens) / this.windowTokens) * 100;
  }

  isPreservedType(types: readonly ContentType[]): boolean {
    return types.some((type) => this.preserveTypes.includes(type));
  }

  /**
   * Items a strategy may evict: no marker, nothing of a preserved type,
   * nothing from the most recent turns. (Markers fold only when they
   * themselves crowd the window; see the context manager.)
   */
  evictable(): ContextItem[] {
    const recentFrom = this.currentTurn - this.preserveRecentTurns;
    return this.items.filter(
      (item) => item.kind !== "reference" && item.lastTurn <= recentFrom && !this.isPreservedType(item.contentTypes),
    );
  }

  markers(): ContextItem[] {
    return this.items.filter((item) => item.kind === "reference");
  }

  /**
   * This window after `evicted` left it behind `marker`: the marker stands
   * where the earliest of them was, as `buildItems` would place it from the
   * stored rows, without going through the whole session again.
   */
  withEviction(evicted: readonly ContextItem[], marker: ContextItem): AgentContext {
    const leaving = new Set(evicted);
    const items: ContextItem[] = [];
    let placed = false;
    for (const item of this.items) {
      if (!leaving.has(item)) items.push(item);
      else if (!placed) {
        items.push(marker);
        placed = true;
      }
    }
    return new AgentContext(
      this.agentId,
      this.agentType,
      this.sessionId,
      items,
      this.windowTokens,
      this.currentTurn,
      this.preserveRecentTurns,
      this.preserveTypes,
    );
  }

  /** The messages to send, in order. */
  messages(): ChatMessage[] {
    return this.items.flatMap((item) => item.messages);
  }
}

/** Groups stored rows into items; rows evicted by a reference become one marker per reference. */
export function buildItems(
  rows: readonly SessionMessageRow[],
  references: ReadonlyMap<string, ContextReference>,
  countTokens: (row: SessionMessageRow) => number,
): ContextItem[] {
  const items: ContextItem[] = [];
  const placedReferences = new Set<string>();
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as SessionMessageRow;
    if (row.evictedBy) {
      const reference = liveReference(references, row.evictedBy);
      if (reference && !placedReferences.has(reference.id)) {
        placedReferences.add(reference.id);
        items.push(markerItem(reference, countTokens));
      }
      continue;
    }
    const hasToolUse = row.message.role === "assistant" && row.message.content.some((block) => block.type === "tool_use");
    const next = rows[index + 1];
    if (hasToolUse && next && !next.evictedBy && next.message.content.some((block) => block.type === "tool_result")) {
      items.push(itemOf("exchange", [row, next], ["agent_response", "tool_call", "tool_result"], countTokens));
      index++;
    } else if (row.message.role === "assistant") {
      items.push(itemOf("answer", [row], ["agent_response"], countTokens));
    } else {
      items.push(itemOf("prompt", [row], ["user_prompt"], countTokens));
    }
  }
  return items;
}

/** A reference folded into a later one is shown by the later one. */
function liveReference(references: ReadonlyMap<string, ContextReference>, id: string): ContextReference | undefined {
  let reference = references.get(id);
  for (let depth = 0; reference?.foldedInto && depth < 1_000; depth++) reference = references.get(reference.foldedInto);
  return reference;
}

function itemOf(
  kind: ContextItemKind,
  rows: readonly SessionMessageRow[],
  contentTypes: ContentType[],
  countTokens: (row: SessionMessageRow) => number,
): ContextItem {
  return new MessagesItem(kind, rows, contentTypes, countTokens);
}

/**
 * An item of stored messages. The window is rebuilt from every stored row
 * before each model call and for a handoff's trim, so making an item must
 * be cheap: a class with plain loops, where an object literal with a getter
 * and array helpers per field took about five times as long.
 */
class MessagesItem implements ContextItem {
  readonly ordinals: number[] = [];
  readonly messages: ChatMessage[] = [];
  readonly entryIds: string[] = [];
  readonly firstTurn: number = Number.POSITIVE_INFINITY;
  readonly lastTurn: number = Number.NEGATIVE_INFINITY;
  readonly tokens: number = 0;
  private joinedText: string | undefined;

  constructor(
    readonly kind: ContextItemKind,
    private readonly rows: readonly SessionMessageRow[],
    readonly contentTypes: ContentType[],
    countTokens: (row: SessionMessageRow) => number,
  ) {
    for (const row of rows) {
      this.ordinals.push(row.ordinal);
      this.messages.push(row.message);
      for (const id of row.entryIds) this.entryIds.push(id);
      this.firstTurn = Math.min(this.firstTurn, row.turn);
      this.lastTurn = Math.max(this.lastTurn, row.turn);
      this.tokens += countTokens(row);
    }
  }

  /** Only some strategies read the text: joined on first use. */
  get text(): string {
    this.joinedText ??= this.rows
      .flatMap((row) =>
        row.message.content.map((block) =>
          block.type === "text" ? block.text : block.type === "tool_result" ? block.content : JSON.stringify(block.input),
        ),
      )
      .join("\n");
    return this.joinedText;
  }
}

export function markerItem(reference: ContextReference, countTokens: (row: SessionMessageRow) => number): ContextItem {
  const marker = renderReference(reference);
  const message: ChatMessage = { role: "user", content: [{ type: "text", text: marker }] };
  return {
    kind: "reference",
    ordinals: [],
    messages: [message],
    entryIds: [],
    contentTypes: ["context_reference"],
    firstTurn: reference.turnRange[0],
    lastTurn: reference.turnRange[1],
    tokens: countTokens({ ordinal: -1, message, turn: reference.turnRange[0], entryIds: [], evictedBy: null }),
    text: marker,
    reference,
  };
}
