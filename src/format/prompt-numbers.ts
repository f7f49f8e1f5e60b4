/**
 * The user counts a conversation in prompts; the store counts model calls
 * (turns), several to a prompt when tools run. Whatever the screen numbers
 * for the user (`/rewind`, `/refs`, `/retrieve`, `/sessions`) is a prompt
 * number, from 1; the turn stays the store's key.
 */
export class PromptNumbers {
  /** @param promptTurns the turn each prompt began, ascending: prompt n began turn `promptTurns[n - 1]`. */
  constructor(private readonly promptTurns: readonly number[]) {}

  get count(): number {
    return this.promptTurns.length;
  }

  /** The prompt a turn belongs to: the last one that began at or before it (0 for a turn before any prompt). */
  promptOf(turn: number): number {
    let prompt = 0;
    while (prompt < this.promptTurns.length && (this.promptTurns[prompt] as number) <= turn) prompt++;
    return prompt;
  }

  /** The turn prompt `prompt` began (0 for prompt 0, the start); undefined for a prompt the session does not have. */
  turnOf(prompt: number): number | undefined {
    if (prompt === 0) return 0;
    return Number.isInteger(prompt) && prompt > 0 ? this.promptTurns[prompt - 1] : undefined;
  }

  /** "prompt 2", or "prompts 2–4" for a range of turns. */
  describeTurns(fromTurn: number, toTurn: number): string {
    const from = this.promptOf(fromTurn);
    const to = this.promptOf(toTurn);
    return from === to ? `prompt ${from}` : `prompts ${from}–${to}`;
  }
}
