import { betaSample, normalSample, type Uniform } from "../stats/random-draws.js";
import { injectedUnder, satisfactionWithInjected } from "./paired-advantage.js";
import { type EpisodeObservation, inferSatisfaction, type RewardWeights } from "./satisfaction.js";

/**
 * Whether a prompt gets prefetched context at all: "inject" puts in what the
 * learned thresholds select, "nothing" puts nothing in front of the model
 * (the prefetch still searches and records its candidates, so the episode
 * can tell what injecting would have done).
 */
export type InjectionArm = "inject" | "nothing";

/**
 * How much a belief keeps of its past per episode: about the last 50
 * episodes count, so a user who changes is followed within tens of
 * episodes, not hundreds.
 */
const MEMORY = 0.98;
/**
 * The prior on what injecting nothing gains per episode: slightly below
 * zero, so that without evidence the arm is the priors' behaviour, and
 * within a few hundredths, the size of what one excerpt can gain or waste.
 */
const GAIN_PRIOR_MEAN = -0.005;
const GAIN_PRIOR_SD = 0.03;
/** The spread of one episode's paired gain is never taken as smaller than this (a few identical episodes are not certainty). */
const GAIN_SD_FLOOR = 0.01;
/** Trouble (a correction, the same question asked again) before any evidence: one episode in twenty, as likely with injection as without. */
const TROUBLE_PRIOR: readonly [number, number] = [0.25, 4.75];
/** What trouble costs in satisfaction until an episode has shown it (a correction's cost at the prior weights). */
const TROUBLE_COST_PRIOR = 0.5;
const RATE_MEMORY = 0.05;
/** A search after the prefetch that ends in a hedged answer, before any evidence: one in twenty, so that without evidence the pairing prices a needed item left out as it always did, at about one search. */
const STRUGGLE_PRIOR: readonly [number, number] = [0.25, 4.75];
/** What a hedged answer costs until one has shown it: the hedge, the follow-up it draws, the searches past the first. */
const STRUGGLE_COST_PRIOR = 0.5;

export interface InjectionArmsJSON {
  /** The paired gain of injecting nothing: decayed weight, mean and mean square. */
  gain: { weight: number; mean: number; meanSquare: number };
  /** Trouble after an episode that injected something, and after one that injected nothing: Beta counts (decayed). */
  troubleWithInjection: [number, number];
  troubleWithout: [number, number];
  /** What a trouble episode cost in satisfaction (a running mean). */
  troubleCost: number;
  /** How often injecting puts anything in (a running mean). */
  injectRate: number;
  /** Of the episodes whose model searched after the prefetch, those whose answer hedged, and the rest: Beta counts (decayed). */
  struggle: [number, number];
  /** What a hedged answer cost in satisfaction (a running mean). */
  struggleCost: number;
  /** The last episodes, newest last (for `/learning`): what each did with prefetched context. */
  recent: EpisodeUse[];
}

/** What one episode did with prefetched context: nothing injected by choice, nothing to inject, or injected and used or not. */
export type EpisodeUse = "held back" | "none found" | "used" | "unused";
const USES: readonly EpisodeUse[] = ["held back", "none found", "used", "unused"];
/** How many episodes `recent` keeps. */
const RECENT_EPISODES = 20;

/** What one episode told the arms, for the words `/learning` says. */
export interface InjectionBelief {
  gainOfNothing: number;
  troubleWithInjection: number;
  troubleWithout: number;
  injectRate: number;
  troubleCost: number;
  /** How often a model that searched after the prefetch ended with a hedged answer, and what that cost. */
  struggleRate: number;
  struggleCost: number;
  recent: EpisodeUse[];
}

/**
 * Thompson sampling between injecting and injecting nothing, on two kinds
 * of evidence, each as fast as it allows:
 * - the paired gain: what the same episode would have scored with nothing
 *   injected minus with injection, from its recorded candidates (an
 *   injected item no answer or tool used is waste, a used one spared a
 *   search, and as often as such searches end in a hedged answer, that
 *   answer's cost). With the episode's own noise cancelled it is precise
 *   in a few episodes. An episode that injected gives it: the run shows
 *   what it used of what it was given. A held-back episode gives it only
 *   when its model went and found a candidate it needed (injecting would
 *   have spared that search): one that needed none cannot tell "needed
 *   nothing" from "could not find it", and counting it as the first would
 *   favour holding back on the evidence holding back itself produced;
 * - trouble the pairing cannot see: a correction or the same question asked
 *   again, compared between episodes that injected something and episodes
 *   that injected nothing (Beta posteriors), times what trouble costs.
 * Each draw takes one sample of each belief and picks the arm with the
 * higher value; with no evidence it injects, as the priors do.
 */
