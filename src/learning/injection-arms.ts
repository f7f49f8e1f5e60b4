import { betaSample, normalSample, type Uniform } from "../stats/random-draws.js";
import { betaMean, decay, forget } from "./beta-counts.js";
import { DiscountedGain, type GainPrior } from "./discounted-gain.js";
import {
  type Alternative,
  type EpisodeUse,
  type InjectionArmsJSON,
  type InjectionBelief,
  RECENT_EPISODES,
  USES,
} from "./injection-beliefs.js";
import { injectedUnder, satisfactionWithInjected, selectedUnder } from "./paired-advantage.js";
import { type EpisodeObservation, inferSatisfaction, PRIOR_MEAN_WEIGHTS, type RewardWeights } from "./satisfaction.js";

/**
 * Whether a prompt gets prefetched context at all: "inject" puts in what the
 * learned thresholds select, "hints" the same items as file hints only (a
 * path and what is there, no excerpt text: the model reads what it wants),
 * "nothing" puts nothing in front of the model (the prefetch still searches
 * and records its candidates, so the episode can tell what injecting would
 * have done).
 */
export type InjectionArm = "inject" | "hints" | "nothing";
export const INJECTION_ARMS: readonly InjectionArm[] = ["inject", "hints", "nothing"];
export type { EpisodeUse, InjectionArmsJSON, InjectionBelief } from "./injection-beliefs.js";

/**
 * How much a belief keeps of its past per episode: about the last 50
 * episodes count, so a user who changes is followed within tens of
 * episodes, not hundreds.
 */
const MEMORY = 0.98;
/**
 * The prior on what an alternative to injecting gains per episode: a third
 * of a search's price below zero, so that without evidence injecting is the
 * likeliest draw (47 % of draws, against 34 % at −0.02, where a new
 * project's first prompts got nothing or hints only two times in three),
 * and about as wide as one episode's gain (a search's price), so that a few
 * dozen episodes of evidence outweigh it: a narrower prior held a user's
 * measured loss from holding back near zero, and trouble with injecting
 * then tipped the draw. One episode's gain is taken to spread by about a
 * search's price too (0.1), a guess worth three episodes: one episode, or
 * a few alike, is never certainty.
 */
export const INJECTION_GAIN_PRIOR: Readonly<GainPrior> = { mean: -0.05, sd: 0.1, episodeSd: 0.1, episodeSdWeight: 3, memory: MEMORY };
/** Trouble (a correction, the same question asked again) before any evidence: one episode in twenty, as likely with injection as without. */
const TROUBLE_PRIOR: readonly [number, number] = [0.25, 4.75];
/** What trouble costs in satisfaction until an episode has shown it (a correction's cost at the prior weights). */
const TROUBLE_COST_PRIOR = 0.5;
const RATE_MEMORY = 0.05;
/**
 * A needed item offered as a hint where injecting would have put its text
 * in costs the model a read: a third of a search's price, since it knows
 * where to look but still spends a turn on it. Without that price a user
 * served as well either way would be offered hints half the time.
 */
const READ_SHARE_OF_SEARCH = 1 / 3;
const SEARCH_PRICE = 0.15;
/** A search after the prefetch that ends in a hedged answer, before any evidence: one in twenty, so that without evidence the pairing prices a needed item left out as it always did, at about one search. */
const STRUGGLE_PRIOR: readonly [number, number] = [0.25, 4.75];
/** What a hedged answer costs until one has shown it: the hedge, the follow-up it draws, the searches past the first. */
const STRUGGLE_COST_PRIOR = 0.5;
/**
 * How many searches of its own an alternative's measured price of leaving an item out weighs every search's
 * price as: one, so that a few of its own searches outweigh it (they are the hard ones: the pooled price is a
 * poor guess for them, and held them at half their cost in a unit test in the proportions of user E).
 */
const POOLED_PRICE_WEIGHT = 1;

