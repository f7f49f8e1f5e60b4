import { tokenize } from "../../../parsing/code-tokenizer.js";
import { stem } from "../../../search/full-text-document.js";
import type { PersistentFullText } from "../../../search/persistent-full-text.js";
import type { FileRepository, IndexedSymbol } from "../../../store/file-repository.js";
import { splitLines } from "../file-text.js";

/** Indexed text of a chunk that mentions an identifier. */
export interface MentioningChunk {
  path: string;
  startLine: number;
  endLine: number;
  content: string;
}

/** Chunks whose indexed text holds this whole identifier, best first, `limit` of them and every chunk that ties the last one's score (so the set does not depend on the order the chunks were indexed in). */
export type ChunksMentioning = (identifier: string, limit: number) => MentioningChunk[];

/** A line that mentions a symbol, with the smallest indexed symbol around it (none for a test line or top-level code). */
export interface Site {
  path: string;
  line: number;
  text: string;
  enclosing: IndexedSymbol | undefined;
}

/** Chunks read for one identifier's mentions. */
export const MENTION_CHUNKS = 200;
/** Callers whose own callers depth 2 looks up. */
const MAX_DEPTH_TWO_CALLERS = 10;
/** Paths of test files, by the folder and file-name conventions of the common languages. */
export const TEST_PATH = /(^|\/)(tests?|__tests__|specs?)\/|[._-](test|spec)\.[^/]+$|(^|\/)test_[^/]+$|_test\.[^/]+$/;

/** The full-text term of a whole identifier, or undefined when the index keeps no such term (too short, a stop word). */
export function wholeIdentifierTerm(identifier: string): string | undefined {
  const whole = identifier.replace(/^[_$]+|[_$]+$/g, "").toLowerCase();
  const [first] = tokenize(identifier);
  return first === whole ? stem(whole) : undefined;
}

/** `chunksMentioning` over the code full-text index and the chunks table. */
export function chunksMentioningFrom(
  fullText: Pick<PersistentFullText, "search">,
  files: Pick<FileRepository, "getChunks">,
): ChunksMentioning {
  return (identifier, limit) => {
    const term = wholeIdentifierTerm(identifier);
    if (term === undefined) return [];
    return files.getChunks(fullText.search([term], limit).map((hit) => hit.id));
  };
}

/** Each file's definitions, read once, to name the smallest one around a line. */
export class SymbolsByFile {
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
export function findSites(
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
export function findTestLines(name: string, chunks: readonly MentioningChunk[]): Site[] {
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

/** For each distinct caller symbol, the symbols that call it by name: `caller ← a · path, b · path`. */
export function callersOfCallers(
  callers: readonly Site[],
  symbols: Pick<FileRepository, "symbolsNamed">,
  chunksMentioning: ChunksMentioning,
  lookup: SymbolsByFile,
): string[] {
  const distinct = new Map<string, IndexedSymbol>();
  for (const site of callers) {
    if (site.enclosing && !distinct.has(site.enclosing.name)) distinct.set(site.enclosing.name, site.enclosing);
  }
  const lines: string[] = [];
  for (const caller of [...distinct.values()].slice(0, MAX_DEPTH_TWO_CALLERS)) {
    if (wholeIdentifierTerm(caller.name) === undefined) continue;
    const definitions = symbols.symbolsNamed([caller.name]);
    const inside = (path: string, line: number) =>
      definitions.some((symbol) => symbol.path === path && line >= symbol.startLine && line <= symbol.endLine);
    const names = new Set<string>();
    let topLevel = false;
    for (const site of findSites(caller.name, chunksMentioning(caller.name, MENTION_CHUNKS), lookup, inside)) {
      if (site.enclosing) names.add(`${site.enclosing.name} · ${site.path}`);
      else topLevel = true;
    }
    if (topLevel) names.add("(top-level code)");
    lines.push(`- ${caller.name} ← ${names.size > 0 ? [...names].join(", ") : "(no callers found)"}`);
  }
  if (distinct.size > MAX_DEPTH_TWO_CALLERS) lines.push(`… ${distinct.size - MAX_DEPTH_TWO_CALLERS} more callers not followed.`);
  return lines;
}