export class InjectionArms {
  private gain = { weight: 0, mean: 0, meanSquare: 0 };
  private troubleWithInjection: [number, number] = [...TROUBLE_PRIOR];
  private troubleWithout: [number, number] = [...TROUBLE_PRIOR];
  private troubleCost = TROUBLE_COST_PRIOR;
  private injectRate = 0.5;
  private struggle: [number, number] = [...STRUGGLE_PRIOR];
  private struggleCost = STRUGGLE_COST_PRIOR;
  private recent: EpisodeUse[] = [];

  /** One Thompson draw: the arm this prompt runs with. */
  choose(random: Uniform): InjectionArm {
    const gain = this.gainPosterior();
    const gainOfNothing = gain.mean + gain.sd * normalSample(random);
    const withInjection = betaSample(...this.troubleWithInjection, random);
    const without = betaSample(...this.troubleWithout, random);
    // Injecting adds trouble only on the episodes where it puts something in.
    const troubleAvoided = this.troubleCost * this.injectRate * (withInjection - without);
    return gainOfNothing + troubleAvoided > 0 ? "nothing" : "inject";
  }

  /** Learns from one closed episode; `weights` are the ones its satisfaction is judged by. */
  update(observation: EpisodeObservation, weights: RewardWeights): void {
    const arm = observation.injectionArm ?? "inject";
    const rounds = observation.prefetchRounds ?? [];
    if (rounds.length > 0) {
      const selected = injectedUnder(observation, observation.sampledThresholds);
      const neededAny = rounds.some((round) => round.neededKeys.length > 0);
      if (arm === "inject" || neededAny) this.addGain(this.pairedGain(observation, selected, arm, weights));
      this.injectRate += RATE_MEMORY * ((selected.some((keys) => keys.size > 0) ? 1 : 0) - this.injectRate);
    }
    this.countStruggle(observation, weights);
    const repeats = observation.repeats ?? 0;
    const trouble = observation.corrections + repeats > 0;
    const injected = observation.prefetchedKeys.length > 0;
    const counts = injected ? this.troubleWithInjection : this.troubleWithout;
    decay(this.troubleWithInjection, TROUBLE_PRIOR);
    decay(this.troubleWithout, TROUBLE_PRIOR);
    counts[trouble ? 0 : 1] += 1;
    if (trouble) {
      const calm = { ...observation, corrections: 0, followUps: Math.max(0, observation.followUps - repeats) };
      const cost = inferSatisfaction(calm, weights) - inferSatisfaction(observation, weights);
      this.troubleCost += 0.2 * (Math.max(0, cost) - this.troubleCost);
    }
    const use: EpisodeUse =
      arm === "nothing" ? "held back" : !injected ? "none found" : observation.usedKeys.length > 0 ? "used" : "unused";
    this.recent = [...this.recent, use].slice(-RECENT_EPISODES);
  }

  belief(): InjectionBelief {
    return {
      gainOfNothing: this.gainPosterior().mean,
      troubleWithInjection: betaMean(this.troubleWithInjection),
      troubleWithout: betaMean(this.troubleWithout),
      injectRate: this.injectRate,
      troubleCost: this.troubleCost,
      struggleRate: betaMean(this.struggle),
      struggleCost: this.struggleCost,
      recent: [...this.recent],
    };
  }

  /**
   * The episode scored with nothing injected minus with what the thresholds
   * select. Where it injected an item the run needed, injecting nothing
   * would have left the model to find it: a search, the pairing's price,
   * and, as often as searches after the prefetch have ended in a hedged
   * answer, that answer's cost too (a model that searches does not always
   * find). A held-back episode's searches are as observed: its model found
   * what it needed.
   */
  private pairedGain(observation: EpisodeObservation, selected: Set<string>[], arm: InjectionArm, weights: RewardWeights): number {
    const nothing = selected.map(() => new Set<string>());
    const reference = arm === "nothing" ? nothing : selected;
    const gain =
      satisfactionWithInjected(observation, nothing, reference, weights) -
      satisfactionWithInjected(observation, selected, reference, weights);
    if (arm === "nothing") return gain;
    const needed = (observation.prefetchRounds ?? []).flatMap((round) => round.neededKeys);
    const leavesOutNeeded = needed.some((key) => selected.some((keys) => keys.has(key)));
    return leavesOutNeeded ? gain - betaMean(this.struggle) * this.struggleCost : gain;
  }

