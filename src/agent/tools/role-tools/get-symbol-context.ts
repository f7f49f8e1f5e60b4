import { createHash } from "node:crypto";
import * as z from "zod";
import { FileTooLargeError, NotRegularFileError, readRegularFile } from "../../../files/regular-file.js";
import { tokenize } from "../../../parsing/code-tokenizer.js";
import { stem } from "../../../search/full-text-document.js";
import type { PersistentFullText } from "../../../search/persistent-full-text.js";
import { maskSecrets } from "../../../security/secrets.js";
import type { FileRepository, IndexedSymbol } from "../../../store/file-repository.js";
import { estimateTokens } from "../../../tokens/estimate-tokens.js";
import { splitLines, targetPath } from "../file-text.js";
import { resolveProjectPath } from "../project-paths-guard.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { clampBudget, OutputBudget, renderWithHeader } from "./output-budget.js";
import { errorMessage } from "../../../errors.js";

/** Indexed text of a chunk that mentions an identifier. */
export interface MentioningChunk {
  path: string;
  startLine: number;
  endLine: number;
  content: string;
}

/**
 * What `get_symbol_context` reads. `ProjectServices` supplies it as
 * `{ symbols: services.files, chunksMentioning: chunksMentioningFrom(services.codeFullText, services.files), availableTokens }`.
 */
export interface SymbolContextDeps {
  /** The code index: definitions by exact name and by prefix, a file's definitions, and the manifest's content hash. */
  symbols: Pick<FileRepository, "symbolsNamed" | "symbolsStartingWith" | "symbolsIn" | "manifestFor" | "isEmpty">;
  /** Chunks whose indexed text holds this whole identifier (the code full-text index), best first, at most `limit`. */
  chunksMentioning(identifier: string, limit: number): MentioningChunk[];
  /** Tokens the window can still take: the answer never asks for more. */
  availableTokens(): number;
  /** The session's token counter (default: the four-characters estimate). */
  countTokens?(text: string): number;
}

const DEFAULT_TOKENS = 3_000;
const MAX_TOKENS = 8_000;
/** Chunks read for one identifier's mentions. */
const MENTION_CHUNKS = 200;
/** Definitions shown in full; others are listed by place. */
const MAX_DEFINITIONS = 3;
/** Callers whose own callers depth 2 looks up. */
const MAX_DEPTH_TWO_CALLERS = 10;
const MAX_LINE_CHARS = 300;
/** Larger files are not read for a definition's current lines. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const SOURCE = "symbols index + code full-text index";
const TEST_PATH = /(^|\/)(tests?|__tests__|specs?)\/|[._-](test|spec)\.[^/]+$|(^|\/)test_[^/]+$|_test\.[^/]+$/;

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

/** The full-text term of a whole identifier, or undefined when the index keeps no such term (too short, a stop word). */
function wholeIdentifierTerm(identifier: string): string | undefined {
  const whole = identifier.replace(/^[_$]+|[_$]+$/g, "").toLowerCase();
  const [first] = tokenize(identifier);
  return first === whole ? stem(whole) : undefined;
}

/** `chunksMentioning` over the code full-text index and the chunks table. */
export function chunksMentioningFrom(
  fullText: Pick<PersistentFullText, "search">,
  files: Pick<FileRepository, "getChunks">,
): SymbolContextDeps["chunksMentioning"] {
  return (identifier, limit) => {
    const term = wholeIdentifierTerm(identifier);
    if (term === undefined) return [];
    return files.getChunks(fullText.search([term], limit).map((hit) => hit.id));
  };
}

interface Site {
  path: string;
  line: number;
  text: string;
  enclosing: IndexedSymbol | undefined;
}

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
        const lines = callersOfCallers(callers, deps, lookup);
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

/** A definition's current lines, marked when the file changed since indexing. */
function renderDefinition(
  definition: IndexedSymbol,
  root: string,
  symbols: SymbolContextDeps["symbols"],
  body: OutputBudget,
  ceiling: number,
): void {
  body.add("");
  body.add(`## Definition: ${definition.kind} ${definition.name} · ${definition.path}:${definition.startLine}-${definition.endLine}`);
  const current = readCurrent(root, definition.path);
  if (typeof current === "string") {
    body.add(`(${current})`);
    return;
  }
  const indexedHash = symbols.manifestFor([definition.path]).get(definition.path)?.contentHash;
  if (indexedHash !== current.hash) {
    body.add(
      "(stale: the file changed since it was indexed; these are its current lines at the indexed line numbers, which may have moved)",
    );
  }
  const lines = current.lines.slice(definition.startLine - 1, definition.endLine);
  if (lines.length === 0) {
    body.add(`(the file now has only ${current.lines.length} lines)`);
    return;
  }
  for (const [index, line] of lines.entries()) {
    const number = definition.startLine + index;
    if (!body.add(`${number}\t${clip(line)}`, ceiling)) {
      body.note(`… lines ${number}-${definition.endLine} not shown: read_file path "${definition.path}" offset ${number}.`);
      return;
    }
  }
}

