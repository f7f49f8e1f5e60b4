import * as z from "zod";
import type { ContextRetriever, RetrievalResult } from "../../context/context-retriever.js";
import { candidateCount, NO_WINDOW, recallOrder, type WindowView } from "../../context/recall-order.js";
import type { UniversalContentStore } from "../../content-store/universal-content-store.js";
import { CONTENT_TYPES, type ContentEntry } from "../../store/content-types.js";
import { agentTypeInput } from "./agent-type-input.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "./tool.js";
import { errorMessage } from "../../errors.js";

export interface ContextToolsDeps {
  retriever: ContextRetriever;
  contentStore: Pick<UniversalContentStore, "search">;
  /**
   * The session whose turns `get_turn_range` reads: the running one in an
   * agent; over MCP, the project's latest (asked at each call, so a session
   * recorded after the server started is the one read).
   */
  sessionId(): string;
  /** Tokens the window can still take: a retrieval never asks for more. */
  availableTokens: () => number;
  /** Retrieved entries are promoted to the hot tier. */
  onRetrieved?: (entries: readonly ContentEntry[]) => void;
  /** A session with its sub-agents' sessions: asking for a session's history includes the work it delegated. */
  sessionTree?: (sessionId: string) => string[];
  /**
   * The calling agent's window, for the call `toolUseId`: a search never
   * answers with the message that made the call and ranks what the window
   * still holds below what left it. None (over MCP): the search's own order.
   */
  window?: (toolUseId: string | undefined) => WindowView;
}

const integer = new Intl.NumberFormat("en-US");
/** A search's matches that did not fit are named up to this many. */
const NOT_SHOWN_NAMED = 5;

/**
 * The model's way back to anything that left its window: a marker's reference, a search over all history, or a turn range,
 * each within a token budget and saying whether it was cut and where the
 * content came from.
 */
export function createContextTools(deps: ContextToolsDeps): ToolDefinition[] {
  const budget = (requested: number) => Math.max(100, Math.min(requested, deps.availableTokens()));
  const finish = (result: RetrievalResult) => {
    deps.onRetrieved?.(result.entries);
    return {
      output: renderRetrieval(result),
      display: `${result.entries.length} entries, ${integer.format(result.totalTokens)} tokens${result.truncated ? " (truncated)" : ""}`,
    };
  };

  const retrieveContext = defineTool({
    name: "retrieve_context",
    description: toolDescription(import.meta.url, "retrieve-context.txt"),
    schema: z
      .strictObject({
        ref_id: z.string().min(1).optional().describe('The id in a marker: retrieve_context(ref_id="…").'),
        entry_id: z.string().min(1).optional().describe("An entry's id, from a search's or a cut retrieval's result: that entry."),
        query: z.string().min(1).optional().describe("What to look for, when there is no marker."),
        max_tokens: z.number().int().min(100).max(10_000).default(2000).describe("Token budget (100–10000)."),
        include_related: z.boolean().default(false).describe("Also bring each entry's call or result."),
      })
      .refine((input) => input.ref_id !== undefined || input.entry_id !== undefined || input.query !== undefined, {
        message: "give ref_id, entry_id or query",
      }),
    kind: "read",
    targets: () => ({}),
    async execute(input, context) {
      try {
        const result = await deps.retriever.retrieve({
          ...(input.ref_id ? { refId: input.ref_id } : {}),
          ...(input.entry_id ? { contentIds: [input.entry_id] } : {}),
          ...(input.query ? { query: input.query, window: deps.window?.(context.toolUseId) ?? NO_WINDOW } : {}),
          maxTokens: budget(input.max_tokens),
          includeRelated: input.include_related,
        });
        return finish(result);
      } catch (error) {
        throw new ToolError(errorMessage(error));
      }
    },
  });

  const searchHistory = defineTool({
    name: "search_history",
    description: toolDescription(import.meta.url, "search-history.txt"),
    schema: z.strictObject({
      query: z.string().min(1).describe("What to look for."),
      content_type: z.enum(CONTENT_TYPES).optional().describe("Only entries of this type."),
      session_id: z.string().min(1).optional().describe("Only this session (default: every session)."),
      agent_type: agentTypeInput(),
      max_results: z.number().int().min(1).max(50).default(10).describe("Most results."),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input, context) {
      const window = deps.window?.(context.toolUseId) ?? NO_WINDOW;
      const outcome = await deps.contentStore.search(
        input.query,
        {
          ...(input.content_type ? { contentTypes: [input.content_type] } : {}),
          ...(input.session_id
            ? deps.sessionTree
              ? { sessionIds: deps.sessionTree(input.session_id) }
              : { sessionId: input.session_id }
            : {}),
          ...(input.agent_type ? { agentTypes: [input.agent_type] } : {}),
        },
        candidateCount(input.max_results, window),
      );
      const hits = recallOrder(outcome.hits, window).slice(0, input.max_results);
      const lines = hits.map(
        (hit) =>
          `- turn ${hit.entry.turnNumber} · ${hit.entry.contentType} · ${hit.entry.agentId} · session ${hit.entry.sessionId.slice(0, 8)} · entry ${hit.entry.id}\n  ${hit.snippet.split("\n").join("\n  ")}`,
      );
      deps.onRetrieved?.(hits.map((hit) => hit.entry));
      const header = `source: search · ${hits.length} results${outcome.degraded.length ? ` · degraded: ${outcome.degraded.join("; ")}` : ""}`;
      return {
        output: [
          header,
          ...lines,
          hits.length ? 'Use retrieve_context(entry_id="…") or get_turn_range for full content.' : "Nothing matched.",
        ].join("\n"),
        display: `${hits.length} history results`,
      };
    },
  });

  const getTurnRange = defineTool({
    name: "get_turn_range",
    description: toolDescription(import.meta.url, "get-turn-range.txt"),
    schema: z
      .strictObject({
        from_turn: z.number().int().min(0).describe("First turn (inclusive)."),
        to_turn: z.number().int().min(0).describe("Last turn (inclusive)."),
        max_tokens: z.number().int().min(100).max(10_000).default(5000).describe("Token budget."),
      })
      .refine((input) => input.to_turn >= input.from_turn, { message: "to_turn must not be before from_turn", path: ["to_turn"] }),
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      return finish(deps.retriever.turnRange(deps.sessionId(), input.from_turn, input.to_turn, budget(input.max_tokens)));
    },
  });

  return [retrieveContext, searchHistory, getTurnRange];
}

