import {
  CELL_LOG_MASS,
  cellOnsets,
  meanOnsetOf,
  ONSET_CELLS,
  type PairPosteriorState,
  type SessionTurns,
  sessionTurnsOf,
  turnLogLikelihood,
} from "./pair-posterior.js";

/**
 * One session's joint posterior over (the pair's parameters, the session's onset): the pair posterior's particles,
 * each with its session's onset cells and "never", updated by every turn the session's instances observe
 * (docs/DESIGN-NOTES.md, "The pair's learner"). Its predictive P(onset ≤ x) is what a first instance fires on; a
 * carried instance keeps it (`memory()`: the turns, plain JSON; in process the cells themselves).
 */

/** What a carried instance keeps of the session: the turns its joint posterior has seen, and the pair's clock. */
export interface SessionMemory {
  index: number;
  turns: Array<[number, number]>;
}

const STRIDE = ONSET_CELLS + 1;
/** In process, the joint itself rides with its memory, so a carried instance does not replay the session's turns. */
const live = new WeakMap<SessionMemory, SessionJoint>();

export class SessionJoint {
  private readonly onsets: Float64Array;
  private readonly logWeights: Float64Array;
  private readonly turns: Array<[number, number]>;

  private constructor(
    private readonly pair: PairPosteriorState,
    private readonly index: number,
    onsets: Float64Array,
    logWeights: Float64Array,
    turns: Array<[number, number]>,
  ) {
    this.onsets = onsets;
    this.logWeights = logWeights;
    this.turns = turns;
  }

  /** A session's start: the pair posterior's weights times each particle's onset density, and "never". */
  static start(pair: PairPosteriorState): SessionJoint {
    const count = pair.particles.length;
    const onsets = new Float64Array(count * ONSET_CELLS);
    const logWeights = new Float64Array(count * STRIDE);
    pair.particles.forEach((particle, j) => {
      cellOnsets(particle, pair.sessions, onsets.subarray(j * ONSET_CELLS, (j + 1) * ONSET_CELLS));
      const logWeight = pair.logWeights[j] as number;
      const never = particle[6] as number;
      for (let cell = 0; cell < ONSET_CELLS; cell++)
        logWeights[j * STRIDE + cell] = logWeight + Math.log(1 - never + 1e-300) + (CELL_LOG_MASS[cell] as number);
      logWeights[j * STRIDE + ONSET_CELLS] = logWeight + Math.log(never + 1e-300);
    });
    return new SessionJoint(pair, pair.sessions, onsets, logWeights, []);
  }

  /** The session's joint carried from its previous instance: the same cells in process, else rebuilt from its turns. */
  static resume(pair: PairPosteriorState, memory: SessionMemory): SessionJoint {
    const same = live.get(memory);
    if (same && same.pair === pair) return same.copy();
    const joint = SessionJoint.start({ ...pair, sessions: memory.index });
    for (const [tokens, quality] of memory.turns) joint.add(tokens, quality);
    return joint;
  }

  private copy(): SessionJoint {
    return new SessionJoint(this.pair, this.index, this.onsets, Float64Array.from(this.logWeights), [...this.turns]);
  }

  get observationCount(): number {
    return this.turns.length;
  }

  /** One turn: every cell's weight times its likelihood. */
  add(tokens: number, quality: number): void {
    this.turns.push([tokens, quality]);
    this.pair.particles.forEach((particle, j) => {
      const peak = particle[3] as number;
      const rate = Math.exp(particle[4] as number) / 1000;
      const sd = particle[5] as number;
      const flat = turnLogLikelihood(sd, peak, quality);
      const base = j * STRIDE;
      for (let cell = 0; cell < ONSET_CELLS; cell++) {
        const onset = this.onsets[j * ONSET_CELLS + cell] as number;
        const logLikelihood = onset < tokens ? turnLogLikelihood(sd, Math.max(0, peak - rate * (tokens - onset)), quality) : flat;
        this.logWeights[base + cell] = (this.logWeights[base + cell] as number) + logLikelihood;
      }
      this.logWeights[base + ONSET_CELLS] = (this.logWeights[base + ONSET_CELLS] as number) + flat;
    });
  }

  /** The posterior predictive P(the session's onset ≤ `tokens`), the pair's parameters integrated out. */
  probabilityDegradedBy(tokens: number): number {
    let top = Number.NEGATIVE_INFINITY;
    for (const logWeight of this.logWeights) if (logWeight > top) top = logWeight;
    let total = 0;
    let degraded = 0;
    for (let j = 0; j < this.pair.particles.length; j++) {
      for (let cell = 0; cell <= ONSET_CELLS; cell++) {
        const weight = Math.exp((this.logWeights[j * STRIDE + cell] as number) - top);
        total += weight;
        if (cell < ONSET_CELLS && (this.onsets[j * ONSET_CELLS + cell] as number) <= tokens) degraded += weight;
      }
    }
    return total > 0 ? degraded / total : 0;
  }

  /** The posterior mean of the session's onset, given that it degrades (tokens). */
  meanOnset(): number {
    let top = Number.NEGATIVE_INFINITY;
    for (const logWeight of this.logWeights) if (logWeight > top) top = logWeight;
    let total = 0;
    let sum = 0;
    for (let j = 0; j < this.pair.particles.length; j++) {
      for (let cell = 0; cell < ONSET_CELLS; cell++) {
        const weight = Math.exp((this.logWeights[j * STRIDE + cell] as number) - top);
        total += weight;
        sum += weight * (this.onsets[j * ONSET_CELLS + cell] as number);
      }
    }
    return total > 0 ? sum / total : meanOnsetOf(this.pair.particles[0] ?? [0], this.index);
  }

  /** What the session's next instance starts from. */
  memory(): SessionMemory {
    const memory: SessionMemory = { index: this.index, turns: this.turns.map(([tokens, quality]) => [tokens, quality]) };
    live.set(memory, this.copy());
    return memory;
  }

  /** The session's turns as the pair learns them when it ends. */
  sessionTurns(): SessionTurns {
    return sessionTurnsOf(this.turns, this.index, this.pair.windowTokens);
  }
}
