import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextReference } from "../../src/store/content-types.js";
import {
  fitContextShare,
  MIN_SHARE_BUDGET,
  renderContextShare,
  type ContextShareInput,
  type ShareEntry,
} from "../../src/team/context-share.js";
import { estimateTokens } from "../../src/tokens/estimate-tokens.js";

function entry(id: string, lines: number, width = 40, source = `src/${id}.ts:1-${lines}`): ShareEntry {
  const content = `${Array.from({ length: lines }, (_, index) => `${id} line ${index + 1} `.padEnd(width, "x")).join("\n")}\n`;
  return { id, content_type: "code_file", source, content, token_count: estimateTokens(content) };
}

function input(answer: string, sources: ShareEntry[], overrides: Partial<ContextShareInput> = {}): ContextShareInput {
  return {
    request_id: "3f2a9c1e-7b44-4c1a-9d0e-5a6b7c8d9e0f",
    source_agent_id: "librarian-1",
    source_agent_type: "librarian",
    timestamp: Date.UTC(2026, 10, 25, 14, 23),
    duration: 4_200,
    answer: { id: "answer-1", content: answer },
    sources,
    cache_hint: "warm",
    confidence: 0.8,
    completeness: 0.9,
    ...overrides,
  };
}

/** A recording `storeOverflow` that returns a reference as the context manager builds them (8-character id). */
function overflowStore() {
  const calls: ShareEntry[][] = [];
  const store = (entries: ShareEntry[]): ContextReference => {
    calls.push(entries);
    return {
      id: "ab12cd34",
      type: "code_analysis",
      sessionId: "knowledge-session",
      agentId: "librarian-1",
      contentIds: entries.map((item) => item.id),
      summary: "Discussion about auth",
      tokensSaved: entries.reduce((sum, item) => sum + item.token_count, 0),
      turnRange: [3, 3],
      timestamp: Date.UTC(2026, 10, 25, 14, 23),
      topics: ["auth flow", "JWT"],
      entities: [],
      queryHints: [],
    };
  };
  return { calls, store };
}

describe("fitContextShare", () => {
  it("delivers everything whole when it fits: no reference, not truncated, completeness as stated", () => {
    const { calls, store } = overflowStore();
    const sources = [entry("a", 5), entry("b", 5)];
    const response = fitContextShare(input("The token is checked in middleware.", sources), 2_000, estimateTokens, store);
    expect(response.truncated).toBe(false);
    expect(response.references).toEqual([]);
    expect(calls).toEqual([]);
    expect(response.entries.map((item) => item.id)).toEqual(["answer-1", "a", "b"]);
    expect(response.entries[0]).toMatchObject({
      content_type: "agent_message",
      source: "librarian-1",
      content: "The token is checked in middleware.",
    });
    expect(response.entries.slice(1)).toEqual(sources);
    expect(response.completeness).toBeCloseTo(0.9);
    expect(response.total_tokens).toBe(estimateTokens(renderContextShare(response)));
  });

  it("renders the header, the answer, fenced excerpts labelled by source and the marker", () => {
    const { store } = overflowStore();
    const sources = [entry("a", 2, 20), { ...entry("b", 1, 20, "entry b"), content: "has ``` inside" }];
    const response = fitContextShare(input("Answer line.", sources), 2_000, estimateTokens, store);
    expect(renderContextShare(response)).toMatchSnapshot();
    const cut = fitContextShare(input("Answer line.", [entry("a", 60, 20), entry("b", 3, 20)]), 220, estimateTokens, store);
    // The marker's clock is local time.
    expect(renderContextShare(cut).replace(/@ \d\d:\d\d/, "@ hh:mm")).toMatchSnapshot();
  });

  it("keeps whole entries in order, stops at the first that does not fit and stores the rest as one reference", () => {
    const { calls, store } = overflowStore();
    const sources = [entry("a", 10), entry("b", 60), entry("c", 2)];
    const response = fitContextShare(input("Short answer.", sources), 500, estimateTokens, store);
    expect(response.entries.map((item) => item.id)).toEqual(["answer-1", "a"]);
    expect(calls).toEqual([[sources[1], sources[2]]]);
    expect(response.truncated).toBe(true);
    expect(response.references).toEqual([
      expect.objectContaining({
        ref_id: "ab12cd34",
        content_ids: ["b", "c"],
        marker: expect.stringContaining('retrieve_context(ref_id="ab12cd34")'),
      }),
    ]);
    expect(renderContextShare(response)).toContain(response.references[0]?.marker);
    expect(response.total_tokens).toBeLessThanOrEqual(500);
  });

  it("cuts only a first entry larger than the room, at a line boundary, and marks it partial with its new range", () => {
    const { calls, store } = overflowStore();
    const sources = [entry("a", 200), entry("b", 2)];
    const response = fitContextShare(input("Short answer.", sources), 600, estimateTokens, store);
    const cut = response.entries[1];
    expect(cut?.partial).toBe(true);
    expect(cut?.content.endsWith("\n")).toBe(true);
    expect(sources[0]?.content.startsWith(cut?.content ?? "?")).toBe(true);
    const kept = cut?.content.split("\n").length ?? 0;
    expect(cut?.source).toBe(`src/a.ts:1-${kept - 1}`);
    expect(response.entries).toHaveLength(2);
    expect(calls).toEqual([[sources[0], sources[1]]]);
    expect(renderContextShare(response)).toContain("(partial: cut to fit");
  });

  it("does not cut a second entry: it goes whole behind the reference", () => {
    const { calls, store } = overflowStore();
    const sources = [entry("a", 3), entry("b", 200)];
    const response = fitContextShare(input("Short answer.", sources), 600, estimateTokens, store);
    expect(response.entries.map((item) => [item.id, item.partial ?? false])).toEqual([
      ["answer-1", false],
      ["a", false],
    ]);
    expect(calls).toEqual([[sources[1]]]);
  });

  it("clips the answer to 40 % of the budget when there are sources, and puts the whole answer behind the reference", () => {
    const { calls, store } = overflowStore();
    const answer = Array.from({ length: 100 }, (_, index) => `Paragraph ${index} of the answer, explaining things at length.`).join("\n");
    const sources = [entry("a", 100)];
    const response = fitContextShare(input(answer, sources), 1_000, estimateTokens, store);
    const shown = response.entries[0];
    expect(shown?.partial).toBe(true);
    expect(answer.startsWith(shown?.content ?? "?")).toBe(true);
    expect(estimateTokens(shown?.content ?? "")).toBeLessThanOrEqual(400);
    expect(calls[0]?.[0]).toMatchObject({ id: "answer-1", content: answer });
    expect(renderContextShare(response)).toContain("The answer was cut to fit");
    expect(response.total_tokens).toBeLessThanOrEqual(1_000);
  });

  it("gives a lone answer the whole budget, cutting within its line when it is one long line", () => {
    const { calls, store } = overflowStore();
    const answer = "word ".repeat(2_000);
    const response = fitContextShare(input(answer, []), 800, estimateTokens, store);
    expect(response.entries[0]?.partial).toBe(true);
    expect(estimateTokens(response.entries[0]?.content ?? "")).toBeGreaterThan(500);
    expect(calls).toHaveLength(1);
    expect(response.total_tokens).toBeLessThanOrEqual(800);
  });

  it("clamps confidence to [0, 1], keeps null as not stated, and scales completeness by the share delivered", () => {
    const { store } = overflowStore();
    const sources = [entry("a", 10), entry("b", 100)];
    const stated = fitContextShare(input("A.", sources, { confidence: 1.7, completeness: 1 }), 400, estimateTokens, store);
    expect(stated.confidence).toBe(1);
    expect(stated.completeness).toBeGreaterThan(0);
    expect(stated.completeness).toBeLessThan(0.5);
    const unstated = fitContextShare(input("A.", sources, { confidence: null, completeness: null }), 400, estimateTokens, store);
    expect(unstated.confidence).toBeNull();
    expect(unstated.completeness).toBeNull();
    expect(renderContextShare(unstated)).toContain("confidence (agent's estimate): not stated");
    expect(fitContextShare(input("A.", [], { confidence: -3 }), 400, estimateTokens, store).confidence).toBe(0);
  });

  it("raises a budget below the floor to it", () => {
    const { store } = overflowStore();
    const response = fitContextShare(input("A.", [entry("a", 200)]), 10, estimateTokens, store);
    expect(response.total_tokens).toBeLessThanOrEqual(MIN_SHARE_BUDGET);
    expect(response.total_tokens).toBeGreaterThan(10);
  });
});

