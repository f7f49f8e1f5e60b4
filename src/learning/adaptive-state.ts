import { seededUniform, type Uniform } from "../stats/random-draws.js";
import { pairedAdvantage, type ThresholdKey } from "./paired-advantage.js";
import { ContextDiscovery } from "./context-discovery.js";
import { type InjectionArm, InjectionArms } from "./injection-arms.js";
import {
  DEFAULT_UPDATE_CONFIG,
  RobustWeightDistribution,
  type RobustWeightDistributionJSON,
  type UpdateConfig as DistributionUpdateConfig,
} from "./robust-weight-distribution.js";
import { type EpisodeObservation, inferSatisfaction, type RewardWeights, type ThresholdConfig } from "./satisfaction.js";
import { UserWeightProfile, type UserWeightProfileJSON } from "./user-weight-profile.js";

/** The learned parameters and their Beta priors (docs/DESIGN-NOTES.md, "What learns"). */
const PARAMETER_PRIORS = {
  "weights.taskSuccess": [8, 2],
  "weights.relevanceBonus": [3, 7],
  "weights.strugglePenalty": [4, 6],
  "weights.wastePenalty": [1, 9],
  "thresholds.confidence": [8.5, 1.5],
  "thresholds.excerpt": [9, 1],
  "thresholds.budget": [1, 9],
} as const satisfies Record<string, readonly [number, number]>;

export type ParameterName = keyof typeof PARAMETER_PRIORS;
export const PARAMETER_NAMES = Object.keys(PARAMETER_PRIORS) as ParameterName[];

/** The distributions' update settings, and the weights an episode's satisfaction is computed with. */
export interface UpdateConfig extends DistributionUpdateConfig {
  /**
   * "mean" (the default): the weights' means, adjusted by the profile and
   * the context's bias as the sample was. "applied" (the original rule): the
   * sample's applied weights. The weights are learned from that satisfaction,
   * so with "applied" a draw that weighs the penalties less raises its own
   * reward and is reinforced for that alone.
   */
  rewardWeights?: "applied" | "mean";
  /**
   * What a prompt's thresholds are. "credible" (the default): the value
   * nearest the prior's mean that the posterior holds credible (`played`),
   * and the belief learns from a draw it did not play, scored on the same
   * episode against other draws from the recorded candidates
   * (`pairedSignals`). "draw" (the original rule): a Thompson draw, played.
   * The paired advantage needs no threshold to be played to score it, so
   * playing draws only costs the user the spread of the draws.
   */
  thresholds?: "credible" | "draw";
  /**
   * What a prompt's weights are. "credible" (the default): as for the
   * thresholds, the value nearest the prior's mean that the posterior holds
   * credible, and a weight not drawn learns nothing (no episode can score a
   * weight it did not play: its retrieval effects, the search's ranking
   * among them, are not replayable from the recorded candidates). "draw"
   * (the original rule): a Thompson draw, played, learning from the
   * running-baseline advantage, whose noise (about 0.45 an episode) buries
   * what a draw changes (0.02 to 0.15, on a few prompts in a hundred): the
   * draws cost a user with nothing to gain and taught the weights next to
   * nothing (`bench-adaptive`, users A and C).
   */
  weights?: "credible" | "draw";
}

/**
 * "seed": the original rule, signal = satisfaction. "advantage": the rule
 * docs/DESIGN-NOTES.md argues for, signal = satisfaction − the context's baseline, so an episode
 * that went well for reasons unrelated to the sample does not reinforce it.
 */
export type UpdateRule = "advantage" | "seed";

/** One turn's Thompson sample: what the episode records and retrieval uses. */
export interface AdaptiveSample {
  contextId: string;
  sampledWeights: RewardWeights;
  /** The thresholds the prompt runs with: as near the priors as the evidence allows, or a draw (`UpdateConfig.thresholds`). */
  sampledThresholds: ThresholdConfig;
  appliedWeights: RewardWeights;
  /** Whether this prompt gets prefetched context at all (`InjectionArms`). */
  injectionArm: InjectionArm;
}

export interface ParameterSummary {
  name: ParameterName;
  alpha: number;
  beta: number;
  mean: number;
  effectiveSamples: number;
  /** A parameter's value as prompts run with it now (`played`); absent for one that is drawn. */
  played?: number;
}

export interface AdaptiveStateJSON {
  version: 1;
  totalObservations: number;
  /** The log position this state includes: replay starts after it. */
  appliedSequence: number;
  /** Baseline for episodes whose context is not (or no longer) known. */
  fallbackBaseline: number | null;
  /** Per parameter, the running mean size of its advantage (absent in states saved before it was kept). */
  signalScales?: Partial<Record<ParameterName, number>>;
  parameters: Record<ParameterName, RobustWeightDistributionJSON>;
  contexts: unknown;
  profile: UserWeightProfileJSON;
  /** Whether to inject at all (absent in states saved before it was learned). */
  injection?: unknown;
}

