import type { PromptEntry } from "../../app/prompt-history.js";

/**
 * Prompts sent before (earlier sessions' first, then this one's), walked with
 * up/down like a shell's history. What was being typed when the walk started
 * comes back at its end.
 */
export class InputHistory {
  private readonly list: PromptEntry[];
  /** Position in `list` while walking; `list.length` means "the draft". */
  private position: number;
  private draft: PromptEntry = { text: "" };

  constructor(earlier: readonly PromptEntry[] = []) {
    this.list = [...earlier];
    this.position = this.list.length;
  }

  /** Oldest first. */
  get entries(): readonly PromptEntry[] {
    return this.list;
  }

  /** Adds a sent prompt; false when it was blank or repeats the newest entry (neither is kept). */
  push(entry: PromptEntry): boolean {
    const added = entry.text.trim() !== "" && this.list.at(-1)?.text !== entry.text;
    if (added) this.list.push(entry);
    this.position = this.list.length;
    this.draft = { text: "" };
    return added;
  }

  /** The older entry, or undefined at the oldest. `current` is kept as the draft when the walk starts. */
  previous(current: PromptEntry): PromptEntry | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.list.length) this.draft = current;
    this.position--;
    return this.list[this.position];
  }

  /** The newer entry, the draft after the newest, or undefined when not walking. */
  next(): PromptEntry | undefined {
    if (this.position >= this.list.length) return undefined;
    this.position++;
    return this.position === this.list.length ? this.draft : this.list[this.position];
  }
}
