// Sylk's handoff controller in the simulator, for scripts/bench-handoff.mjs:
// the product's own pure code from dist (the degradation detector with its
// onset posterior, the profile statistics and their pooling), driven the way
// HandoffController drives it (src/handoff/session/): when the curve fires,
// the ended instance's summary goes into its (type, model) profile (with
// `memory`, without an onset: the session's last instance gives the
// session's, from everything its chain saw), and the
// next instance starts from the pooled profile and, with `memory`, from the
// previous instance's onset posterior (`onsetMemory()`, as the controller's
// commit passes it on). What is left here is the store: profiles live in a
// Map of sufficient statistics instead of SQLite, learned across the run as
// Sylk learns them across sessions.
import { join } from "node:path";
import { WINDOW, safetyNet } from "./handoff-simulator.mjs";

const dist = new URL("../../dist/src/handoff/", import.meta.url).pathname;
const { DegradationDetector } = await import(join(dist, "degradation-detector.js"));
const { emptyStatistics, pooledProfile, withInstance } = await import(join(dist, "handoff-profile.js"));

/**
 * One controller over a run of sessions. `memory`: each new instance starts
 * from the previous one's onset posterior (the product) or from the profile
 * alone (before); `triggers`: overrides of the product's DEFAULT_TRIGGERS
 * (the calibration's evidence level); `priorShape` and `pooling` as the
 * detector and the profile take them.
 */
export function controllerPolicy({
  random,
  memory = true,
  triggers = {},
  pooling = true,
  priorShape = "learned-onset",
  learning = new Map(),
}) {
  let session;
  let detector;
  const conditions = {};
  const rows = () =>
    [...learning.entries()].map(([key, statistics]) => {
      const [agentType, model] = key.split("/");
      return { agentType, model, statistics };
    });
  const profileNow = () =>
    pooledProfile({ agentType: session.type, model: session.model, windowTokens: WINDOW, rows: rows(), random, pooling });
  // As the controller's endInstance: with memory, an instance that hands off adds no onset, and the session's last adds the session's.
  const learn = (end) => {
    const key = `${session.type}/${session.model}`;
    // Without memory each instance reports its own onset, but one that hands off still does not end its session.
    const own = () => (end === "handoff" ? { ...detector.summary(), handedOff: true } : detector.summary());
    const summary = !memory ? own() : end === "handoff" ? detector.handedOffSummary() : detector.sessionSummary();
    learning.set(key, withInstance(learning.get(key) ?? emptyStatistics(), summary));
  };
  return {
    conditions,
    learning,
    start(s) {
      session = s;
      detector = new DegradationDetector(profileNow(), { triggers, priorShape });
    },
    decide(context) {
      const check = detector.check(context);
      if (!check.fire) return safetyNet(context);
      conditions[check.condition] = (conditions[check.condition] ?? 0) + 1;
      learn("handoff");
      const carried = memory ? detector.onsetMemory() : undefined;
      const profile = profileNow();
      // As the controller: the prepared size is the learned one, never more than the arm's share of the size it fired at.
      const preparedTokens = Math.min(profile.optimalPreparedSize, Math.round(profile.preparedFraction * context));
      detector = new DegradationDetector(profile, {
        preparedFraction: profile.preparedFraction,
        triggers,
        priorShape,
        handedOff: true,
        ...(carried ? { carried } : {}),
      });
      return { kind: "handoff", preparedTokens };
    },
    observe(context, quality) {
      detector.observe(context, quality);
    },
    finish() {
      learn("session_end");
    },
  };
}
