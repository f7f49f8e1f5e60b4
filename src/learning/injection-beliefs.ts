/** What `InjectionArms` keeps (its JSON state) and tells (`/learning`): the types, apart from the learning. */
import type { DiscountedGainJSON } from "./discounted-gain.js";
import type { InjectionArm } from "./injection-arms.js";

/** The arms other than "inject", whose value is measured against it. */
export type Alternative = Exclude<InjectionArm, "inject">;

export interface InjectionArmsJSON {
  /** The paired gain of injecting nothing, and of hints only, against injecting: decayed weight, mean and mean square. */
  gain: DiscountedGainJSON;
  hintsGain?: DiscountedGainJSON;
  /** Trouble after an episode that injected excerpts and hints, hints only, and nothing: Beta counts (decayed). */
  troubleWithInjection: [number, number];
  troubleWithHints?: [number, number];
  troubleWithout: [number, number];
  /** What a trouble episode cost in satisfaction (a running mean). */
  troubleCost: number;
  /** How often injecting puts anything in (a running mean). */
  injectRate: number;
  /** Of the episodes whose model searched after the prefetch, those whose answer hedged, and the rest: Beta counts (decayed). */
  struggle: [number, number];
  /** What a hedged answer cost in satisfaction (a running mean). */
  struggleCost: number;
  /**
   * Per alternative, over its episodes whose model searched where injecting would have put in text it did not:
   * their weight, and what their searches past the first and a hedged answer cost, summed (both decayed toward
   * none). Absent in states saved before.
   */
  leftOutCost?: Record<Alternative, [number, number]>;
  /** The last episodes, newest last (for `/learning`): what each did with prefetched context. */
  recent: EpisodeUse[];
}

/** What one episode did with prefetched context: nothing injected by choice, nothing to inject, or injected (as hints only, by choice) and used or not. */
export type EpisodeUse = "held back" | "none found" | "used" | "unused" | "hints used" | "hints unused";
export const USES: readonly EpisodeUse[] = ["held back", "none found", "used", "unused", "hints used", "hints unused"];
/** How many episodes `recent` keeps. */
export const RECENT_EPISODES = 20;

/** What one episode told the arms, for the words `/learning` says. */
export interface InjectionBelief {
  gainOfNothing: number;
  gainOfHints: number;
  troubleWithInjection: number;
  troubleWithHints: number;
  troubleWithout: number;
  injectRate: number;
  troubleCost: number;
  /** How often a model that searched after the prefetch ended with a hedged answer, and what that cost. */
  struggleRate: number;
  struggleCost: number;
  /** What searching past the first search cost where each alternative left out text injecting would have put in. */
  leftOutPrice: Record<Alternative, number>;
  recent: EpisodeUse[];
}