/**
 * Thompson sampling between injecting, injecting hints only and injecting
 * nothing, on two kinds of evidence, each as fast as it allows:
 * - the paired gain of each alternative against injecting: what the same
 *   episode would have scored with its selection (nothing; the same items
 *   as hints) minus with injection's, from its recorded candidates (an
 *   injected item no answer or tool used is waste, a used one spared a
 *   search and what the alternative's own searches were measured to cost
 *   past their first, and an item offered as a hint costs a read). With the
 *   episode's own noise cancelled it is precise in a few dozen episodes.
 *   An episode that injected gives it (the run shows what it used of what
 *   it was given), and one that ran hints only gives hints' own, priced by
 *   what it cost;
 * - trouble the pairing cannot see: a correction or the same question asked
 *   again, compared between episodes that injected excerpts, hints only and
 *   nothing (Beta posteriors), times what trouble costs. A wrong excerpt
 *   can mislead an answer; a hint the model has to open rarely does, so a
 *   user misled by excerpts shows trouble with them and none with hints.
 * Every belief forgets a share of its evidence each episode (MEMORY), so
 * an arm not played drifts back toward its prior and is drawn again to
 * check it. Each draw takes one sample of each belief and picks the arm
 * with the highest value; with no evidence it injects, as the priors do.
 */
export class InjectionArms {
  private gains: Record<Alternative, DiscountedGain> = {
    hints: new DiscountedGain(INJECTION_GAIN_PRIOR),
    nothing: new DiscountedGain(INJECTION_GAIN_PRIOR),
  };
  private trouble: Record<InjectionArm, [number, number]> = {
    inject: [...TROUBLE_PRIOR],
    hints: [...TROUBLE_PRIOR],
    nothing: [...TROUBLE_PRIOR],
  };
  private troubleCost = TROUBLE_COST_PRIOR;
  private injectRate = 0.5;
  private struggle: [number, number] = [...STRUGGLE_PRIOR];
  private struggleCost = STRUGGLE_COST_PRIOR;
  private leftOutCost: Record<Alternative, [number, number]> = { hints: [0, 0], nothing: [0, 0] };
  private recent: EpisodeUse[] = [];

  /** One Thompson draw: the arm this prompt runs with. */
  choose(random: Uniform): InjectionArm {
    const draw = (arm: Alternative) => {
      const { mean, sd } = this.gains[arm].posterior();
      return mean + sd * normalSample(random);
    };
    const gainOfNothing = draw("nothing");
    const gainOfHints = draw("hints");
    const withInjection = betaSample(...this.trouble.inject, random);
    const withHints = betaSample(...this.trouble.hints, random);
    const without = betaSample(...this.trouble.nothing, random);
    // Injecting adds trouble only on the episodes where it puts something in; hints only put in as often.
    const avoided = (rate: number) => this.troubleCost * this.injectRate * (withInjection - rate);
    return bestArm({ nothing: gainOfNothing + avoided(without), hints: gainOfHints + avoided(withHints) });
  }

  /** Learns from one closed episode; `weights` are the ones its satisfaction is judged by. */
  update(observation: EpisodeObservation, weights: RewardWeights): void {
    const arm = observation.injectionArm ?? "inject";
    const rounds = observation.prefetchRounds ?? [];
    this.gains.hints.decay();
    this.gains.nothing.decay();
    if (rounds.length > 0) {
      // A run that had the text in front of it shows what it used of it. A held-back run shows it only
      // when its model neither searched nor hedged: it needed nothing, so whatever injecting put in would
      // have been waste. One that searched cannot tell "needed nothing" from "could not find it", and if it
      // found what it needed it is the easy case of the many that searched: either way its evidence would
      // favour holding back on what holding back produced. An arm not played is checked again as its
      // evidence fades.
      const neededNothing = arm === "nothing" && observation.searchedAfter.length === 0 && !observation.hedging;
      if (arm === "inject" || neededNothing)
        for (const alternative of ["hints", "nothing"] as const)
          this.gains[alternative].add(this.pairedGain(observation, alternative, weights));
      else if (arm === "hints") this.gains.hints.add(this.measuredHintsGain(observation, weights));
      const selected = injectedUnder(observation, observation.sampledThresholds);
      this.injectRate += RATE_MEMORY * ((selected.some((keys) => keys.size > 0) ? 1 : 0) - this.injectRate);
    }
    this.countStruggle(observation, weights);
    this.countLeftOutCost(observation, arm, weights);
    const repeats = observation.repeats ?? 0;
    const trouble = observation.corrections + repeats > 0;
    const injected = observation.prefetchedKeys.length > 0;
    for (const name of INJECTION_ARMS) forget(this.trouble[name], TROUBLE_PRIOR, MEMORY);
    this.trouble[injected ? (arm === "hints" ? "hints" : "inject") : "nothing"][trouble ? 0 : 1] += 1;
    if (trouble) {
      const calm = { ...observation, corrections: 0, followUps: Math.max(0, observation.followUps - repeats) };
      const cost = inferSatisfaction(calm, weights) - inferSatisfaction(observation, weights);
      this.troubleCost += 0.2 * (Math.max(0, cost) - this.troubleCost);
    }
    this.recent = [...this.recent, episodeUse(observation, arm)].slice(-RECENT_EPISODES);
  }

