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

describe("reciprocalRankFusion with a signal that only corroborates", () => {
  const hits = (...ids: string[]) => ids.map((id, index) => ({ id, score: 10 - index }));

  it("cannot push out the independent signal's top hit with items only it found", () => {
    const fused = reciprocalRankFusion([
      { signal: "fulltext", hits: hits("a", "b") },
      { signal: "vector", hits: hits("noise1", "noise2", "noise3"), corroboratesOnly: true },
    ]);
    expect(fused.map((hit) => hit.id)).toEqual(["a", "b"]);
    expect(fused[0]?.score).toBeCloseTo(1 / 61, 12);
  });

  it("raises an item both signals found above one only the independent signal found", () => {
    const fused = reciprocalRankFusion([
      { signal: "fulltext", hits: hits("a", "b", "c") },
      { signal: "vector", hits: hits("noise", "c"), corroboratesOnly: true },
    ]);
    expect(fused.map((hit) => hit.id)).toEqual(["c", "a", "b"]);
    // Its vote is its rank among the items it may vote for (c is the first), its evidence its own rank.
    expect(fused[0]?.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[0]?.signals).toEqual({ fulltext: { rank: 3, score: 8 }, vector: { rank: 2, score: 9 } });
  });

  it("re-orders by agreement what equal-weight fusion would have filled with its own finds", () => {
    const lists = (corroboratesOnly: boolean) => [
      { signal: "fulltext", hits: hits("a", "b", "c") },
      { signal: "vector", hits: hits("x", "y", "b"), corroboratesOnly },
    ];
    expect(reciprocalRankFusion(lists(false)).map((hit) => hit.id)).toEqual(["b", "a", "x", "y", "c"]);
    expect(reciprocalRankFusion(lists(true)).map((hit) => hit.id)).toEqual(["b", "a", "c"]);
  });

  it("ranks on its own when no independent signal found anything", () => {
    const alone = reciprocalRankFusion([{ signal: "vector", hits: hits("x", "y"), corroboratesOnly: true }]);
    expect(alone.map((hit) => [hit.id, hit.score])).toEqual([
      ["x", 1 / 61],
      ["y", 1 / 62],
    ]);
    const afterAnEmptyOne = reciprocalRankFusion([
      { signal: "fulltext", hits: [] },
      { signal: "vector", hits: hits("x", "y"), corroboratesOnly: true },
    ]);
    expect(afterAnEmptyOne.map((hit) => hit.id)).toEqual(["x", "y"]);
  });

  it("keeps its weight", () => {
    const [top] = reciprocalRankFusion([
      { signal: "fulltext", hits: hits("a") },
      { signal: "vector", hits: hits("a"), corroboratesOnly: true, weight: 0.5 },
    ]);
    expect(top?.score).toBeCloseTo(1 / 61 + 0.5 / 61, 12);
  });
});
