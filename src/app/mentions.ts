import { readFileSync } from "node:fs";
import fuzzysort from "fuzzysort";
import { resolveProjectPath } from "../agent/tools/project-paths-guard.js";
import { maskSecrets } from "../security/secrets.js";
import type { FileRepository } from "../store/file-repository.js";

/** One completion of `@…`: what goes into the prompt, and a word on what it is. */
export interface MentionSuggestion {
  text: string;
  detail: string;
}

/** A file or definition a prompt mentioned, attached to it. */
export interface Attachment {
  /** As mentioned: a path, or a symbol's name. */
  mention: string;
  path: string;
  startLine: number;
  endLine: number;
  /** Cut at the line limit. */
  truncated: boolean;
}

/** Lines of one attachment at most: a mention brings a file in, not a whole generated bundle. */
const MAX_ATTACHED_LINES = 1_000;
const MENTION = /(^|\s)@([^\s@]+)/g;

/**
 * `@` in the prompt: completion of the project's indexed files (fuzzy, as
 * fzf matches) and definitions (by name), and, when the prompt is sent, the
 * mentioned files or definitions attached to it. Paths go through the same
 * guard as the tools: nothing outside the project, no secrets files.
 */
export class Mentions {
  private paths: string[] | undefined;

  constructor(
    private readonly root: string,
    private readonly files: Pick<FileRepository, "indexedPaths" | "symbolsStartingWith">,
  ) {}

  complete(query: string, limit = 8): MentionSuggestion[] {
    // Read once per session, on the first `@`: 28k paths take a few milliseconds.
    this.paths ??= this.files.indexedPaths();
    const files = query === "" ? this.paths.slice(0, limit) : fuzzysort.go(query, this.paths, { limit }).map((result) => result.target);
    const symbols = /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(query) ? this.files.symbolsStartingWith(query, Math.max(0, limit - files.length)) : [];
    return [
      ...files.map((path) => ({ text: path, detail: "file" })),
      ...symbols.map((symbol) => ({ text: symbol.name, detail: `${symbol.kind} · ${symbol.path}:${symbol.startLine}-${symbol.endLine}` })),
    ];
  }

  /** The prompt with each mentioned file or definition attached after it, and what was attached. */
  attach(prompt: string): { prompt: string; attachments: Attachment[] } {
    const attachments: Attachment[] = [];
    const blocks: string[] = [];
    const seen = new Set<string>();
    for (const match of prompt.matchAll(MENTION)) {
      const mention = (match[2] ?? "").replace(/[.,;:!?)]+$/, "");
      if (seen.has(mention)) continue;
      seen.add(mention);
      const found = this.resolve(mention);
      if (!found) continue;
      attachments.push(found.attachment);
      blocks.push(found.block);
    }
    if (blocks.length === 0) return { prompt, attachments };
    return { prompt: `${prompt}\n\n${blocks.join("\n\n")}`, attachments };
  }

  private resolve(mention: string): { attachment: Attachment; block: string } | undefined {
    const file = this.readFile(mention);
    if (file) return this.attachment(mention, mention, file, 1, file.length);
    const [symbol] = this.files.symbolsStartingWith(mention, 20).filter((candidate) => candidate.name === mention);
    if (!symbol) return undefined;
    const lines = this.readFile(symbol.path);
    return lines ? this.attachment(mention, symbol.path, lines, symbol.startLine, symbol.endLine) : undefined;
  }

  private readFile(path: string): string[] | undefined {
    try {
      const resolved = resolveProjectPath(this.root, path);
      const text = readFileSync(resolved.absolute, "utf8");
      if (text.includes("\u0000")) return undefined;
      return maskSecrets(text).text.replace(/\n$/, "").split("\n");
    } catch {
      return undefined; // not a file of the project (or a secrets file): the word stays as typed
    }
  }

  private attachment(mention: string, path: string, lines: string[], startLine: number, endLine: number): { attachment: Attachment; block: string } {
    const last = Math.min(endLine, startLine + MAX_ATTACHED_LINES - 1, lines.length);
    const truncated = last < Math.min(endLine, lines.length);
    const body = lines.slice(startLine - 1, last).join("\n");
    const note = truncated ? `\n[… cut at ${MAX_ATTACHED_LINES} lines: read_file("${path}") has the rest]` : "";
    return {
      attachment: { mention, path, startLine, endLine: last, truncated },
      block: `<attached mention="@${mention}" path="${path}" lines="${startLine}-${last}">\n${body}${note}\n</attached>`,
    };
  }
}
