import { betaSample, type Uniform } from "../stats/random-draws.js";

/**
 * The guide's affinities: a Beta per (agent,
 * prompt context) learned from how routed prompts went. Pure: the store
 * keeps the numbers, this module says what they mean.
 */

export interface Affinity {
  alpha: number;
  beta: number;
  observations: number;
}

/** Each update first shrinks what is known, so old outcomes fade (by 0.995 each time). */
const AFFINITY_DECAY = 0.995;
/** How much an agent's all-context record counts as the prior of a context it has not been tried in. */
const PRIOR_PSEUDO_OBSERVATIONS = 2;
/** Before any outcome at all: uniform. */
export const UNIFORM: Affinity = { alpha: 1, beta: 1, observations: 0 };

/**
 * The prior of an agent in a context it has no record in: its record over
 * all contexts, scaled to `PRIOR_PSEUDO_OBSERVATIONS`, or uniform.
 */
export function priorFrom(allContexts: Affinity | undefined): Affinity {
  if (!allContexts || allContexts.alpha + allContexts.beta <= 0) return UNIFORM;
  const scale = PRIOR_PSEUDO_OBSERVATIONS / (allContexts.alpha + allContexts.beta);
  return { alpha: allContexts.alpha * scale, beta: allContexts.beta * scale, observations: 0 };
}

/** α += r, β += 1 − r, after the decay. */
export function updated(affinity: Affinity, reward: number, decay = AFFINITY_DECAY): Affinity {
  const r = Math.min(1, Math.max(0, reward));
  return { alpha: affinity.alpha * decay + r, beta: affinity.beta * decay + (1 - r), observations: affinity.observations + 1 };
}

export function mean(affinity: Affinity): number {
  return affinity.alpha / (affinity.alpha + affinity.beta);
}

/** What a routed prompt's outcome is worth: completed and left alone 1, completed with a follow-up 0.5, failed or corrected 0. */
export function outcomeReward(outcome: { completed: boolean; followUp: boolean; correction: boolean }): number {
  if (!outcome.completed || outcome.correction) return 0;
  return outcome.followUp ? 0.5 : 1;
}

export interface RankedAgent {
  agent: string;
  mean: number;
  observations: number;
  draw: number;
}

/** The candidates ranked by one Thompson draw each (best first): what the routing block shows the guide. */
export function rankByDraw(candidates: ReadonlyArray<{ agent: string; affinity: Affinity }>, random: Uniform): RankedAgent[] {
  return candidates
    .map(({ agent, affinity }) => ({
      agent,
      mean: mean(affinity),
      observations: affinity.observations,
      draw: betaSample(affinity.alpha, affinity.beta, random),
    }))
    .sort((a, b) => b.draw - a.draw);
}

/** At most this many characters (about 300 tokens). */
const MAX_BLOCK_CHARS = 1_200;

/** The `[ROUTING]` block put before the guide's prompt: each candidate's affinity and the draw's order. */
export function routingBlock(ranked: readonly RankedAgent[], contextId: string): string {
  const lines = [
    `[ROUTING · context ${contextId} · agents ranked by a draw from their affinity (mean of past outcomes, n = outcomes seen)]`,
  ];
  for (const [index, each] of ranked.entries()) {
    const line = `${index + 1}. ${each.agent}: affinity ${each.mean.toFixed(2)}, n = ${each.observations}`;
    if (lines.join("\n").length + line.length + 1 > MAX_BLOCK_CHARS) break;
    lines.push(line);
  }
  return lines.join("\n");
}
