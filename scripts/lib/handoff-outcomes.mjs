// What a policy did in each simulated session, for scripts/bench-handoff.mjs:
// its crossings of the onset (a session's first, and the later ones after
// each handoff, apart), its firings before the onset, and the quality the
// session ran at.
import { AGENT_TYPES, MODELS, makeSession, makeWorld, mulberry32, runSession } from "./handoff-simulator.mjs";

/** A crossing with no firing in this many turns, when the session went on that long, is missed. */
export const MISS_TURNS = 10;

/** The sessions of one seed, in order: every policy meets the same ones. */
export function sessionsOf(seed, count) {
  const world = makeWorld(seed);
  const random = mulberry32(seed * 7919 + 1);
  const sessions = [];
  for (let index = 0; index < count; index++) {
    const type = AGENT_TYPES[Math.floor(random() * AGENT_TYPES.length)];
    const model = MODELS[Math.floor(random() * MODELS.length)];
    sessions.push(makeSession(world, random, type, model, index / count));
  }
  return sessions;
}

/**
 * One session's firings against its onset. A firing (a handoff; for the
 * token policy, its first eviction) decided below the onset is early (a
 * false firing); one at or past it ends a crossing, with its delay in turns
 * from the first decision at or past the onset. The session's first
 * crossing is the first time its context reaches the onset; the later ones
 * come after a handoff brought the context back below it.
 */
export function crossingsOf(session, records, firingKind) {
  const first = [];
  const later = [];
  const earlyAt = []; // how far toward the onset each early firing came (degrading sessions only)
  let early = 0;
  let crossedAt;
  const crossed = (delay) => (first.length === 0 && later.length === 0 ? first : later).push(delay);
  for (const record of records) {
    if (crossedAt === undefined && record.decidedAt >= session.onset) crossedAt = record.turn;
    if (record.action !== firingKind) continue;
    if (record.decidedAt < session.onset) {
      early++;
      if (Number.isFinite(session.onset)) earlyAt.push(record.decidedAt / session.onset);
    } else crossed(record.turn - crossedAt);
    crossedAt = undefined;
    if (firingKind === "evict") break; // the token policy's first eviction is its firing
  }
  // Never fired after a crossing although the session went on: missed (an infinite delay).
  if (crossedAt !== undefined && records.length - crossedAt >= MISS_TURNS) crossed(Number.POSITIVE_INFINITY);
  return { first, later, early, earlyAt };
}

export const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
export const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * Runs one policy over the sessions; `firingKind` is what counts as its
 * firing ("handoff", or "evict" for the token policy).
 */
export function runPolicy(sessions, policy, firingKind) {
  const result = { quality: [], first: [], later: [], early: [], earlyAt: [], neverDegraded: 0, neverDegradedFired: 0, handoffs: 0 };
  for (const session of sessions) {
    const records = runSession(session, policy);
    result.quality.push(mean(records.map((record) => record.quality)));
    const crossings = crossingsOf(session, records, firingKind);
    result.first.push(...crossings.first);
    result.later.push(...crossings.later);
    result.early.push(crossings.early);
    result.earlyAt.push(...crossings.earlyAt);
    result.handoffs += records.filter((record) => record.action === "handoff").length;
    if (!session.degrades) {
      result.neverDegraded++;
      if (records.some((record) => record.action === firingKind)) result.neverDegradedFired++;
    }
  }
  return summarise(result, sessions.length);
}

/**
 * "False-firing sessions" counts a session once whatever its false firings:
 * one before the onset in a degrading session, or any in a session that
 * never degrades (whose onset is infinite, so every firing is before it).
 */
function summarise(result, sessionCount) {
  const missed = (delays) => delays.filter((delay) => !Number.isFinite(delay)).length;
  const finite = (delays) => delays.filter(Number.isFinite);
  return {
    firstMedian: percentile(finite(result.first), 50),
    firstP90: percentile(result.first, 90),
    firstCount: result.first.length,
    firstMissed: missed(result.first),
    laterMedian: percentile(finite(result.later), 50),
    laterP90: percentile(result.later, 90),
    laterCount: result.later.length,
    laterMissed: missed(result.later),
    falseFiringSessions: result.early.filter((count) => count > 0).length / sessionCount,
    earlyPerSession: mean(result.early),
    earlyAtMedian: percentile(result.earlyAt, 50),
    neverDegradedFired: result.neverDegradedFired / Math.max(result.neverDegraded, 1),
    handoffsPerSession: result.handoffs / sessionCount,
    quality: mean(result.quality),
  };
}
