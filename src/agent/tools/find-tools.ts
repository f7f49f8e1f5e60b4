import * as z from "zod";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import { definitionText, FIND_TOOLS, inputJsonSchema, loadedLine } from "./deferred-tools.js";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

/** At most this many tools answer one query: the best matches, not every tool that shares a word. */
const MAX_QUERY_MATCHES = 5;

export interface FindToolsDeps {
  /** The tools held back from the requests now, in the order they would be listed. */
  held(): readonly ToolDefinition[];
  /** From the next request on, these are sent. */
  load(names: readonly string[]): void;
}

/**
 * `find_tools`: the one tool that stands for every deferred one. Its
 * description names them (read at each listing, so an MCP server that
 * connects later is named in the next request); a call by exact names or
 * by a query answers with their descriptions and schemas and loads them.
 */
export function createFindToolsTool(deps: FindToolsDeps): ToolDefinition {
  return defineTool({
    name: FIND_TOOLS,
    get description(): string {
      return describe(deps.held());
    },
    schema: SCHEMA,
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const held = deps.held();
      const found = input.names?.length ? byNames(held, input.names) : byQuery(held, input.query ?? "");
      if (found.length === 0) {
        const asked = input.names?.length ? `names ${input.names.join(", ")}` : `"${input.query}"`;
        const output = `No tool to load matches ${asked}. Available to load: ${held.map((tool) => tool.name).join(", ") || "none"}.`;
        return { output, display: "No tool found" };
      }
      const names = found.map((tool) => tool.name);
      deps.load(names);
      const sections = found.map(definitionText);
      return {
        output: `${loadedLine(names)}\nThese tools are in your tool list from your next step; call them directly.\n\n${sections.join("\n\n")}`,
        display: `Loaded ${names.join(", ")}`,
      };
    },
  });
}

const BASE_DESCRIPTION = toolDescription(import.meta.url, "find-tools.txt");

const SCHEMA = z
  .strictObject({
    names: z.array(z.string()).optional().describe("Exact tool names to load"),
    query: z.string().optional().describe("Words for what you want to do, e.g. 'fetch a web page'"),
  })
  .refine((input) => (input.names?.length ?? 0) > 0 || (input.query ?? "").trim() !== "", "Give names or a query");

function describe(held: readonly ToolDefinition[]): string {
  return `${BASE_DESCRIPTION}\n\nAvailable to load: ${held.map((tool) => tool.name).join(", ")}.`;
}

/** What `find_tools` costs in a request while it stands for these held tools (its spec as the model sees it). */
export function findToolsTokens(held: readonly ToolDefinition[]): number {
  return estimateTokens(JSON.stringify({ name: FIND_TOOLS, description: describe(held), inputSchema: inputJsonSchema(SCHEMA) }));
}

function byNames(held: readonly ToolDefinition[], names: readonly string[]): ToolDefinition[] {
  const wanted = new Set(names.map((name) => name.trim()));
  return held.filter((tool) => wanted.has(tool.name));
}

/** The held tools whose name or description shares the query's words, most shared first (a word in the name counts double). */
function byQuery(held: readonly ToolDefinition[], query: string): ToolDefinition[] {
  const words = wordsOf(query);
  const scored = held.map((tool) => {
    const name = new Set(wordsOf(tool.name.replace(/_/g, " ")));
    const description = new Set(wordsOf(tool.description));
    const score = words.reduce((sum, word) => sum + (name.has(word) ? 2 : 0) + (description.has(word) ? 1 : 0), 0);
    return { tool, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_QUERY_MATCHES)
    .map((entry) => entry.tool);
}

/** Lower-case words of three letters or more, a plural's `s` dropped, so "pages" finds "page". */
function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).map((word) =>
    word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word,
  );
}
