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

  it("past its budget keeps the sentences that tell most, not the first ones, and stays within the budget", () => {
    const chatter = Array.from({ length: 12 }, () => "Melanie: that is so great, thanks Caroline!");
    const messages = [
      ...chatter.slice(0, 6).map((text) => ({ role: "user" as const, text })),
      { role: "assistant" as const, text: "Melanie: We adopted Oscar, a guinea pig, from the Maple Street shelter in 2021." },
      ...chatter.slice(6).map((text) => ({ role: "user" as const, text })),
    ];
    const text = extractiveObservation(messages, 60);
    expect(text.split("\n").reduce((sum, line) => sum + estimateTokens(line) + 1, 0)).toBeLessThanOrEqual(60);
    expect(text.split("\n")[0]).toBe("- User: Melanie: that is so great, thanks Caroline!");
    expect(text).toContain("- Assistant: Melanie: We adopted Oscar, a guinea pig, from the Maple Street shelter in 2021.");
    expect(text.split("\n").length).toBeLessThan(messages.length);
  });
});

describe("the extractive reflector past its budget", () => {
  it("keeps in each note its most salient lines, in order", () => {
    const chatter = (note: number) => Array.from({ length: 8 }, (_, line) => `- User: note ${note} says thanks, that is great ${line}.`);
    const notes = [0, 1].map((note) =>
      [
        ...chatter(note).slice(0, 4),
        `- Assistant: The ledger migration for tenant ${note} moved to Postgres 16 on Friday.`,
        ...chatter(note).slice(4),
      ].join("\n"),
    );
    const kept = extractiveReflection(notes, 60).split("\n");
    expect(kept).toContain("- Assistant: The ledger migration for tenant 0 moved to Postgres 16 on Friday.");
    expect(kept).toContain("- Assistant: The ledger migration for tenant 1 moved to Postgres 16 on Friday.");
    expect(kept.indexOf("- Assistant: The ledger migration for tenant 0 moved to Postgres 16 on Friday.")).toBeLessThan(
      kept.indexOf("- Assistant: The ledger migration for tenant 1 moved to Postgres 16 on Friday."),
    );
    expect(kept.reduce((sum, line) => sum + estimateTokens(line) + 1, 0)).toBeLessThanOrEqual(60);
  });
});
