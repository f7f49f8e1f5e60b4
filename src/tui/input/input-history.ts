/**
 * Prompts sent in this session, walked with up/down like a shell's history.
 * What was being typed when the walk started comes back at its end.
 */
export class InputHistory {
  private readonly entries: string[] = [];
  /** Position in `entries` while walking; `entries.length` means "the draft". */
  private position = 0;
  private draft = "";

  push(entry: string): void {
    if (entry.trim() && this.entries.at(-1) !== entry) this.entries.push(entry);
    this.position = this.entries.length;
    this.draft = "";
  }

  /** The older entry, or undefined at the oldest. `current` is kept as the draft when the walk starts. */
  previous(current: string): string | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.entries.length) this.draft = current;
    this.position--;
    return this.entries[this.position];
  }

  /** The newer entry, the draft after the newest, or undefined when not walking. */
  next(): string | undefined {
    if (this.position >= this.entries.length) return undefined;
    this.position++;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }
}