/** Header, then each entry verbatim between separators (the content is byte-exact; a cut entry says which part it is). */
export function renderRetrieval(result: RetrievalResult): string {
  const header = [
    `source: ${result.source}`,
    ...(result.refId ? [`ref_id: ${result.refId}`] : []),
    `entries: ${result.entries.length}`,
    `tokens: ${result.totalTokens}`,
    `truncated: ${result.truncated}`,
  ].join(" · ");
  const note = retrievalNotes(result)
    .map((line) => `\n${line}`)
    .join("");
  const { partialEntryId: partial, partialLines: lines } = result;
  const bodies = result.entries.map((entry) => {
    const tool = typeof entry.metadata.tool === "string" ? ` (${entry.metadata.tool})` : "";
    const part = lines && entry.id === partial ? ` · lines ${lines.fromLine}-${lines.toLine} of ${lines.totalLines}` : "";
    return `----- turn ${entry.turnNumber} · ${entry.contentType}${tool} · entry ${entry.id}${part} -----\n${entry.content}`;
  });
  return [`${header}${note}`, ...bodies].join("\n");
}

/** What the model should know of a cut result: which part of an entry came, and how to ask for what did not. */
function retrievalNotes(result: RetrievalResult): string[] {
  const { partialEntryId: partial, partialLines: lines, notShown = [] } = result;
  const notes: string[] = [];
  if (partial && lines)
    notes.push(
      `(Entry ${partial} is larger than what this retrieval may bring back: below are its lines ${lines.fromLine}-${lines.toLine} of ${lines.totalLines}, around the match. The whole entry: retrieve_context(entry_id="${partial}") with a larger max_tokens, up to 10000, as far as the window allows.)`,
    );
  else if (partial) notes.push(`(Only the beginning of entry ${partial} fits; ask again with a larger max_tokens, up to 10000.)`);
  if (notShown.length > 0) {
    const named = notShown
      .slice(0, NOT_SHOWN_NAMED)
      .map((entry) => `entry ${entry.id} (turn ${entry.turnNumber} · ${entry.contentType} · ${integer.format(entry.tokenCount)} tokens)`);
    const first = notShown.length > NOT_SHOWN_NAMED ? `, the first ${NOT_SHOWN_NAMED}` : "";
    notes.push(
      `(${notShown.length} more ${notShown.length === 1 ? "match" : "matches"} did not fit${first}: ${named.join(", ")}. retrieve_context(entry_id="…") brings one.)`,
    );
  } else if (result.truncated && !partial)
    notes.push("(More entries did not fit; ask again with a larger max_tokens or a narrower range.)");
  return notes;
}
