/**
 * Rate limiting with a reserve: per session, each
 * kind of saving has a cap, and `reserve` checks and counts in one step, so
 * two saves under way at once can never both take the last slot. In
 * JavaScript one synchronous step is atomic (no other code runs in between),
 * which is what a mutex would buy in a language with threads.
 */
const LIMITED_KINDS = ["knowledge", "learnings", "skills"] as const;
export type LimitedKind = (typeof LIMITED_KINDS)[number];

export class SessionLimits {
  private readonly used: Record<LimitedKind, number> = { knowledge: 0, learnings: 0, skills: 0 };

  constructor(private readonly caps: Readonly<Record<LimitedKind, number>>) {}

  /** Takes a slot if one is left; false when the cap is reached. */
  reserve(kind: LimitedKind): boolean {
    if (this.used[kind] >= this.caps[kind]) return false;
    this.used[kind] += 1;
    return true;
  }

  /** Gives back a slot whose save failed. */
  release(kind: LimitedKind): void {
    this.used[kind] = Math.max(0, this.used[kind] - 1);
  }

  count(kind: LimitedKind): number {
    return this.used[kind];
  }

  cap(kind: LimitedKind): number {
    return this.caps[kind];
  }
}