export type UpdateResult = { applied: false } | { applied: true; satisfaction: number; signal: number };

/** The running mean of |advantage| moves this share of the way per episode. */
const SIGNAL_SCALE_RATE = 0.05;
const MAX_NORMALIZED_SIGNAL = 3;
/** How far, in posterior standard deviations, a played threshold stays from its belief's mean toward the prior's. */
const CREDIBLE_SPREAD = 1;
/** How many values of a threshold its sampled value is compared with, on the same episode. */
const PAIRED_ALTERNATIVES = 16;
const THRESHOLD_PARAMETERS: ReadonlyArray<readonly [ParameterName, ThresholdKey]> = [
  ["thresholds.confidence", "confidence"],
  ["thresholds.excerpt", "excerpt"],
  ["thresholds.budget", "budget"],
];

/** Where each parameter's value sits in an episode's raw sample. */
function sampledValue(observation: Pick<EpisodeObservation, "sampledWeights" | "sampledThresholds">, name: ParameterName): number {
  const [group, key] = name.split(".") as ["weights" | "thresholds", string];
  const values = (group === "weights" ? observation.sampledWeights : observation.sampledThresholds) as unknown as Record<string, number>;
  return values[key] as number;
}

/**
 * Sufficient statistics only (no raw history), so it
 * stays a few KB however long it learns.
 */
export class AdaptiveState {
  readonly contexts: ContextDiscovery;
  /** Whether a prompt gets prefetched context at all. */
  readonly injection: InjectionArms;
  /** The user's profile: shared by every project, so its owner may swap in the stored one (useProfile). */
  profile: UserWeightProfile;
  totalObservations = 0;
  appliedSequence = 0;
  private fallbackBaseline: number | undefined;
  private readonly signalScales = new Map<ParameterName, number>();
  private readonly distributions: Map<ParameterName, RobustWeightDistribution>;

  constructor(
    private readonly config: Readonly<UpdateConfig> = DEFAULT_UPDATE_CONFIG,
    parts: {
      contexts?: ContextDiscovery;
      profile?: UserWeightProfile;
      distributions?: Map<ParameterName, RobustWeightDistribution>;
      injection?: InjectionArms;
    } = {},
  ) {
    this.contexts = parts.contexts ?? new ContextDiscovery();
    this.injection = parts.injection ?? new InjectionArms();
    this.profile = parts.profile ?? new UserWeightProfile();
    this.distributions =
      parts.distributions ??
      new Map(PARAMETER_NAMES.map((name) => [name, new RobustWeightDistribution(PARAMETER_PRIORS[name][0], PARAMETER_PRIORS[name][1])]));
  }

  distribution(name: ParameterName): RobustWeightDistribution {
    return this.distributions.get(name) as RobustWeightDistribution;
  }

  /**
   * One prompt's settings: every parameter as it is played (`played`, or
   * a Thompson draw where `UpdateConfig` says so), and a Thompson draw of
   * whether to inject at all (from `armRandom`, the same stream unless
   * given: a separate one leaves the parameters' draws as they would be
   * without the arm).
   */
  sample(contextId: string, random: Uniform, armRandom: Uniform = random): AdaptiveSample {
    const value = (name: ParameterName) => (this.draws(name) ? this.distribution(name).sample(random) : this.played(name));
    const sampledWeights: RewardWeights = {
      taskSuccess: value("weights.taskSuccess"),
      relevanceBonus: value("weights.relevanceBonus"),
      strugglePenalty: value("weights.strugglePenalty"),
      wastePenalty: value("weights.wastePenalty"),
    };
    const sampledThresholds: ThresholdConfig = {
      confidence: value("thresholds.confidence"),
      excerpt: value("thresholds.excerpt"),
      budget: value("thresholds.budget"),
    };
    // The profile applies itself only after enough observations.
    let appliedWeights = this.profile.adjust(sampledWeights);
    const bias = this.contexts.bias(contextId);
    if (bias !== undefined) appliedWeights = bias.adjust(appliedWeights);
    return { contextId, sampledWeights, sampledThresholds, appliedWeights, injectionArm: this.injection.choose(armRandom) };
  }

