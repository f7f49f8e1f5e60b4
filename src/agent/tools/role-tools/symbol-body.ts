import { createHash } from "node:crypto";
import { errorMessage } from "../../../errors.js";
import { FileTooLargeError, NotRegularFileError, readRegularFile } from "../../../files/regular-file.js";
import { maskSecrets } from "../../../security/secrets.js";
import type { FileRepository, IndexedSymbol } from "../../../store/file-repository.js";
import { splitLines } from "../file-text.js";
import { resolveProjectPath } from "../project-paths-guard.js";
import type { OutputBudget } from "./output-budget.js";
import { TEST_PATH } from "./symbol-mentions.js";

const MAX_LINE_CHARS = 300;
/** Larger files are not read for a definition's current lines. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** The index reads a definition's body needs: the manifest's content hash and each file's definitions. */
export type SymbolBodyIndex = Pick<FileRepository, "symbolsNamed" | "symbolsIn" | "manifestFor">;

/** A line cut to a width a tool answer can afford. */
export function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}

/** A definition's current lines, marked when the file changed since indexing. */
export function renderDefinition(
  definition: IndexedSymbol,
  root: string,
  symbols: Pick<SymbolBodyIndex, "manifestFor">,
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

/**
 * Identifiers followed by `(` in the definitions' bodies (outside strings
 * and `//` comments) that are indexed symbols, same file first. A call
 * elsewhere is matched by name, and narrowed by what a name alone can tell:
 * a bare call `f(` is not a method of another file, a member call `x.f(`
 * is, and definitions in test files answer only calls made from tests.
 */
export function findCallees(
  name: string,
  definitions: readonly IndexedSymbol[],
  root: string,
  symbols: Pick<SymbolBodyIndex, "symbolsNamed" | "symbolsIn">,
): string[] {
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
