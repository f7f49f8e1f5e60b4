import * as z from "zod";
import { CONTENT_TYPES, type ContentEntry, type ContentFilters } from "../../../store/content-types.js";
import type { EntryRepository } from "../../../store/entry-repository.js";
import { agentTypeInput } from "../agent-type-input.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "../tool.js";
import { clampBudget } from "./output-budget.js";
import { firstLine, fitBlocks, resultHeader, shownTime } from "./role-output.js";
import { parseTimePoint } from "./time-point.js";

export interface ChronicleDeps {
  entries: Pick<EntryRepository, "chronological" | "countMatching">;
  /** Tokens the window can still take. */
  availableTokens(): number;
  now?(): number;
}

const MAX_LIMIT = 100;

const schema = z.strictObject({
  from: z
    .string()
    .min(1)
    .optional()
    .describe('Start: an ISO date or date-time ("2026-03-01", "2026-03-01T14:00Z") or a span back from now ("2h", "7d").'),
  to: z.string().min(1).optional().describe("End, in the same forms (default: now)."),
  content_types: z.array(z.enum(CONTENT_TYPES)).min(1).optional().describe("Only entries of these types."),
  agent_type: agentTypeInput(),
  session_id: z.string().min(1).optional().describe("Only this session (default: every session)."),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(50).describe(`Most entries (1–${MAX_LIMIT}).`),
  max_tokens: z.number().int().min(100).max(8_000).default(2_000).describe("Token budget (100–8000)."),
});

/**
 * The archivalist's timeline (`get_chronicle_entries`): what was recorded in
 * a time range, oldest first, one line per entry with the ids that lead to
 * its full content.
 */
export function createGetChronicleEntriesTool(deps: ChronicleDeps): ToolDefinition {
  return defineTool({
    name: "get_chronicle_entries",
    description: toolDescription(import.meta.url, "get-chronicle-entries.txt"),
    schema,
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const now = deps.now?.() ?? Date.now();
      const from = input.from === undefined ? undefined : timePoint(input.from, "from", now, "start");
      const to = input.to === undefined ? now : timePoint(input.to, "to", now, "end");
      if (from !== undefined && from > to)
        throw new ToolError(`"from" (${new Date(from).toISOString()}) is after "to" (${new Date(to).toISOString()}).`);
      const filters: ContentFilters = {
        timeRange: [from ?? 0, to],
        ...(input.content_types ? { contentTypes: input.content_types } : {}),
        ...(input.agent_type ? { agentTypes: [input.agent_type] } : {}),
        ...(input.session_id ? { sessionId: input.session_id } : {}),
      };
      // Without a start, the latest entries up to the end; either way shown oldest first.
      const entries = deps.entries.chronological(filters, input.limit, { latest: from === undefined });
      const range = `${from === undefined ? "the start" : shownTime(from)} to ${shownTime(to)} UTC`;
      if (entries.length === 0) {
        return {
          output: `source: chronicle · 0 results · tokens: 0 · truncated: false\nNo entries recorded from ${range}${scope(input)}.`,
          display: "no entries",
        };
      }
      const fitted = fitBlocks(entries.map(chronicleLine), clampBudget(input.max_tokens, deps.availableTokens()));
      const matching = deps.entries.countMatching(filters);
      const notes = [
        ...(matching > fitted.kept.length
          ? [
              `(${matching} entries match from ${range}; ${fitted.kept.length} shown${from === undefined ? ", the latest" : ", the earliest"}. Narrow the range, or raise limit or max_tokens.)`,
            ]
          : []),
        "Read an entry in full with get_turn_range (its turn, in this session) or search_history.",
      ];
      return {
        output: [resultHeader("chronicle", fitted, [`from ${range}`]), ...fitted.kept, ...notes].join("\n"),
        display: `${fitted.kept.length} entries${fitted.truncated ? " (truncated)" : ""}`,
      };
    },
  });
}

function timePoint(text: string, name: "from" | "to", now: number, end: "start" | "end"): number {
  const parsed = parseTimePoint(text, now, end);
  if (parsed === undefined)
    throw new ToolError(
      `"${name}" must be an ISO date ("2026-03-01", "2026-03-01T14:00Z") or a span back from now ("30m", "2h", "7d", "2w"); got "${text}".`,
    );
  return parsed;
}

function scope(input: z.infer<typeof schema>): string {
  const parts = [
    ...(input.content_types ? [`of type ${input.content_types.join(" or ")}`] : []),
    ...(input.agent_type ? [`by agent type ${input.agent_type}`] : []),
    ...(input.session_id ? [`in session ${input.session_id}`] : []),
  ];
  return parts.length > 0 ? ` ${parts.join(", ")}` : "";
}

/** time · session · agent · type (tool) · turn · first line · entry id */
function chronicleLine(entry: ContentEntry): string {
  const tool = typeof entry.metadata.tool === "string" ? ` (${entry.metadata.tool})` : "";
  return `- ${shownTime(entry.timestamp)} · session ${entry.sessionId} · ${entry.agentId} · ${entry.contentType}${tool} · turn ${entry.turnNumber} · ${firstLine(entry.content, 120)} · entry ${entry.id}`;
}
