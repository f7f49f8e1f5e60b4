import * as z from "zod";
import { maskSecrets } from "../../../security/secrets.js";
import type { FileRepository, IndexedSymbol } from "../../../store/file-repository.js";
import { estimateTokens } from "../../../tokens/estimate-tokens.js";
import { targetPath } from "../file-text.js";
import { resolveProjectPath } from "../project-paths-guard.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { clampBudget, OutputBudget, renderWithHeader } from "./output-budget.js";
import { clip, findCallees, renderDefinition } from "./symbol-body.js";
import {
  type ChunksMentioning,
  callersOfCallers,
  findSites,
  findTestLines,
  MENTION_CHUNKS,
  type Site,
  SymbolsByFile,
  TEST_PATH,
  wholeIdentifierTerm,
} from "./symbol-mentions.js";

/**
 * What `get_symbol_context` reads. `ProjectServices` supplies it as
 * `{ symbols: services.files, chunksMentioning: chunksMentioningFrom(services.codeFullText, services.files), availableTokens }`.
 */
export interface SymbolContextDeps {
  /** The code index: definitions by exact name and by prefix, a file's definitions, and the manifest's content hash. */
  symbols: Pick<FileRepository, "symbolsNamed" | "symbolsStartingWith" | "symbolsIn" | "manifestFor" | "isEmpty">;
  /** Chunks whose indexed text holds this whole identifier (the code full-text index), best first, `limit` of them and every chunk that ties the last one's score (so the set does not depend on the order the chunks were indexed in). */
  chunksMentioning: ChunksMentioning;
  /** Tokens the window can still take: the answer never asks for more. */
  availableTokens(): number;
  /** The session's token counter (default: the four-characters estimate). */
  countTokens?(text: string): number;
}

const DEFAULT_TOKENS = 3_000;
const MAX_TOKENS = 8_000;
/** Definitions shown in full; others are listed by place. */
const MAX_DEFINITIONS = 3;
const SOURCE = "symbols index + code full-text index";

const INCLUDE = ["callers", "callees", "tests"] as const;

const schema = z.strictObject({
  symbol: z.string().min(1).max(200).describe("Exact name of the function, method, class or type, as it is defined (case-sensitive)."),
  file: z
    .string()
    .min(1)
    .optional()
    .describe("Path of the defining file, relative to the project root, when the name is defined in several places."),
  depth: z.number().int().min(1).max(2).default(1).describe("1: direct callers; 2: also the callers of those callers, as names only."),
  include: z
    .array(z.enum(INCLUDE))
    .min(1)
    .default([...INCLUDE])
    .describe("Which sections to add after the definition."),
  max_tokens: z.number().int().min(100).max(MAX_TOKENS).default(DEFAULT_TOKENS).describe(`Token budget (100–${MAX_TOKENS}).`),
});

/**
 * A symbol's definition, callers, callees and tests, found by name in the
 * code index (a skill of the librarian, architect, engineer and inspector).
 */
