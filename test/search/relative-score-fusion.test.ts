import { describe, expect, it } from "vitest";
import { relativeScoreFusion } from "../../src/search/relative-score-fusion.js";
import { reciprocalRankFusion, type RankedList } from "../../src/search/rrf.js";

const ids = <Id>(fused: ReadonlyArray<{ id: Id }>) => fused.map((hit) => hit.id);

describe("relativeScoreFusion", () => {
  it("rescales each signal's scores to 0..1 over its items, sums them, and keeps every signal's rank and score", () => {
    const fused = relativeScoreFusion([
      {
        signal: "fulltext",
        hits: [
          { id: "a", score: 9 },
          { id: "b", score: 5 },
          { id: "c", score: 1 },
        ],
      },
      {
        signal: "vector",
        hits: [
          { id: "b", score: 0.9 },
          { id: "d", score: 0.8 },
          { id: "a", score: 0.4 },
        ],
      },
    ]);
    // a: 1 + 0, b: 0.5 + 1, d: 0 + 0.8, c: 0 + 0.
    expect(ids(fused)).toEqual(["b", "a", "d", "c"]);
    expect(fused.map((hit) => hit.score)).toEqual([1.5, 1, expect.closeTo(0.8, 12), 0]);
    expect(fused[0]?.signals).toEqual({ fulltext: { rank: 2, score: 5 }, vector: { rank: 1, score: 0.9 } });
  });

  it("keeps a clear lead that a weak signal's mild disagreement would undo under rank fusion", () => {
    // Full text is sure of a; the vectors put it third among similarities that barely differ.
    const lists: Array<RankedList<string>> = [
      {
        signal: "fulltext",
        hits: [
          { id: "a", score: 30 },
          { id: "b", score: 12 },
          { id: "c", score: 11 },
          { id: "d", score: 10 },
        ],
      },
      {
        signal: "vector",
        corroboratesOnly: true,
        hits: [
          { id: "b", score: 0.52 },
          { id: "c", score: 0.51 },
          { id: "a", score: 0.5 },
          { id: "d", score: 0.3 },
        ],
      },
    ];
    expect(ids(reciprocalRankFusion(lists))[0]).toBe("b");
    expect(ids(relativeScoreFusion(lists))).toEqual(["a", "b", "c", "d"]);
  });

  it("leaves the other signal's order when a signal cannot tell its items apart", () => {
    const fused = relativeScoreFusion([
      {
        signal: "fulltext",
        hits: [
          { id: 3, score: 4 },
          { id: 1, score: 2 },
          { id: 2, score: 1 },
        ],
      },
      {
        signal: "vector",
        hits: [
          { id: 2, score: 0.7 },
          { id: 1, score: 0.7 },
          { id: 3, score: 0.7 },
        ],
      },
    ]);
    expect(ids(fused)).toEqual([3, 1, 2]);
  });

  it("compares the weighted score when a hit has one, and keeps its own score as evidence", () => {
    const fused = relativeScoreFusion([
      {
        signal: "fulltext",
        hits: [
          { id: "source", score: 7, weightedScore: 7 },
          { id: "changelog", score: 10, weightedScore: 5 },
          { id: "docs", score: 6, weightedScore: 3 },
        ],
      },
    ]);
    expect(fused.map((hit) => [hit.id, hit.score])).toEqual([
      ["source", 1],
      ["changelog", 0.5],
      ["docs", 0],
    ]);
    expect(fused[1]?.signals.fulltext).toEqual({ rank: 2, score: 10 });
  });

  it("lets a corroborating signal vote only for what the others found, rescaled over those, or rank alone when they found nothing", () => {
    const vector = {
      signal: "vector",
      corroboratesOnly: true,
      hits: [
        { id: "stranger", score: 0.99 },
        { id: "b", score: 0.6 },
        { id: "a", score: 0.2 },
        { id: "c", score: 0.1 },
      ],
    };
    const fused = relativeScoreFusion([
      {
        signal: "fulltext",
        hits: [
          { id: "a", score: 2 },
          { id: "b", score: 1.4 },
          { id: "c", score: 1 },
        ],
      },
      vector,
    ]);
    // Full text gives a 1, b 0.4. Over a, b and c the vectors give b 1 and a 0.2: b 1.4 against a 1.2.
    // Rescaled with the stranger's 0.99 on top, b's vote would shrink to 0.56 and a would stay first.
    expect(ids(fused)).toEqual(["b", "a", "c"]);
    expect(fused[0]?.signals.vector).toEqual({ rank: 2, score: 0.6 });
    expect(ids(relativeScoreFusion([{ signal: "fulltext", hits: [] }, vector]))).toEqual(["stranger", "b", "a", "c"]);
  });

  it("multiplies each signal's share by its weight", () => {
    const lists = (weight: number): Array<RankedList<string>> => [
      {
        signal: "fulltext",
        hits: [
          { id: "x", score: 2 },
          { id: "y", score: 1 },
        ],
      },
      {
        signal: "vector",
        weight,
        hits: [
          { id: "y", score: 0.9 },
          { id: "x", score: 0.1 },
        ],
      },
    ];
    expect(ids(relativeScoreFusion(lists(0)))).toEqual(["x", "y"]);
    expect(ids(relativeScoreFusion(lists(2)))).toEqual(["y", "x"]);
  });

  it("counts an item once per signal, at its best rank, and gives a lone item the whole share", () => {
    const fused = relativeScoreFusion([
      {
        signal: "s",
        hits: [
          { id: 1, score: 3 },
          { id: 1, score: 2 },
          { id: 2, score: 1 },
        ],
      },
    ]);
    expect(fused.map((hit) => [hit.id, hit.signals.s?.rank, hit.score])).toEqual([
      [1, 1, 1],
      [2, 3, 0],
    ]);
    expect(relativeScoreFusion([{ signal: "s", hits: [{ id: "only", score: 0.2 }] }])[0]?.score).toBe(1);
  });
});
