import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { topK } from "../../src/search/top-k.js";

describe("topK", () => {
  it("equals sorting everything by (score desc, id asc) and taking the first k and every later one tied with the k-th", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(10_000), { maxLength: 300 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 300, maxLength: 300 }),
        fc.integer({ min: 0, max: 50 }),
        (ids, rawScores, limit) => {
          const scoreOf = (id: number) => rawScores[id % rawScores.length] as number;
          const scores = Float64Array.from({ length: 10_001 }, (_, id) => scoreOf(id));
          const sorted = ids.map((id) => ({ id, score: scoreOf(id) })).sort((a, b) => b.score - a.score || a.id - b.id);
          const cut = sorted[limit - 1]?.score;
          const expected = limit === 0 || cut === undefined ? sorted.slice(0, limit) : sorted.filter((hit) => hit.score >= cut);
          expect(topK(ids, scores, limit)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
