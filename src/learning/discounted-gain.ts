/**
 * A belief about a per-episode gain that keeps only recent evidence: a
 * normal posterior whose evidence (a weighted mean and mean square) loses
 * a share of its weight every episode, whether or not the episode added a
 * gain (discounted Thompson sampling). Evidence that stops coming does not
 * stay certain: its weight shrinks, the posterior widens, and a choice
 * drawn from it is checked again.
 *
 * The spread of one episode's gain is not known either: it has a prior worth
 * a few episodes, pooled with the evidence's own spread, so one episode, or a
 * few alike, never makes the posterior near-certain.
 */
export interface DiscountedGainJSON {
  weight: number;
  mean: number;
  meanSquare: number;
}

export interface GainPrior {
  /** The gain without evidence, and how sure of it (its standard deviation). */
  mean: number;
  sd: number;
  /** The spread one episode's gain is taken to have, and how many episodes that guess is worth. */
  episodeSd: number;
  episodeSdWeight: number;
  /** How much of its weight evidence keeps per episode. */
  memory: number;
}

export class DiscountedGain {
  private weight = 0;
  private mean = 0;
  private meanSquare = 0;

  constructor(private readonly prior: Readonly<GainPrior>) {}

  /** One episode passed: its evidence, if any, is added after this. */
  decay(): void {
    this.weight *= this.prior.memory;
  }

  add(value: number): void {
    this.weight += 1;
    const share = 1 / this.weight;
    this.mean += share * (value - this.mean);
    this.meanSquare += share * (value * value - this.meanSquare);
  }

  /** Normal prior, normal evidence with a spread pooled from its prior and the evidence's own. */
  posterior(): { mean: number; sd: number } {
    const { mean: priorMean, sd: priorSd, episodeSd, episodeSdWeight } = this.prior;
    const priorPrecision = 1 / priorSd ** 2;
    if (this.weight === 0) return { mean: priorMean, sd: priorSd };
    const ownVariance = Math.max(0, this.meanSquare - this.mean * this.mean);
    const variance = (episodeSdWeight * episodeSd ** 2 + this.weight * ownVariance) / (episodeSdWeight + this.weight);
    const precision = priorPrecision + this.weight / variance;
    return { mean: (priorMean * priorPrecision + (this.weight * this.mean) / variance) / precision, sd: Math.sqrt(1 / precision) };
  }

  /** How many episodes' worth of evidence the belief holds now. */
  evidence(): number {
    return this.weight;
  }

  toJSON(): DiscountedGainJSON {
    return { weight: this.weight, mean: this.mean, meanSquare: this.meanSquare };
  }

  /** Throws a RangeError naming the damaged field under `name`. */
  static fromJSON(data: unknown, prior: Readonly<GainPrior>, name: string): DiscountedGain {
    const record = (data ?? {}) as Record<string, unknown>;
    const finite = (field: string, low = Number.NEGATIVE_INFINITY) => {
      const value = record[field];
      if (typeof value !== "number" || !Number.isFinite(value) || value < low)
        throw new RangeError(`${name}.${field} is not a valid number`);
      return value;
    };
    const gain = new DiscountedGain(prior);
    gain.weight = finite("weight", 0);
    gain.mean = finite("mean");
    gain.meanSquare = finite("meanSquare", 0);
    return gain;
  }
}