  belief(): InjectionBelief {
    return {
      gainOfNothing: this.gains.nothing.posterior().mean,
      gainOfHints: this.gains.hints.posterior().mean,
      troubleWithInjection: betaMean(this.trouble.inject),
      troubleWithHints: betaMean(this.trouble.hints),
      troubleWithout: betaMean(this.trouble.nothing),
      injectRate: this.injectRate,
      troubleCost: this.troubleCost,
      struggleRate: betaMean(this.struggle),
      struggleCost: this.struggleCost,
      leftOutPrice: { hints: this.leftOutPrice("hints"), nothing: this.leftOutPrice("nothing") },
      recent: [...this.recent],
    };
  }

  /**
   * An episode that injected, scored with the alternative's selection minus
   * as it ran (its searches were measured against what it had). Where it had
   * an item it needed and the alternative leaves it out, the model would have
   * had to find it: a search, the pairing's price, and what the searches
   * this alternative led to cost past their first, measured (a model that
   * searches does not always find, and least often where the prefetch's
   * best was not enough).
   *
   * An answer built on injected text that then drew trouble (a correction,
   * the same question again) was misled by it: offered that item only as a
   * hint, the model would not have had the answer in front of it and would
   * have gone looking, so hints only are priced as leaving it out.
   */
  private pairedGain(observation: EpisodeObservation, alternative: Alternative, weights: RewardWeights): number {
    const injecting = injectedUnder(observation, observation.sampledThresholds);
    const offered = injectedUnder(observation, observation.sampledThresholds, alternative);
    const misled = observation.corrections + (observation.repeats ?? 0) > 0;
    const other =
      alternative === "hints" && misled
        ? offered.map((keys) => new Set([...keys].filter((key) => !observation.usedKeys.includes(key))))
        : offered;
    const gain =
      satisfactionWithInjected(observation, other, injecting, weights) -
      satisfactionWithInjected(observation, injecting, injecting, weights);
    const needed = (observation.prefetchRounds ?? []).flatMap((round) => round.neededKeys).filter((key) => has(injecting, key));
    const hedged = needed.some((key) => !has(other, key)) ? this.leftOutPrice(alternative) : 0;
    return gain - hedged - (alternative === "hints" ? this.readsCost(observation, other, weights) : 0);
  }

  /**
   * An episode that ran hints only, priced by what it cost: the reads of the
   * hints it used whose text injecting would have put in, and, where its
   * model searched although injecting would have put in text it did not
   * take, what the searches and a hedged answer cost (the episode against
   * the same answered without them). It cannot tell the searches injecting
   * would have spared from those it would not (a user who ignores what is
   * injected searches either way), so it errs toward injecting, the priors'
   * choice. Without it a user misled by excerpts was offered hints for good:
   * the trouble they spare kept its rate while hints ran, and the evidence
   * of their cost came only from prompts that injected, and faded.
   */
  private measuredHintsGain(observation: EpisodeObservation, weights: RewardWeights): number {
    const given = injectedUnder(observation, observation.sampledThresholds, "hints");
    const reads = this.readsCost(observation, given, weights);
    const needed = new Set((observation.prefetchRounds ?? []).flatMap((round) => round.neededKeys));
    const untaken = selectedUnder(observation, observation.sampledThresholds).some((round) =>
      [...round.excerpts].some((key) => !needed.has(key)),
    );
    if (observation.searchedAfter.length === 0 || !untaken) return -reads;
    const served = { ...observation, searchedAfter: [], hedging: false, followUps: observation.hedging ? 0 : observation.followUps };
    return -reads - Math.max(0, inferSatisfaction(served, weights) - inferSatisfaction(observation, weights));
  }