  /**
   * Counts, of the episodes whose model searched after the prefetch, those
   * that ended hedged, and what a hedged answer cost: the episode against
   * the same episode answered without the hedge, without follow-ups and
   * after its first search alone.
   */
  private countStruggle(observation: EpisodeObservation, weights: RewardWeights): void {
    if (observation.searchedAfter.length === 0) return;
    decay(this.struggle, STRUGGLE_PRIOR);
    this.struggle[observation.hedging ? 0 : 1] += 1;
    if (!observation.hedging) return;
    const served = { ...observation, hedging: false, followUps: 0, searchedAfter: observation.searchedAfter.slice(0, 1) };
    const cost = inferSatisfaction(served, weights) - inferSatisfaction(observation, weights);
    this.struggleCost += 0.2 * (Math.max(0, cost) - this.struggleCost);
  }

  /** Normal prior, normal evidence with its own measured spread (decayed counts), gives a normal posterior. */
  private gainPosterior(): { mean: number; sd: number } {
    const { weight, mean, meanSquare } = this.gain;
    const priorPrecision = 1 / GAIN_PRIOR_SD ** 2;
    if (weight === 0) return { mean: GAIN_PRIOR_MEAN, sd: GAIN_PRIOR_SD };
    const variance = Math.max(GAIN_SD_FLOOR ** 2, meanSquare - mean * mean);
    const precision = priorPrecision + weight / variance;
    return { mean: (GAIN_PRIOR_MEAN * priorPrecision + (weight * mean) / variance) / precision, sd: Math.sqrt(1 / precision) };
  }

  private addGain(value: number): void {
    const weight = this.gain.weight * MEMORY + 1;
    const share = 1 / weight;
    this.gain = {
      weight,
      mean: this.gain.mean + share * (value - this.gain.mean),
      meanSquare: this.gain.meanSquare + share * (value * value - this.gain.meanSquare),
    };
  }

  toJSON(): InjectionArmsJSON {
    return {
      gain: { ...this.gain },
      troubleWithInjection: [...this.troubleWithInjection],
      troubleWithout: [...this.troubleWithout],
      troubleCost: this.troubleCost,
      injectRate: this.injectRate,
      struggle: [...this.struggle],
      struggleCost: this.struggleCost,
      recent: [...this.recent],
    };
  }

  /** Validates everything; throws a RangeError naming what is damaged. */
  static fromJSON(data: unknown): InjectionArms {
    const record = (data ?? {}) as Partial<Record<keyof InjectionArmsJSON, unknown>>;
    const finite = (value: unknown, name: string, low = Number.NEGATIVE_INFINITY) => {
      if (typeof value !== "number" || !Number.isFinite(value) || value < low)
        throw new RangeError(`injection.${name} is not a valid number`);
      return value;
    };
    const pair = (value: unknown, name: string): [number, number] => {
      if (!Array.isArray(value) || value.length !== 2) throw new RangeError(`injection.${name} must be two counts`);
      return [finite(value[0], name, Number.MIN_VALUE), finite(value[1], name, Number.MIN_VALUE)];
    };
    const gain = (record.gain ?? {}) as Record<string, unknown>;
    const arms = new InjectionArms();
    arms.gain = {
      weight: finite(gain.weight, "gain.weight", 0),
      mean: finite(gain.mean, "gain.mean"),
      meanSquare: finite(gain.meanSquare, "gain.meanSquare", 0),
    };
    arms.troubleWithInjection = pair(record.troubleWithInjection, "troubleWithInjection");
    arms.troubleWithout = pair(record.troubleWithout, "troubleWithout");
    arms.troubleCost = finite(record.troubleCost, "troubleCost", 0);
    arms.injectRate = finite(record.injectRate, "injectRate", 0);
    // A state saved before hedged answers were counted has no evidence of them yet.
    if (record.struggle !== undefined) {
      arms.struggle = pair(record.struggle, "struggle");
      arms.struggleCost = finite(record.struggleCost, "struggleCost", 0);
    }
    const recent = record.recent ?? [];
    if (!Array.isArray(recent) || !recent.every((use) => USES.includes(use as EpisodeUse)))
      throw new RangeError("injection.recent must list what episodes did");
    arms.recent = (recent as EpisodeUse[]).slice(-RECENT_EPISODES);
    return arms;
  }
}

/** Whether the beliefs' means (no sampling) favour injecting nothing: what a typical prompt gets now. */
export function injectionFavoursNothing(belief: InjectionBelief): boolean {
  return belief.gainOfNothing + belief.troubleCost * belief.injectRate * (belief.troubleWithInjection - belief.troubleWithout) > 0;
}

/** Beta counts forget toward their prior at MEMORY per episode. */
function decay(counts: [number, number], prior: readonly [number, number]): void {
  counts[0] = prior[0] + MEMORY * (counts[0] - prior[0]);
  counts[1] = prior[1] + MEMORY * (counts[1] - prior[1]);
}

const betaMean = ([alpha, beta]: readonly [number, number]) => alpha / (alpha + beta);
