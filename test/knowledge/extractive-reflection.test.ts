import { describe, expect, it } from "vitest";
import { extractiveObservation, extractiveReflection } from "../../src/knowledge/observer.js";
import { estimateTokens } from "../../src/tokens/estimate-tokens.js";

describe("the extractive reflector", () => {
  it("keeps every distinct line when they fit, in order", () => {
    expect(
      extractiveReflection(
        [
          "- User: a fact about the parser.\n- Assistant: it was fixed.",
          "- User: a fact about the parser.\n- User: the deploy is on Friday.",
        ],
        1_000,
      ),
    ).toBe("- User: a fact about the parser.\n- Assistant: it was fixed.\n- User: the deploy is on Friday.");
  });

  it("past its budget drops lines evenly across the notes, never a whole stretch, and stays within the budget", () => {
    const notes = Array.from({ length: 10 }, (_, note) =>
      Array.from({ length: 20 }, (_, line) => `- User: note ${note} line ${line} says something worth keeping.`).join("\n"),
    );
    const kept = extractiveReflection(notes, 600).split("\n");
    expect(kept.reduce((sum, line) => sum + estimateTokens(line) + 1, 0)).toBeLessThanOrEqual(600);
    // Every note is represented, the first and the last included.
    for (let note = 0; note < 10; note++) expect(kept.some((line) => line.includes(`note ${note} `))).toBe(true);
  });
});

describe("the extractive observer", () => {
  it("keeps sentences that name someone or state a past fact, and drops small talk", () => {
    const text = extractiveObservation(
      [
        { role: "user", text: "Hey there! Yesterday Melanie went to the pottery class. The class was fun for everyone." },
        { role: "assistant", text: "Nice to hear. That sounds lovely, thanks." },
      ],
      500,
    );
    expect(text).toContain("- User: Yesterday Melanie went to the pottery class.");
    expect(text).toContain("- User: The class was fun for everyone.");
    expect(text).not.toContain("Nice to hear");
  });
});
