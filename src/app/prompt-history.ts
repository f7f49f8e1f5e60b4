import { appendFileSync, chmodSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { maskSecrets } from "../security/secrets.js";
import { errorMessage } from "../errors.js";

/** A prompt as it was sent: its full text, and which parts of it were pasted (the editor shows each as one placeholder). */
export interface PromptEntry {
  readonly text: string;
  /** [start, end) offsets into `text`, in order and not overlapping. */
  readonly pasted?: ReadonlyArray<readonly [number, number]>;
}

/** What the interactive session needs of the history: read it once, append each prompt sent. */
export interface PromptHistory {
  /** The newest entries, oldest first. */
  load(): PromptEntry[];
  /** Returns why the entry could not be saved, if it could not. */
  add(entry: PromptEntry): string | undefined;
}

/** What the transcript says when `PromptHistory.add` reports a problem: the prompt was sent, only its history entry is lost. */
export function historyNotSavedNote(problem: string): string {
  return `Prompt history could not be saved: ${problem}`;
}

export interface PromptHistoryLimits {
  /** Entries kept (the newest). */
  entries: number;
  /** Size the file may reach before it is rewritten with the newest entries that fit. */
  bytes: number;
  /** A longer prompt is remembered for the session only: one huge paste would crowd out everything else. */
  entryBytes: number;
}

const PROMPT_HISTORY_LIMITS: PromptHistoryLimits = { entries: 1_000, bytes: 2 * 1024 * 1024, entryBytes: 256 * 1024 };

const StoredEntry = z.object({
  text: z.string(),
  pasted: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])).optional(),
});

/**
 * The prompts typed in one project, kept across restarts in a JSON-lines
 * file readable by the user alone. Secret-looking values are masked before
 * anything is written. The history is a convenience: a damaged line or an
 * unreadable file reads as no history, and a failed write is reported to the
 * caller, never thrown.
 */
export class PromptHistoryStore implements PromptHistory {
  private narrowed = false;

  constructor(
    private readonly path: string,
    private readonly limits: PromptHistoryLimits = PROMPT_HISTORY_LIMITS,
  ) {}

  /** The newest entries, oldest first. */
  load(): PromptEntry[] {
    return newest(this.readAll(), this.limits);
  }

  /** Appends one prompt (masked); returns why it could not be saved, if it could not. */
  add(entry: PromptEntry): string | undefined {
    const line = `${JSON.stringify(maskEntry(entry))}\n`;
    if (Buffer.byteLength(line) > this.limits.entryBytes) return undefined;
    try {
      appendFileSync(this.path, line, { mode: 0o600 });
      if (!this.narrowed) {
        // A file made by hand or by another tool may be wider; prompts can hold anything.
        chmodSync(this.path, 0o600);
        this.narrowed = true;
      }
      if (statSync(this.path).size > this.limits.bytes) this.compact();
      return undefined;
    } catch (error) {
      return errorMessage(error);
    }
  }

  /** Rewrites the file with the newest entries that fit; a prompt another process appends meanwhile may be lost. */
  private compact(): void {
    const kept = newest(this.readAll(), { ...this.limits, bytes: this.limits.bytes / 2 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
    renameSync(temporary, this.path);
  }

  private readAll(): PromptEntry[] {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch {
      return [];
    }
    return text.split("\n").flatMap((line) => {
      if (!line) return [];
      try {
        const parsed = StoredEntry.safeParse(JSON.parse(line));
        return parsed.success && validRanges(parsed.data) ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
  }
}

/** Masks the typed parts and each pasted part on its own, so the pasted ranges still point at the pasted text. */
export function maskEntry(entry: PromptEntry): PromptEntry {
  const pasted = entry.pasted ?? [];
  if (pasted.length === 0) return { text: maskSecrets(entry.text).text };
  let text = "";
  let offset = 0;
  const ranges: Array<[number, number]> = [];
  for (const [start, end] of pasted) {
    text += maskSecrets(entry.text.slice(offset, start)).text;
    const masked = maskSecrets(entry.text.slice(start, end)).text;
    ranges.push([text.length, text.length + masked.length]);
    text += masked;
    offset = end;
  }
  text += maskSecrets(entry.text.slice(offset)).text;
  return { text, pasted: ranges };
}

function newest(entries: PromptEntry[], limits: Pick<PromptHistoryLimits, "entries" | "bytes">): PromptEntry[] {
  const kept: PromptEntry[] = [];
  let bytes = 0;
  for (let index = entries.length - 1; index >= 0 && kept.length < limits.entries; index--) {
    const entry = entries[index] as PromptEntry;
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > limits.bytes) break;
    kept.push(entry);
  }
  return kept.reverse();
}

function validRanges(entry: PromptEntry): boolean {
  let previous = 0;
  for (const [start, end] of entry.pasted ?? []) {
    if (start < previous || end <= start || end > entry.text.length) return false;
    previous = end;
  }
  return true;
}
