import { describe, expect, it } from "vitest";
import { ContextDiscovery } from "../../src/learning/context-discovery.js";
import { ContextWeightBias } from "../../src/learning/context-weight-bias.js";

const unit = (dims: number, axis: number) => Array.from({ length: dims }, (_, i) => (i === axis ? 1 : 0));

describe("ContextDiscovery", () => {
  it("creates a context for the first prompt, joins a similar one (cosine ≥ 0.7) and moves the centroid by 0.1", () => {
    const discovery = new ContextDiscovery();
    expect(discovery.learn("fix the parser", [1, 0, 0])).toBe("ctx_0");
    expect(discovery.learn("parser bug again", [0.8, 0.6, 0])).toBe("ctx_0"); // cosine 0.8
    const [context] = discovery.list();
    expect(context?.count).toBe(2);
    expect(context?.centroid).toEqual([0.9 + 0.08, 0.06, 0].map((x) => expect.closeTo(x, 12)));
    expect(discovery.learn("write the docs", [0.6, 0.8, 0])).toBe("ctx_1"); // cosine to the centroid < 0.7
  });

  it("classifies without learning: the id that learn will give, the contexts untouched", () => {
    const discovery = new ContextDiscovery();
    expect(discovery.classify("a", [1, 0])).toBe("ctx_0");
    expect(discovery.list()).toHaveLength(0);
    discovery.learn("a", [1, 0]);
    const before = JSON.stringify(discovery);
    expect(discovery.classify("b", [0.9, 0.1])).toBe("ctx_0");
    expect(discovery.classify("c", [0, 1])).toBe("ctx_1");
    expect(JSON.stringify(discovery)).toBe(before);
    expect(discovery.learn("c", [0, 1])).toBe("ctx_1");
  });

  it("answers a prompt seen before from the cache, by its normalised text, whatever the embedding", () => {
    const discovery = new ContextDiscovery();
    discovery.learn("Fix the parser", [1, 0]);
    expect(discovery.learn("  fix THE parser ", [0, 1])).toBe("ctx_0");
    expect(discovery.list()).toHaveLength(1);
  });

  it("stops at maxContexts and then sends a far prompt to the nearest context", () => {
    const discovery = new ContextDiscovery({ maxContexts: 3 });
    for (let axis = 0; axis < 3; axis++) expect(discovery.learn(`q${axis}`, unit(5, axis))).toBe(`ctx_${axis}`);
    expect(discovery.learn("q3", [0.1, 0.3, 0, 0.9, 0])).toBe("ctx_1");
    expect(discovery.learn("q4", [-1, 0, 0, 0, 0])).toMatch(/^ctx_[0-2]$/); // nothing is near: still a real context
    expect(discovery.list()).toHaveLength(3);
  });

  it("keeps the cache bounded, forgetting the least recently seen prompt", () => {
    const discovery = new ContextDiscovery({ maxCachedQueries: 2 });
    discovery.learn("a", [1, 0]);
    discovery.learn("b", [0, 1]);
    discovery.learn("a", [1, 0]); // touches a
    discovery.learn("c", [1, 0.1]);
    expect(discovery.toJSON().cache.map(([query]) => query)).toEqual(["a", "c"]);
  });

  it("refuses an embedding of another dimension instead of comparing garbage", () => {
    const discovery = new ContextDiscovery();
    discovery.learn("a", [1, 0, 0]);
    expect(() => discovery.learn("b", [1, 0])).toThrow(/dimensions/);
  });

  it("keeps a satisfaction baseline per context: the first value, then an exponential mean (0.1)", () => {
    const discovery = new ContextDiscovery();
    const id = discovery.learn("a", [1, 0]);
    expect(discovery.baseline(id)).toBeUndefined();
    discovery.observeSatisfaction(id, 0.5);
    expect(discovery.baseline(id)).toBe(0.5);
    discovery.observeSatisfaction(id, -0.5);
    expect(discovery.baseline(id)).toBeCloseTo(0.4, 12);
  });

  it("round-trips through JSON and names the damage it refuses", () => {
    const discovery = new ContextDiscovery({ maxContexts: 4 });
    discovery.learn("a", [1, 0]);
    discovery.learn("b", [0, 1]);
    discovery.observeSatisfaction("ctx_1", 0.3);
    discovery.bias("ctx_0")?.update(-1, { searchedAfter: ["x", "y", "z"], prefetchedKeys: [], usedKeys: [] });
    const copy = ContextDiscovery.fromJSON(JSON.parse(JSON.stringify(discovery)));
    expect(copy.toJSON()).toEqual(discovery.toJSON());
    expect(copy.learn("a", [0, 1])).toBe("ctx_0");
    const damaged = discovery.toJSON();
    damaged.contexts[1]!.centroid = [1];
    expect(() => ContextDiscovery.fromJSON(damaged)).toThrow(/dimensions/);
    expect(() => ContextDiscovery.fromJSON({ ...discovery.toJSON(), cache: [["a", "ctx_9"]] })).toThrow(/cache/);
    expect(() => ContextDiscovery.fromJSON({})).toThrow(/maxContexts/);
  });
});

describe("ContextWeightBias", () => {
  const starved = { searchedAfter: ["a", "b", "c"], prefetchedKeys: [], usedKeys: [] };
  const noisy = { searchedAfter: [], prefetchedKeys: ["a", "b", "c", "d", "e"], usedKeys: ["a"] };

  it("adjusts every weight but task success by its multiplier", () => {
    const bias = ContextWeightBias.fromJSON({ relevanceMult: 2, struggleMult: 0.5, wasteMult: 1.5, observationCount: 3 });
    expect(bias.adjust({ taskSuccess: 0.8, relevanceBonus: 0.3, strugglePenalty: 0.4, wastePenalty: 0.1 })).toEqual({
      taskSuccess: 0.8,
      relevanceBonus: 0.6,
      strugglePenalty: 0.2,
      wastePenalty: expect.closeTo(0.15, 12),
    });
  });

  it("learns the bias: a bad outcome with searches raises struggle, with noise raises waste; a good one brings them back down", () => {
    const bias = new ContextWeightBias();
    bias.update(-0.3, starved);
    bias.update(-0.3, noisy);
    expect(bias.struggleMult).toBeCloseTo(1.05, 12);
    expect(bias.wasteMult).toBeCloseTo(1.05, 12);
    bias.update(-0.3, { ...noisy, prefetchedKeys: ["a", "b", "c", "d"] }); // 4 > 1 + 3 is false
    expect(bias.wasteMult).toBeCloseTo(1.05, 12);
    // With only those rules the multipliers only grew; a good outcome despite the same signs takes the step back.
    bias.update(0.4, starved);
    bias.update(0.4, noisy);
    expect([bias.struggleMult, bias.wasteMult, bias.observationCount]).toEqual([expect.closeTo(1, 12), expect.closeTo(1, 12), 5]);
  });

  it("clamps the multipliers to [0.5, 2]", () => {
    const bias = new ContextWeightBias();
    for (let i = 0; i < 100; i++) bias.update(-1, starved);
    expect(bias.struggleMult).toBe(2);
    expect(() => ContextWeightBias.fromJSON({ relevanceMult: 3, struggleMult: 1, wasteMult: 1, observationCount: 0 })).toThrow(
      /relevanceMult/,
    );
  });
});