  /** What opening the needed items that hints only offer as hints, where injecting puts in their text, costs. */
  private readsCost(observation: EpisodeObservation, hints: Set<string>[], weights: RewardWeights): number {
    const excerpts = selectedUnder(observation, observation.sampledThresholds).map((round) => round.excerpts);
    const needed = new Set((observation.prefetchRounds ?? []).flatMap((round) => round.neededKeys));
    const reads = [...needed].filter((key) => has(excerpts, key) && has(hints, key)).length;
    return reads * READ_SHARE_OF_SEARCH * SEARCH_PRICE * (weights.strugglePenalty / PRIOR_MEAN_WEIGHTS.strugglePenalty);
  }

  /**
   * Counts, of the episodes whose model searched after the prefetch, those
   * that ended hedged, and what a hedged answer cost: the episode against
   * the same episode answered without the hedge, without follow-ups and
   * after its first search alone.
   */
  private countStruggle(observation: EpisodeObservation, weights: RewardWeights): void {
    if (observation.searchedAfter.length === 0) return;
    decay(this.struggle, STRUGGLE_PRIOR, MEMORY);
    this.struggle[observation.hedging ? 0 : 1] += 1;
    if (!observation.hedging) return;
    const served = { ...observation, hedging: false, followUps: 0, searchedAfter: observation.searchedAfter.slice(0, 1) };
    const cost = inferSatisfaction(served, weights) - inferSatisfaction(observation, weights);
    this.struggleCost += 0.2 * (Math.max(0, cost) - this.struggleCost);
  }

  /**
   * Adds, of an alternative's episodes whose model searched where injecting
   * would have put in text the alternative did not (excerpts, for hints
   * only; anything, for nothing), what its searches past the first and a
   * hedged answer cost: the episode against the same answered after its first
   * search, without the hedge and the follow-ups it drew. These are the
   * searches leaving an item out causes, and they are not typical ones: the
   * prefetch's best was not enough to go on. Every alternative's evidence
   * fades each episode, so one not played is priced again as every search is.
   */
  private countLeftOutCost(observation: EpisodeObservation, arm: InjectionArm, weights: RewardWeights): void {
    for (const alternative of ["hints", "nothing"] as const) decay(this.leftOutCost[alternative], [0, 0], MEMORY);
    if (arm === "inject" || observation.searchedAfter.length === 0) return;
    const injecting = selectedUnder(observation, observation.sampledThresholds);
    const given = selectedUnder(observation, observation.sampledThresholds, arm);
    const leftOut = injecting.some(
      (round, index) =>
        [...round.excerpts].some((key) => !given[index]?.excerpts.has(key)) ||
        [...round.hints].some((key) => !given[index]?.excerpts.has(key) && !given[index]?.hints.has(key)),
    );
    if (!leftOut) return;
    const served = {
      ...observation,
      searchedAfter: observation.searchedAfter.slice(0, 1),
      hedging: false,
      followUps: observation.hedging ? 0 : observation.followUps,
    };
    this.leftOutCost[arm][0] += 1;
    this.leftOutCost[arm][1] += Math.max(0, inferSatisfaction(served, weights) - inferSatisfaction(observation, weights));
  }

  /** An alternative's own measured price as far as its evidence goes, and every search's (the pooled hedge rate times its cost) beyond it. */
  private leftOutPrice(alternative: Alternative): number {
    const [weight, cost] = this.leftOutCost[alternative];
    return (cost + POOLED_PRICE_WEIGHT * betaMean(this.struggle) * this.struggleCost) / (weight + POOLED_PRICE_WEIGHT);
  }

