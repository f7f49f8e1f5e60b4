import { describe, expect, it } from "vitest";
import { PromptNumbers } from "../../src/format/prompt-numbers.js";

describe("PromptNumbers", () => {
  // Prompt 1 took turns 1–2 (a tool call), prompt 2 turns 3–5, prompt 3 turn 6.
  const numbers = new PromptNumbers([1, 3, 6]);

  it("numbers a turn by the prompt it belongs to", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 9].map((turn) => numbers.promptOf(turn))).toEqual([0, 1, 1, 2, 2, 2, 3, 3]);
  });

  it("gives the turn a prompt began, 0 for the start, and nothing for a prompt the session does not have", () => {
    expect([0, 1, 2, 3].map((prompt) => numbers.turnOf(prompt))).toEqual([0, 1, 3, 6]);
    expect(numbers.turnOf(4)).toBeUndefined();
    expect(numbers.turnOf(-1)).toBeUndefined();
    expect(numbers.count).toBe(3);
  });

  it("describes a range of turns in prompts", () => {
    expect(numbers.describeTurns(3, 5)).toBe("prompt 2");
    expect(numbers.describeTurns(2, 6)).toBe("prompts 1–3");
  });

  it("round-trips: the turn a prompt began belongs to that prompt", () => {
    for (let prompt = 1; prompt <= numbers.count; prompt++) expect(numbers.promptOf(numbers.turnOf(prompt) as number)).toBe(prompt);
  });
});