describe("fitContextShare properties", () => {
  const counters = [estimateTokens, (text: string) => Math.ceil(text.length / 3.3)];

  it("stays within the budget, is truncated exactly when an offered entry is missing or cut, and hands every one of those to the reference", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ lines: fc.integer({ min: 1, max: 120 }), width: fc.integer({ min: 1, max: 160 }) }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: MIN_SHARE_BUDGET, max: 8_000 }),
        fc.constantFrom(0, 1),
        fc.constantFrom("\n", " "),
        (shapes, answerLines, budget, counter, joiner) => {
          const countTokens = counters[counter] as (text: string) => number;
          const sources = shapes.map((shape, index) => entry(`e${index}`, shape.lines, shape.width));
          const answer = Array.from({ length: answerLines }, (_, index) => `answer line ${index} `.repeat(4)).join(joiner);
          const { calls, store } = overflowStore();
          const response = fitContextShare(input(answer, sources), budget, countTokens, store);

          expect(response.total_tokens).toBeLessThanOrEqual(budget);
          expect(countTokens(renderContextShare(response))).toBe(response.total_tokens);

          const offered = [{ id: "answer-1", content: answer }, ...sources];
          const deliveredWhole = (item: { id: string; content: string }) =>
            response.entries.some((shown) => shown.id === item.id && !shown.partial && shown.content === item.content);
          const notWhole = offered.filter((item) => !deliveredWhole(item));
          expect(response.truncated).toBe(notWhole.length > 0);
          expect(calls.length).toBe(notWhole.length > 0 ? 1 : 0);
          expect((calls[0] ?? []).map((item) => [item.id, item.content])).toEqual(notWhole.map((item) => [item.id, item.content]));
          // Order kept; only the first source may be partial.
          expect(response.entries.map((item) => item.id)).toEqual(offered.map((item) => item.id).slice(0, response.entries.length));
          response.entries.slice(2).forEach((item) => {
            expect(item.partial).toBeFalsy();
          });
          response.entries.forEach((item, index) => {
            expect(offered[index]?.content.startsWith(item.content)).toBe(true);
          });
          const cutSource = response.entries[1];
          if (cutSource?.partial) expect(cutSource.content.endsWith("\n")).toBe(true);
          if (response.truncated && sources.length > 0)
            expect(countTokens(response.entries[0]?.content ?? "")).toBeLessThanOrEqual(budget * 0.4);
        },
      ),
      { numRuns: 200 },
    );
  });
});
