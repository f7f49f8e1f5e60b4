import * as z from "zod";
import { DECISION_KIND, type DecisionEntries } from "../../../content-store/decision-entries.js";
import type { ContentSearchHit, UniversalContentStore } from "../../../content-store/universal-content-store.js";
import type { ContentEntry, ContentFilters, ContentType } from "../../../store/content-types.js";
import type { EntryRepository } from "../../../store/entry-repository.js";
import type { SessionRepository } from "../../../store/session-repository.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { clampBudget } from "./output-budget.js";
import { fitBlocks, resultHeader, shownTime } from "./role-output.js";

export interface SearchDecisionsDeps {
  contentStore: Pick<UniversalContentStore, "search">;
  entries: Pick<EntryRepository, "countMatching">;
  sessions: Pick<SessionRepository, "get">;
  /** Copies older sessions' task-list decisions into entries, the first time only. */
  decisions: Pick<DecisionEntries, "backfillOnce">;
  /** The running session ("" before it has one). */
  sessionId(): string;
  availableTokens(): number;
}

const DECISION_FILTER: ContentFilters = { contentTypes: ["agent_message"], metadataKinds: [DECISION_KIND] };
const STATE_TYPES: ContentType[] = ["agent_handoff", "plan_workflow"];
/** The fields of a handoff or plan state that hold decisions. */
const STATE_FIELDS = ["key_decisions", "design_decisions"] as const;

const schema = z.strictObject({
  query: z.string().min(1).describe("What the decision was about."),
  max_results: z.number().int().min(1).max(30).default(10).describe("Most decisions (1–30)."),
  cross_session: z.boolean().default(true).describe("Search every session of this project (true) or only this one (false)."),
  max_tokens: z.number().int().min(100).max(6_000).default(2_000).describe("Token budget (100–6000)."),
});

interface FoundDecision {
  text: string;
  entry: ContentEntry;
  /** Where it was written down. */
  origin: string;
}

/**
 * `search_decisions`: the decisions recorded in this project (todo_write's,
 * and those carried in handoff and plan states), found by hybrid search and
 * shown with the session, date and agent that made them.
 */
export function createSearchDecisionsTool(deps: SearchDecisionsDeps): ToolDefinition {
  return defineTool({
    name: "search_decisions",
    description: toolDescription(import.meta.url, "search-decisions.txt"),
    schema,
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const sessionId = deps.sessionId();
      const where = input.cross_session ? "in any session of this project" : "in this session";
      if (!input.cross_session && !sessionId) {
        return {
          output:
            "source: decisions · 0 results · tokens: 0 · truncated: false\nThis session has recorded nothing yet, so it has no decisions. Search earlier sessions with cross_session: true.",
          display: "no decisions",
        };
      }
      await deps.decisions.backfillOnce();
      const scope: ContentFilters = input.cross_session ? {} : { sessionId };
      const stored =
        deps.entries.countMatching({ ...scope, ...DECISION_FILTER }) + deps.entries.countMatching({ ...scope, contentTypes: STATE_TYPES });
      if (stored === 0) {
        return {
          output: `source: decisions · 0 results · tokens: 0 · truncated: false\nNo decisions are recorded ${where}. They come from todo_write's decisions and from handoff and plan states; none exist yet.`,
          display: "no decisions",
        };
      }
      const candidates = input.max_results * 3;
      const [recorded, states] = await Promise.all([
        deps.contentStore.search(input.query, { ...scope, ...DECISION_FILTER }, candidates),
        deps.contentStore.search(input.query, { ...scope, contentTypes: STATE_TYPES }, candidates),
      ]);
      const found = mergeDecisions(input.query, recorded.hits, states.hits).slice(0, input.max_results);
      const degraded = [...new Set([...recorded.degraded, ...states.degraded])];
      const details = [
        input.cross_session ? "scope: every session" : "scope: this session",
        ...(degraded.length > 0 ? [`degraded: ${degraded.join("; ")}`] : []),
      ];
      if (found.length === 0) {
        return {
          output: `source: decisions · 0 results · tokens: 0 · truncated: false · ${details.join(" · ")}\nNo recorded decision ${where} matches "${input.query}".`,
          display: "no decisions",
        };
      }
      const titles = new Map<string, string>();
      const titleOf = (id: string) => {
        if (!titles.has(id)) titles.set(id, deps.sessions.get(id)?.title ?? "(no session record)");
        return titles.get(id) as string;
      };
      const blocks = found.map(
        (decision) =>
          `- ${shownTime(decision.entry.timestamp)} · "${titleOf(decision.entry.sessionId)}" · session ${decision.entry.sessionId} · ${decision.entry.agentId} (${decision.entry.agentType}) · ${decision.origin} · entry ${decision.entry.id}\n  ${decision.text.split("\n").join("\n  ")}`,
      );
      const fitted = fitBlocks(blocks, clampBudget(input.max_tokens, deps.availableTokens()));
      return {
        output: [
          resultHeader("decisions", fitted, details),
          ...fitted.kept,
          ...(fitted.truncated ? ["(More decisions did not fit; raise max_tokens or narrow the query.)"] : []),
        ].join("\n"),
        display: `${fitted.kept.length} decisions${fitted.truncated ? " (truncated)" : ""}`,
      };
    },
  });
}

/**
 * Recorded decisions and those in states, best first, each (session, text)
 * once: a handoff's key_decisions repeat the task list's, which are entries
 * of their own.
 */
function mergeDecisions(query: string, recorded: readonly ContentSearchHit[], states: readonly ContentSearchHit[]): FoundDecision[] {
  const scored: Array<FoundDecision & { score: number; rank: number }> = [];
  for (const hit of recorded)
    scored.push({ text: hit.entry.content, entry: hit.entry, origin: "todo_write decision", score: hit.score, rank: 0 });
  for (const hit of states) {
    stateDecisions(hit.entry, query).forEach((found, rank) => {
      scored.push({ ...found, score: hit.score, rank: rank + 1 });
    });
  }
  scored.sort((a, b) => b.score - a.score || a.rank - b.rank);
  const seen = new Set<string>();
  return scored.filter((decision) => {
    const key = `${decision.entry.sessionId}\n${decision.text.trim().toLowerCase()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The decisions a handoff or plan state holds, those sharing the query's words first (all of them if any do, else the first two). */
function stateDecisions(entry: ContentEntry, query: string): FoundDecision[] {
  let state: unknown;
  try {
    state = JSON.parse(entry.content);
  } catch {
    return [];
  }
  if (typeof state !== "object" || state === null) return [];
  const decisions = STATE_FIELDS.flatMap((field) => {
    const value = (state as Record<string, unknown>)[field];
    const label = entry.contentType === "agent_handoff" ? `handoff ${field}` : `plan ${field}`;
    return Array.isArray(value)
      ? value
          .filter((item): item is string => typeof item === "string" && item.trim().length > 0)
          .map((text) => ({ text, entry, origin: label }))
      : [];
  });
  const terms = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((term) => term.length >= 3)
    .map((term) => term.slice(0, 5));
  const overlap = (text: string) => terms.filter((term) => text.toLowerCase().includes(term)).length;
  const matching = decisions.filter((decision) => overlap(decision.text) > 0).sort((a, b) => overlap(b.text) - overlap(a.text));
  return matching.length > 0 ? matching : decisions.slice(0, 2);
}
