import * as z from "zod";
import type { CodeSearchHit, HybridCodeSearcher } from "../../search/hybrid-code-searcher.js";
import type { SearchOutcome } from "../../search/search-outcome.js";
import { maskSecrets } from "../../security/secrets.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "./tool.js";
import { errorMessage } from "../../errors.js";

const schema = z.strictObject({
  query: z.string().trim().min(1).describe("What you are looking for, in words or identifiers."),
  limit: z.number().int().min(1).max(30).default(8).describe("How many results to return (at most 30)."),
});

export type CodeSearcher = Pick<HybridCodeSearcher, "search">;

export function createSearchCodebaseTool(searcher: CodeSearcher): ToolDefinition<typeof schema> {
  return defineTool({
    name: "search_codebase",
    description: toolDescription(import.meta.url, "search-codebase.txt"),
    schema,
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      let outcome: SearchOutcome<CodeSearchHit>;
      try {
        outcome = await searcher.search(input.query, { limit: input.limit });
      } catch (error) {
        throw new ToolError(`Code search is unavailable: ${errorMessage(error)}. Use grep or list_files instead.`);
      }
      const notes = outcome.degraded.map((message) => `[Degraded search: ${message}; results come from the remaining signal.]`);
      if (outcome.hits.length === 0) {
        return {
          output: [`No results for "${input.query}". Try other words, or grep for exact text.`, ...notes].join("\n"),
          display: `No results for ${input.query}`,
        };
      }
      const sections = outcome.hits.map((hit) => {
        const symbols = hit.symbols.length > 0 ? ` (${hit.symbols.join(", ")})` : "";
        return `${hit.path}:${hit.startLine}-${hit.endLine}${symbols}\n${maskSecrets(hit.snippet).text}`;
      });
      const paths = [...new Set(outcome.hits.map((hit) => hit.path))];
      return {
        output: [...notes, ...sections].join("\n\n"),
        display: `Found ${outcome.hits.length} result${outcome.hits.length === 1 ? "" : "s"} for ${input.query}${notes.length > 0 ? " (degraded)" : ""}`,
        relatedFiles: paths,
      };
    },
  });
}
