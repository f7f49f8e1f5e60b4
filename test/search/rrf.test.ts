import { describe, expect, it } from "vitest";
import { reciprocalRankFusion } from "../../src/search/rrf.js";

describe("reciprocalRankFusion", () => {
  it("scores each item 1/(k + rank) per signal and keeps every signal's rank and score", () => {
    const fused = reciprocalRankFusion(
      [
        {
          signal: "fulltext",
          hits: [
            { id: "a", score: 9 },
            { id: "b", score: 5 },
          ],
        },
        {
          signal: "vector",
          hits: [
            { id: "b", score: 0.9 },
            { id: "c", score: 0.8 },
          ],
        },
      ],
      60,
    );
    expect(fused.map((hit) => hit.id)).toEqual(["b", "a", "c"]);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[0]?.signals).toEqual({ fulltext: { rank: 2, score: 5 }, vector: { rank: 1, score: 0.9 } });
    expect(fused[1]?.score).toBeCloseTo(1 / 61, 12);
    expect(fused[2]?.signals).toEqual({ vector: { rank: 2, score: 0.8 } });
  });

  it("defaults to k = 60", () => {
    const [hit] = reciprocalRankFusion([{ signal: "s", hits: [{ id: 1, score: 1 }] }]);
    expect(hit?.score).toBeCloseTo(1 / 61, 12);
  });

  it("counts an item once per signal, at its best rank", () => {
    const fused = reciprocalRankFusion(
      [
        {
          signal: "s",
          hits: [
            { id: 1, score: 3 },
            { id: 1, score: 2 },
            { id: 2, score: 1 },
          ],
        },
      ],
      60,
    );
    expect(fused.map((hit) => [hit.id, hit.signals.s?.rank])).toEqual([
      [1, 1],
      [2, 3],
    ]);
  });

  it("applies signal weights", () => {
    const fused = reciprocalRankFusion(
      [
        { signal: "strong", hits: [{ id: "x", score: 1 }] },
        { signal: "weak", hits: [{ id: "y", score: 1 }], weight: 0.5 },
      ],
      60,
    );
    expect(fused.map((hit) => hit.id)).toEqual(["x", "y"]);
    expect(fused[1]?.score).toBeCloseTo(0.5 / 61, 12);
  });

  it("breaks ties by first appearance and handles empty input", () => {
    const fused = reciprocalRankFusion([
      { signal: "a", hits: [{ id: "p", score: 1 }] },
      { signal: "b", hits: [{ id: "q", score: 1 }] },
    ]);
    expect(fused.map((hit) => hit.id)).toEqual(["p", "q"]);
    expect(reciprocalRankFusion([])).toEqual([]);
  });

  it("rejects a non-positive k", () => {
    expect(() => reciprocalRankFusion([], 0)).toThrow(RangeError);
  });
});