  /**
   * Learns from one episode's outcome. An episode at or before `appliedSequence` is
   * skipped, so replaying a log after a crash applies nothing twice.
   */
  update(observation: EpisodeObservation, rule: UpdateRule, options: { updateProfile?: boolean } = {}): UpdateResult {
    if (observation.sequence <= this.appliedSequence) return { applied: false };
    const weights = this.rewardWeights(observation);
    const satisfaction = inferSatisfaction(observation, weights);
    if (!Number.isFinite(satisfaction)) return { applied: false };
    // Before anything learns from this episode: the thresholds' paired advantages are measured against the current beliefs.
    const paired = rule === "advantage" ? this.pairedSignals(observation, weights) : undefined;

    // Contexts learn here, not when the prompt was classified, so a replay rebuilds them exactly.
    const contextId = this.contexts.accepts(observation.queryEmbedding)
      ? this.contexts.learn(observation.query, observation.queryEmbedding)
      : observation.contextId;
    const known = this.contexts.bias(contextId) !== undefined;
    const baseline = known ? this.contexts.baseline(contextId) : this.fallbackBaseline;
    // The baseline starts at the first satisfaction seen, so the first advantage is 0.
    const signal = rule === "seed" ? satisfaction : satisfaction - (baseline ?? satisfaction);
    if (known) this.contexts.observeSatisfaction(contextId, satisfaction);
    else this.fallbackBaseline = baseline === undefined ? satisfaction : 0.9 * baseline + 0.1 * satisfaction;

    for (const name of PARAMETER_NAMES) {
      const own = paired?.get(name);
      // A parameter that was not drawn has nothing to learn without its own draw's paired score (the weights have none).
      if (own === undefined && !this.draws(name)) continue;
      const value = own?.value ?? sampledValue(observation, name);
      const evidence = own?.advantage ?? signal;
      this.distribution(name).update(value, rule === "seed" ? evidence : this.normalized(name, evidence), this.config);
    }
    this.injection.update(observation, weights);
    // The bias and profile rules read the outcome itself, not its advantage: their thresholds are on satisfaction.
    this.contexts.bias(contextId)?.update(satisfaction, observation);
    // A profile stored apart (the user's, under $SYLK_HOME) is updated by its store, in its own transaction.
    if (options.updateProfile !== false) this.profile.update(satisfaction, observation);

    this.totalObservations++;
    this.appliedSequence = observation.sequence;
    return { applied: true, satisfaction, signal };
  }

  /**
   * An advantage in units of its parameter's usual size (a running mean of
   * |advantage|, clipped to ±3 of them): advantages are a few hundredths of
   * satisfaction, and as weights of evidence they would barely move a Beta
   * worth ten samples in a hundred episodes. Normalised, a typical episode
   * is one sample's worth, and the cold-start protection means what
   * it says (ten episodes, not a thousand).
   */
  private normalized(name: ParameterName, advantage: number): number {
    const size = Math.abs(advantage);
    const scale = this.signalScales.get(name);
    const next = scale === undefined ? (size > 0 ? size : undefined) : (1 - SIGNAL_SCALE_RATE) * scale + SIGNAL_SCALE_RATE * size;
    if (next !== undefined) this.signalScales.set(name, next);
    if (!next) return 0;
    return Math.max(-MAX_NORMALIZED_SIGNAL, Math.min(MAX_NORMALIZED_SIGNAL, advantage / next));
  }

  /**
   * The value of a parameter (a threshold, or with `weights: "credible"` a
   * weight) a prompt runs with: of the values its posterior
   * holds credible (within CREDIBLE_SPREAD standard deviations of its mean),
   * the one closest to the prior's mean. The priors are what a user gets
   * without learning, so they are left only as far as the evidence says
   * they are wrong: a belief that has drifted by less than its own spread
   * plays the priors exactly, and a user with nothing to gain loses nothing
   * to that drift.
   */
  private played(name: ParameterName): number {
    const distribution = this.distribution(name);
    const prior = distribution.priorAlpha / (distribution.priorAlpha + distribution.priorBeta);
    const shift = distribution.mean() - prior;
    const credible = CREDIBLE_SPREAD * Math.sqrt(distribution.variance());
    return prior + Math.sign(shift) * Math.max(0, Math.abs(shift) - credible);
  }

  private get playsDraws(): boolean {
    return this.config.thresholds === "draw";
  }

  /** Whether prompts run with Thompson draws of this parameter (`UpdateConfig.thresholds`, `UpdateConfig.weights`). */
  private draws(name: ParameterName): boolean {
    return name.startsWith("thresholds.") ? this.playsDraws : this.config.weights === "draw";
  }