export function createGetSymbolContextTool(deps: SymbolContextDeps): ToolDefinition<typeof schema> {
  const count = deps.countTokens ?? estimateTokens;
  return defineTool({
    name: "get_symbol_context",
    description: toolDescription(import.meta.url, "get-symbol-context.txt"),
    schema,
    kind: "read",
    targets: (input) => (input.file ? { paths: [targetPath(input.file)] } : {}),
    async execute(input, context) {
      const budget = clampBudget(input.max_tokens, deps.availableTokens());
      const name = input.symbol.trim();
      const finish = (results: number, truncated: boolean, body: string[], relatedFiles: string[] = []) => {
        const { output, tokens } = renderWithHeader(SOURCE, results, truncated, body, count);
        return { output, display: `${name}: ${results} results, ${tokens} tokens${truncated ? " (truncated)" : ""}`, relatedFiles };
      };
      const file = input.file === undefined ? undefined : resolveProjectPath(context.root, input.file).relative;

      if (deps.symbols.isEmpty()) {
        return finish(0, false, [
          "The code index is empty: this project has not been indexed yet (or indexing has not finished). Use grep or search_codebase meanwhile.",
        ]);
      }
      const all = deps.symbols.symbolsNamed([name]);
      if (all.length === 0) return finish(0, false, unknownSymbol(name, deps.symbols.symbolsStartingWith(name, 10)));

      const lookup = new SymbolsByFile(deps.symbols);
      const body = new OutputBudget(budget - 40, count);
      body.add(
        "Matched by name, not by type: same-named symbols elsewhere count too, and calls through aliases or dynamic dispatch are missed.",
      );
      let definitions = all;
      if (file !== undefined) {
        const inFile = all.filter((symbol) => symbol.path === file);
        if (inFile.length > 0) definitions = inFile;
        else body.add(`${name} is not defined in ${file}; showing where it is defined.`);
      }
      let results = 0;
      // The definitions take at most half the budget: the sections after them need room too.
      const definitionCeiling = Math.floor((budget - 40) / 2);
      const shown = definitions.slice(0, MAX_DEFINITIONS);
      for (const definition of shown) {
        renderDefinition(definition, context.root, deps.symbols, body, definitionCeiling);
        results++;
      }
      if (definitions.length > shown.length) {
        body.add(
          `Also defined at: ${definitions
            .slice(shown.length)
            .map((symbol) => `${symbol.path}:${symbol.startLine}`)
            .join(", ")}`,
        );
      }

      const isDefinitionLine = (path: string, line: number) =>
        all.some((symbol) => symbol.path === path && line >= symbol.startLine && line <= symbol.endLine);
      const term = wholeIdentifierTerm(name);
      const chunks = term === undefined ? [] : deps.chunksMentioning(name, MENTION_CHUNKS);
      const mentions = findSites(name, chunks, lookup, isDefinitionLine);
      const unsearchable =
        term === undefined
          ? `(${name} is too short or too common for the full-text index: its uses cannot be searched; use grep.)`
          : undefined;

      if (input.include.includes("callees")) {
        body.add("");
        body.add("## Callees (identifiers called in the body that are indexed symbols; same file first)");
        const callees = findCallees(name, shown, context.root, deps.symbols);
        if (callees.length === 0) body.add("(none found)");
        results += body.addAll(callees, (more) => `… ${more} more callees not shown (raise max_tokens, up to ${MAX_TOKENS}).`);
      }

      // With a tests section, test files are listed there rather than among the callers.
      const callers = input.include.includes("tests") ? mentions.filter((site) => !TEST_PATH.test(site.path)) : mentions;
      if (input.include.includes("callers")) {
        body.add("");
        body.add("## Callers (call sites outside the definition, each in its smallest enclosing symbol)");
        if (unsearchable) body.add(unsearchable);
        else if (callers.length === 0) body.add("(none found in the index)");
        results += body.addAll(
          callers.map(renderSite),
          (more) => `… ${more} more call sites not shown (raise max_tokens, up to ${MAX_TOKENS}).`,
        );
      }

      if (input.depth === 2 && input.include.includes("callers") && callers.length > 0) {
        body.add("");
        body.add("## Callers' callers (names only)");
        const lines = callersOfCallers(callers, deps.symbols, deps.chunksMentioning, lookup);
        if (lines.length === 0) body.add("(the callers are top-level code or have no callers in the index)");
        results += body.addAll(lines, (more) => `… ${more} more callers not shown (raise max_tokens, up to ${MAX_TOKENS}).`);
      }

      if (input.include.includes("tests")) {
        body.add("");
        body.add("## Tests (lines of test files that name it)");
        const tests = findTestLines(name, chunks);
        if (unsearchable) body.add(unsearchable);
        else if (tests.length === 0) body.add("(no test file in the index names it)");
        results += body.addAll(
          tests.map(renderSite),
          (more) => `… ${more} more test lines not shown (raise max_tokens, up to ${MAX_TOKENS}).`,
        );
      }

      const related = [...new Set([...shown.map((symbol) => symbol.path), ...callers.map((site) => site.path)])];
      return finish(results, body.truncated, body.lines, related);
    },
  });
}

function unknownSymbol(name: string, suggestions: ReadonlyArray<Omit<IndexedSymbol, "endLine">>): string[] {
  const lines = [`No indexed symbol is named exactly ${name}.`];
  if (suggestions.length === 0) {
    lines.push(
      "No indexed symbol starts with it either. It may be defined in a file the index does not cover, or under another name: try grep or search_codebase.",
    );
  } else {
    lines.push("Symbols whose names start with it:");
    for (const symbol of suggestions) lines.push(`- ${symbol.name} (${symbol.kind}) · ${symbol.path}:${symbol.startLine}`);
  }
  return lines;
}

function renderSite(site: Site): string {
  const where = site.enclosing ? `in ${site.enclosing.kind} ${site.enclosing.name}` : TEST_PATH.test(site.path) ? "" : "at top level";
  return `- ${site.path}:${site.line}${where ? ` ${where}` : ""}: ${clip(maskSecrets(site.text.trim()).text)}`;
}