  toJSON(): InjectionArmsJSON {
    return {
      gain: this.gains.nothing.toJSON(),
      hintsGain: this.gains.hints.toJSON(),
      troubleWithInjection: [...this.trouble.inject],
      troubleWithHints: [...this.trouble.hints],
      troubleWithout: [...this.trouble.nothing],
      troubleCost: this.troubleCost,
      injectRate: this.injectRate,
      struggle: [...this.struggle],
      struggleCost: this.struggleCost,
      leftOutCost: { hints: [...this.leftOutCost.hints], nothing: [...this.leftOutCost.nothing] },
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
    const pair = (value: unknown, name: string, low = Number.MIN_VALUE): [number, number] => {
      if (!Array.isArray(value) || value.length !== 2) throw new RangeError(`injection.${name} must be two counts`);
      return [finite(value[0], name, low), finite(value[1], name, low)];
    };
    const arms = new InjectionArms();
    arms.gains.nothing = DiscountedGain.fromJSON(record.gain, INJECTION_GAIN_PRIOR, "injection.gain");
    arms.trouble.inject = pair(record.troubleWithInjection, "troubleWithInjection");
    arms.trouble.nothing = pair(record.troubleWithout, "troubleWithout");
    // A state saved before hints only were an arm has no evidence of them yet.
    if (record.hintsGain !== undefined)
      arms.gains.hints = DiscountedGain.fromJSON(record.hintsGain, INJECTION_GAIN_PRIOR, "injection.hintsGain");
    if (record.troubleWithHints !== undefined) arms.trouble.hints = pair(record.troubleWithHints, "troubleWithHints");
    arms.troubleCost = finite(record.troubleCost, "troubleCost", 0);
    arms.injectRate = finite(record.injectRate, "injectRate", 0);
    // A state saved before hedged answers were counted has no evidence of them yet.
    if (record.struggle !== undefined) {
      arms.struggle = pair(record.struggle, "struggle");
      arms.struggleCost = finite(record.struggleCost, "struggleCost", 0);
    }
    // A state saved before each alternative's searches were counted apart prices them at every search's rate.
    if (record.leftOutCost !== undefined) {
      const costs = (record.leftOutCost ?? {}) as Partial<Record<Alternative, unknown>>;
      arms.leftOutCost = { hints: pair(costs.hints, "leftOutCost.hints", 0), nothing: pair(costs.nothing, "leftOutCost.nothing", 0) };
    }
    const recent = record.recent ?? [];
    if (!Array.isArray(recent) || !recent.every((use) => USES.includes(use as EpisodeUse)))
      throw new RangeError("injection.recent must list what episodes did");
    arms.recent = (recent as EpisodeUse[]).slice(-RECENT_EPISODES);
    return arms;
  }
}

/** The arm the beliefs' means (no sampling) favour: what a typical prompt gets now. */
export function favouredArm(belief: InjectionBelief): InjectionArm {
  const avoided = (rate: number) => belief.troubleCost * belief.injectRate * (belief.troubleWithInjection - rate);
  return bestArm({
    nothing: belief.gainOfNothing + avoided(belief.troubleWithout),
    hints: belief.gainOfHints + avoided(belief.troubleWithHints),
  });
}

/** The arm of highest value, each alternative's value counted against injecting's (0); a tie injects. */
function bestArm(values: Record<Alternative, number>): InjectionArm {
  let best: InjectionArm = "inject";
  let bestValue = 0;
  for (const alternative of ["hints", "nothing"] as const)
    if (values[alternative] > bestValue) {
      best = alternative;
      bestValue = values[alternative];
    }
  return best;
}

function episodeUse(observation: EpisodeObservation, arm: InjectionArm): EpisodeUse {
  if (arm === "nothing") return "held back";
  if (observation.prefetchedKeys.length === 0) return "none found";
  const used = observation.usedKeys.length > 0;
  if (arm === "hints") return used ? "hints used" : "hints unused";
  return used ? "used" : "unused";
}

const has = (sets: readonly Set<string>[], key: string) => sets.some((keys) => keys.has(key));
