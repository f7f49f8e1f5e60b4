import { describe, expect, it } from "vitest";
import { seededUniform } from "../../src/stats/random-draws.js";
import { mean, outcomeReward, priorFrom, rankByDraw, routingBlock, UNIFORM, updated } from "../../src/team/agent-affinity.js";

describe("agent affinities", () => {
  it("update in closed form: decay, then α += r and β += 1 − r", () => {
    expect(updated({ alpha: 3, beta: 1, observations: 4 }, 0.5, 0.9)).toEqual({
      alpha: 3 * 0.9 + 0.5,
      beta: 1 * 0.9 + 0.5,
      observations: 5,
    });
    expect(updated(UNIFORM, 2)).toMatchObject({ alpha: 0.995 + 1, beta: 0.995 });
    expect(updated(UNIFORM, -1)).toMatchObject({ alpha: 0.995, beta: 0.995 + 1 });
  });

  it("a context an agent has no record in starts from its record over all contexts, scaled to 2 pseudo-observations", () => {
    const prior = priorFrom({ alpha: 9, beta: 3, observations: 10 });
    expect(prior.alpha + prior.beta).toBeCloseTo(2, 12);
    expect(mean(prior)).toBeCloseTo(0.75, 12);
    expect(priorFrom(undefined)).toEqual(UNIFORM);
  });

  it("scores outcomes 1, 0.5 and 0", () => {
    expect(outcomeReward({ completed: true, followUp: false, correction: false })).toBe(1);
    expect(outcomeReward({ completed: true, followUp: true, correction: false })).toBe(0.5);
    expect(outcomeReward({ completed: true, followUp: true, correction: true })).toBe(0);
    expect(outcomeReward({ completed: false, followUp: false, correction: false })).toBe(0);
  });

  it("ranks by Thompson draws: over many draws an agent with a better record comes first far more often", () => {
    const random = seededUniform(11);
    let firsts = 0;
    for (let index = 0; index < 1_000; index++) {
      const ranked = rankByDraw(
        [
          { agent: "good", affinity: { alpha: 18, beta: 4, observations: 20 } },
          { agent: "poor", affinity: { alpha: 4, beta: 18, observations: 20 } },
        ],
        random,
      );
      if (ranked[0]?.agent === "good") firsts++;
    }
    expect(firsts).toBeGreaterThan(980);
  });

  it("keeps the routing block within about 300 tokens however many agents there are", () => {
    const ranked = Array.from({ length: 200 }, (_, index) => ({
      agent: `custom:agent-number-${index}`,
      mean: 0.5,
      observations: index,
      draw: 0.5,
    }));
    const block = routingBlock(ranked, "all");
    expect(block.length).toBeLessThanOrEqual(1_200);
    expect(block.split("\n")[1]).toBe("1. custom:agent-number-0: affinity 0.50, n = 0");
  });
});
