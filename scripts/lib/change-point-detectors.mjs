// The classical sequential change detectors for scripts/bench-handoff.mjs:
// CUSUM (Page 1954, in its generalised likelihood-ratio form) and
// Shiryaev–Roberts. Like the Bayes detector of handoff-simulator.mjs they
// know everything about a session but its onset (the plateau, the decline
// rate, the noise, the outlier process, what a handoff costs); unlike it
// they have no prior over where the onset lies: every turn of an instance
// is an equally likely start of the decline. The gap between them and the
// Bayes detector is what the onset prior is worth.
import { observationLogLikelihood, qualityWithOnset, safetyNet } from "./handoff-simulator.mjs";

/**
 * The log-likelihood ratios of "the decline began at the j-th observation of
 * this instance" against "no decline yet", for every j, kept up to date as
 * observations come. The decline is linear in the context size, so a ratio
 * depends on where it began: one running sum per candidate start (a few
 * hundred turns at most, so O(turns) per observation is cheap).
 */
function declineLikelihoods() {
  let session;
  let starts = [];
  let ratios = [];
  return {
    reset(s) {
      session = s;
      starts = [];
      ratios = [];
    },
    add(context, observed) {
      const plateau = observationLogLikelihood(session, session.peak, observed);
      for (let index = 0; index < starts.length; index++) {
        ratios[index] += observationLogLikelihood(session, qualityWithOnset(session, starts[index], context), observed) - plateau;
      }
      // A decline that begins at this observation's size shows from the next one on.
      starts.push(context);
      ratios.push(0);
    },
    ratios: () => ratios,
  };
}

/**
 * A change-detector policy: hands off when `statistic(ratios)` reaches
 * `threshold`, and starts over in the new instance (the statistic has no
 * notion of an onset to remember). It leaves out an instance's first two
 * turns after a handoff, which it knows to be the handoff's cost.
 */
function changeDetectorPolicy(statistic, threshold) {
  const likelihoods = declineLikelihoods();
  let session;
  let instanceTurn;
  let handedOff;
  return {
    start(s) {
      session = s;
      handedOff = false;
      instanceTurn = 0;
      likelihoods.reset(s);
    },
    decide(context) {
      if (statistic(likelihoods.ratios()) >= threshold) {
        handedOff = true;
        instanceTurn = 0;
        likelihoods.reset(session);
        return { kind: "handoff", preparedTokens: 0.25 * session.meanOnset };
      }
      return safetyNet(context);
    },
    observe(context, observed) {
      if (instanceTurn++ < 2 && handedOff) return;
      likelihoods.add(context, observed);
    },
    finish() {},
  };
}

/** CUSUM: the largest log-likelihood ratio over every start of the decline (0 before any). */
export function cusumPolicy(threshold) {
  return changeDetectorPolicy((ratios) => ratios.reduce((best, ratio) => Math.max(best, ratio), 0), threshold);
}

/**
 * Shiryaev–Roberts: the sum of the likelihood ratios over every start,
 * R_n = Σ_k Π_{i=k..n} Λ_i, here with Λ depending on k (a linear decline);
 * the threshold is on log R. A start at the newest observation has seen no
 * turn after it yet and is left out, as in the classical sum.
 */
export function shiryaevRobertsPolicy(logThreshold) {
  const logSum = (ratios) => {
    const started = ratios.slice(0, -1);
    if (started.length === 0) return Number.NEGATIVE_INFINITY;
    const top = Math.max(...started);
    return top + Math.log(started.reduce((total, ratio) => total + Math.exp(ratio - top), 0));
  };
  return changeDetectorPolicy(logSum, logThreshold);
}