  /**
   * The thresholds' paired advantages (`paired-advantage.ts`): a value of
   * each against PAIRED_ALTERNATIVES draws from its current distribution,
   * from a generator seeded by the episode's position so a replay computes
   * the same signal. The value is the one played where it was drawn, or else
   * one more draw: the belief learns where a draw would have done
   * better or worse, as Thompson sampling does, without the user paying for
   * the draw. Undefined without prefetch records.
   */
  private pairedSignals(
    observation: EpisodeObservation,
    weights: RewardWeights,
  ): Map<ParameterName, { value: number; advantage: number }> | undefined {
    if (!observation.prefetchRounds || observation.prefetchRounds.length === 0) return undefined;
    const signals = new Map<ParameterName, { value: number; advantage: number }>();
    THRESHOLD_PARAMETERS.forEach(([name, key], index) => {
      const random = seededUniform(observation.sequence * 7919 + index);
      const distribution = this.distribution(name);
      const alternatives = Array.from({ length: PAIRED_ALTERNATIVES }, () => distribution.sample(random));
      const value = this.playsDraws ? sampledValue(observation, name) : distribution.sample(random);
      const advantage = pairedAdvantage(observation, key, alternatives, weights, value);
      if (advantage !== undefined && Number.isFinite(advantage)) signals.set(name, { value, advantage });
    });
    return signals;
  }

  /**
   * The weights the episode's satisfaction is computed with: the applied
   * weights (the original rule), or with `rewardWeights: "mean"` the distributions'
   * means adjusted as the sample was (profile, then the context's bias), so a
   * draw of a weight cannot raise the satisfaction it is then judged by.
   */
  private rewardWeights(observation: EpisodeObservation): RewardWeights {
    if (this.config.rewardWeights === "applied") return observation.appliedWeights;
    const mean = (name: ParameterName) => this.distribution(name).mean();
    const weights = this.profile.adjust({
      taskSuccess: mean("weights.taskSuccess"),
      relevanceBonus: mean("weights.relevanceBonus"),
      strugglePenalty: mean("weights.strugglePenalty"),
      wastePenalty: mean("weights.wastePenalty"),
    });
    return this.contexts.bias(observation.contextId)?.adjust(weights) ?? weights;
  }

  parameters(): ParameterSummary[] {
    return PARAMETER_NAMES.map((name) => {
      const d = this.distribution(name);
      const played = this.draws(name) ? {} : { played: this.played(name) };
      return { name, alpha: d.alpha, beta: d.beta, mean: d.mean(), effectiveSamples: d.effectiveSamples, ...played };
    });
  }

  toJSON(): AdaptiveStateJSON {
    return {
      version: 1,
      totalObservations: this.totalObservations,
      appliedSequence: this.appliedSequence,
      fallbackBaseline: this.fallbackBaseline ?? null,
      signalScales: Object.fromEntries(this.signalScales),
      parameters: Object.fromEntries(PARAMETER_NAMES.map((name) => [name, this.distribution(name).toJSON()])) as Record<
        ParameterName,
        RobustWeightDistributionJSON
      >,
      contexts: this.contexts.toJSON(),
      profile: this.profile.toJSON(),
      injection: this.injection.toJSON(),
    };
  }

  /** Validates everything; a damaged state throws an error saying what is damaged. */
  static fromJSON(data: unknown, config: Readonly<UpdateConfig> = DEFAULT_UPDATE_CONFIG): AdaptiveState {
    try {
      const record = (data ?? {}) as Partial<Record<keyof AdaptiveStateJSON, unknown>>;
      if (record.version !== 1) throw new RangeError(`unknown version ${JSON.stringify(record.version)}`);
      const count = (value: unknown, name: string) => {
        if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
          throw new RangeError(`${name} must be a non-negative integer`);
        return value;
      };
      const parameters = (record.parameters ?? {}) as Record<string, unknown>;
      const distributions = new Map(
        PARAMETER_NAMES.map((name) => {
          if (parameters[name] === undefined) throw new RangeError(`parameter ${name} is missing`);
          return [name, RobustWeightDistribution.fromJSON(parameters[name])] as const;
        }),
      );
      const state = new AdaptiveState(config, {
        contexts: ContextDiscovery.fromJSON(record.contexts),
        profile: UserWeightProfile.fromJSON(record.profile),
        distributions,
        ...(record.injection !== undefined ? { injection: InjectionArms.fromJSON(record.injection) } : {}),
      });
      state.totalObservations = count(record.totalObservations, "totalObservations");
      state.appliedSequence = count(record.appliedSequence, "appliedSequence");
      const fallback = record.fallbackBaseline;
      if (fallback !== null && (typeof fallback !== "number" || !Number.isFinite(fallback)))
        throw new RangeError("fallbackBaseline must be a finite number or null");
      state.fallbackBaseline = fallback ?? undefined;
      const scales = (record.signalScales ?? {}) as Record<string, unknown>;
      for (const name of PARAMETER_NAMES) {
        const scale = scales[name];
        if (scale === undefined) continue;
        if (typeof scale !== "number" || !(scale > 0) || !Number.isFinite(scale))
          throw new RangeError(`signalScales.${name} must be a positive number`);
        state.signalScales.set(name, scale);
      }
      return state;
    } catch (error) {
      throw new Error(`damaged learning state: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}