/** The file's current lines (secrets masked) and its sha256, or why they cannot be read. */
function readCurrent(root: string, path: string): { lines: string[]; hash: string } | string {
  let real: string;
  try {
    real = resolveProjectPath(root, path).real;
  } catch (error) {
    return errorMessage(error);
  }
  try {
    const bytes = readRegularFile(real, { maxBytes: MAX_FILE_BYTES });
    return { lines: splitLines(maskSecrets(bytes.toString("utf8")).text), hash: createHash("sha256").update(bytes).digest("hex") };
  } catch (error) {
    if (error instanceof FileTooLargeError) return "the file is too large to read here; use read_file with an offset";
    if (error instanceof NotRegularFileError) return `it is ${error.kind} now, not a regular file; it was not read`;
    return "the file no longer exists; the index is behind";
  }
}

/** Each file's definitions, read once, to name the smallest one around a line. */
class SymbolsByFile {
  private readonly cache = new Map<string, IndexedSymbol[]>();

  constructor(private readonly symbols: Pick<FileRepository, "symbolsIn">) {}

  enclosing(path: string, line: number): IndexedSymbol | undefined {
    let inFile = this.cache.get(path);
    if (!inFile) {
      inFile = this.symbols.symbolsIn(path);
      this.cache.set(path, inFile);
    }
    let best: IndexedSymbol | undefined;
    for (const symbol of inFile) {
      if (line < symbol.startLine || line > symbol.endLine) continue;
      if (!best || symbol.endLine - symbol.startLine < best.endLine - best.startLine) best = symbol;
    }
    return best;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Lines of the chunks that call `name` (`name(` or `name<`), outside its definitions, in path and line order. */
function findSites(
  name: string,
  chunks: readonly MentioningChunk[],
  lookup: SymbolsByFile,
  isDefinitionLine: (path: string, line: number) => boolean,
): Site[] {
  const call = new RegExp(`(?<![\\w$])${escapeRegExp(name)}\\s*[(<]`);
  const seen = new Set<string>();
  const sites: Site[] = [];
  for (const chunk of chunks) {
    splitLines(chunk.content).forEach((text, index) => {
      const line = chunk.startLine + index;
      const key = `${chunk.path}:${line}`;
      if (seen.has(key) || !call.test(text) || isDefinitionLine(chunk.path, line)) return;
      seen.add(key);
      sites.push({ path: chunk.path, line, text, enclosing: lookup.enclosing(chunk.path, line) });
    });
  }
  return sites.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
}

/** Lines of test files that name `name` as a whole word. */
function findTestLines(name: string, chunks: readonly MentioningChunk[]): Site[] {
  const word = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
  const seen = new Set<string>();
  const sites: Site[] = [];
  for (const chunk of chunks) {
    if (!TEST_PATH.test(chunk.path)) continue;
    splitLines(chunk.content).forEach((text, index) => {
      const line = chunk.startLine + index;
      const key = `${chunk.path}:${line}`;
      if (seen.has(key) || !word.test(text)) return;
      seen.add(key);
      sites.push({ path: chunk.path, line, text, enclosing: undefined });
    });
  }
  return sites.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
}

function renderSite(site: Site): string {
  const where = site.enclosing ? `in ${site.enclosing.kind} ${site.enclosing.name}` : TEST_PATH.test(site.path) ? "" : "at top level";
  return `- ${site.path}:${site.line}${where ? ` ${where}` : ""}: ${clip(maskSecrets(site.text.trim()).text)}`;
}

/**
 * Identifiers followed by `(` in the definitions' bodies (outside strings
 * and `//` comments) that are indexed symbols, same file first. A call
 * elsewhere is matched by name, and narrowed by what a name alone can tell:
 * a bare call `f(` is not a method of another file, a member call `x.f(`
 * is, and definitions in test files answer only calls made from tests.
 */
function findCallees(name: string, definitions: readonly IndexedSymbol[], root: string, symbols: SymbolContextDeps["symbols"]): string[] {
  const called = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g;
  const calls = new Map<string, { path: string; member: boolean }>(); // identifier → where it is first called, and how
  for (const definition of definitions) {
    const current = readCurrent(root, definition.path);
    if (typeof current === "string") continue;
    // A nested definition's own line (`execute(input) {`) declares a name; it calls nothing.
    const declared = new Set(symbols.symbolsIn(definition.path).map((symbol) => `${symbol.startLine}:${symbol.name}`));
    for (const [index, line] of current.lines.slice(definition.startLine - 1, definition.endLine).entries()) {
      const code = withoutStringsAndComments(line);
      for (const match of code.matchAll(called)) {
        const identifier = match[1] as string;
        if (identifier === name || calls.has(identifier) || declared.has(`${definition.startLine + index}:${identifier}`)) continue;
        calls.set(identifier, { path: definition.path, member: /\.\s*$/.test(code.slice(0, match.index)) });
      }
    }
  }
  const byName = new Map<string, IndexedSymbol[]>();
  for (const symbol of symbols.symbolsNamed([...calls.keys()])) byName.set(symbol.name, [...(byName.get(symbol.name) ?? []), symbol]);
  const sameFile: string[] = [];
  const elsewhere: string[] = [];
  for (const [identifier, call] of calls) {
    const all = byName.get(identifier) ?? [];
    const local = all.filter((symbol) => symbol.path === call.path);
    if (local.length > 0) {
      sameFile.push(
        `- ${identifier} (${local[0]?.kind}) · ${local.map((symbol) => `${symbol.path}:${symbol.startLine}`).join(", ")} (same file)`,
      );
      continue;
    }
    const fromTest = TEST_PATH.test(call.path);
    const candidates = all.filter(
      (symbol) =>
        (call.member ? symbol.kind === "method" || symbol.kind === "function" : symbol.kind !== "method") &&
        (fromTest || !TEST_PATH.test(symbol.path)),
    );
    if (candidates.length === 0) continue;
    const places = candidates
      .slice(0, 3)
      .map((symbol) => `${symbol.path}:${symbol.startLine}`)
      .join(", ");
    const more = candidates.length > 3 ? ` +${candidates.length - 3} more definitions` : "";
    elsewhere.push(
      `- ${identifier} (${candidates[0]?.kind}) · ${places}${more}${call.member ? ` (called as .${identifier}(: receiver type not known)` : ""}`,
    );
  }
  return [...sameFile, ...elsewhere];
}

/** A line with its string literals emptied and its `//` comment dropped (one line at a time: good enough for names). */
function withoutStringsAndComments(line: string): string {
  return line.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/, "");
}

/** For each distinct caller symbol, the symbols that call it by name: `caller ← a · path, b · path`. */
function callersOfCallers(callers: readonly Site[], deps: SymbolContextDeps, lookup: SymbolsByFile): string[] {
  const distinct = new Map<string, IndexedSymbol>();
  for (const site of callers) {
    if (site.enclosing && !distinct.has(site.enclosing.name)) distinct.set(site.enclosing.name, site.enclosing);
  }
  const lines: string[] = [];
  for (const caller of [...distinct.values()].slice(0, MAX_DEPTH_TWO_CALLERS)) {
    if (wholeIdentifierTerm(caller.name) === undefined) continue;
    const definitions = deps.symbols.symbolsNamed([caller.name]);
    const inside = (path: string, line: number) =>
      definitions.some((symbol) => symbol.path === path && line >= symbol.startLine && line <= symbol.endLine);
    const names = new Set<string>();
    let topLevel = false;
    for (const site of findSites(caller.name, deps.chunksMentioning(caller.name, MENTION_CHUNKS), lookup, inside)) {
      if (site.enclosing) names.add(`${site.enclosing.name} · ${site.path}`);
      else topLevel = true;
    }
    if (topLevel) names.add("(top-level code)");
    lines.push(`- ${caller.name} ← ${names.size > 0 ? [...names].join(", ") : "(no callers found)"}`);
  }
  if (distinct.size > MAX_DEPTH_TWO_CALLERS) lines.push(`… ${distinct.size - MAX_DEPTH_TWO_CALLERS} more callers not followed.`);
  return lines;
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
