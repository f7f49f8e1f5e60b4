import { lstatSync } from "node:fs";
import { resolve } from "node:path";
import fuzzysort from "fuzzysort";
import { resolveProjectPath } from "../agent/tools/project-paths-guard.js";
import { NotRegularFileError, readRegularFile } from "../files/regular-file.js";
import { maskSecrets } from "../security/secrets.js";
import type { FileRepository } from "../store/file-repository.js";
import { errorMessage } from "../errors.js";

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

/** A mention that names something in the project that cannot be attached, and why (shown to the user). */
export interface RefusedMention {
  mention: string;
  message: string;
}

/** Lines of one attachment at most: a mention brings a file in, not a whole generated bundle. */
const MAX_ATTACHED_LINES = 1_000;
const MENTION = /(^|\s)@([^\s@]+)/g;
/** Between the prompt and its first attachment, and between attachments. */
const ATTACHMENTS_SEPARATOR = "\n\n";
const BLOCK_START = '<attached mention="@';

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
    const symbols = /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(query)
      ? this.files.symbolsStartingWith(query, Math.max(0, limit - files.length))
      : [];
    return [
      ...files.map((path) => ({ text: path, detail: "file" })),
      ...symbols.map((symbol) => ({ text: symbol.name, detail: `${symbol.kind} · ${symbol.path}:${symbol.startLine}-${symbol.endLine}` })),
    ];
  }

  /**
   * The prompt with each mentioned file or definition attached after it,
   * what was attached, and the mentions of things in the project that could
   * not be (a directory, a FIFO, a secrets file, a link out of the project).
   */
  attach(prompt: string): { prompt: string; attachments: Attachment[]; refused: RefusedMention[] } {
    const attachments: Attachment[] = [];
    const refused: RefusedMention[] = [];
    const blocks: string[] = [];
    const seen = new Set<string>();
    for (const match of prompt.matchAll(MENTION)) {
      const mention = (match[2] ?? "").replace(/[.,;:!?)]+$/, "");
      if (seen.has(mention)) continue;
      seen.add(mention);
      const found = this.resolve(mention);
      if (!found) continue;
      if ("message" in found) {
        refused.push(found);
        continue;
      }
      attachments.push(found.attachment);
      blocks.push(found.block);
    }
    if (blocks.length === 0) return { prompt, attachments, refused };
    return { prompt: `${prompt}${ATTACHMENTS_SEPARATOR}${blocks.join(ATTACHMENTS_SEPARATOR)}`, attachments, refused };
  }

  private resolve(mention: string): { attachment: Attachment; block: string } | RefusedMention | undefined {
    const file = this.readFile(mention);
    if (Array.isArray(file)) return this.attachment(mention, mention, file, 1, file.length);
    if (file !== undefined) return { mention, message: `@${mention} was not attached: ${file}` };
    const [symbol] = this.files.symbolsStartingWith(mention, 20).filter((candidate) => candidate.name === mention);
    if (!symbol) return undefined;
    const lines = this.readFile(symbol.path);
    return Array.isArray(lines) ? this.attachment(mention, symbol.path, lines, symbol.startLine, symbol.endLine) : undefined;
  }

  /**
   * The file's lines, secrets masked; why it cannot be attached when the
   * path names something; undefined when it names nothing (then the word is
   * not a path and stays as typed). Read without blocking: `@fifo` must not
   * freeze the session.
   */
  private readFile(path: string): string[] | string | undefined {
    if (!namesSomething(resolve(this.root, path))) return undefined;
    let bytes: Buffer;
    try {
      bytes = readRegularFile(resolveProjectPath(this.root, path).real);
    } catch (error) {
      if (error instanceof NotRegularFileError) return `it is ${error.kind}, not a regular file.`;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return "it leads to nothing (a dangling symbolic link).";
      return errorMessage(error); // outside the project, a secrets file: the guard says which
    }
    const text = bytes.toString("utf8");
    if (text.includes("\u0000")) return "it is a binary file.";
    return maskSecrets(text).text.replace(/\n$/, "").split("\n");
  }

  private attachment(
    mention: string,
    path: string,
    lines: string[],
    startLine: number,
    endLine: number,
  ): { attachment: Attachment; block: string } {
    const last = Math.min(endLine, startLine + MAX_ATTACHED_LINES - 1, lines.length);
    const truncated = last < Math.min(endLine, lines.length);
    const body = lines.slice(startLine - 1, last).join("\n");
    const note = truncated ? `\n[… cut at ${MAX_ATTACHED_LINES} lines: read_file("${path}") has the rest]` : "";
    return {
      attachment: { mention, path, startLine, endLine: last, truncated },
      block: `${BLOCK_START}${mention}" path="${path}" lines="${startLine}-${last}">\n${body}${note}\n</attached>`,
    };
  }
}

/**
 * A sent prompt as the user typed it, without the files its mentions
 * attached (`attach` puts them after it). The attachments start at the first
 * block that is for a mention the text before it holds: a typed `<attached`
 * is not taken for one.
 */
export function promptAsTyped(prompt: string): string {
  const marker = `${ATTACHMENTS_SEPARATOR}${BLOCK_START}`;
  for (let start = prompt.indexOf(marker); start !== -1; start = prompt.indexOf(marker, start + 1)) {
    const mentionStart = start + marker.length;
    const mention = prompt.slice(mentionStart, prompt.indexOf('"', mentionStart));
    if (prompt.slice(0, start).includes(`@${mention}`)) return prompt.slice(0, start);
  }
  return prompt;
}

function namesSomething(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false; // nothing there, a file where a directory should be, a name too long: not a path
  }
}
