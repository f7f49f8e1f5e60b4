import type { AgentHandoffProfile } from "./handoff-profile.js";

/** m(x): the plateau up to the onset, then the learned decline (floored at 0); x in thousands of tokens. */
export function priorMeanOf(profile: AgentHandoffProfile): (kiloTokens: number) => number {
  const onsetKilo = profile.onsetTokens / 1000;
  return (kiloTokens) =>
    kiloTokens <= onsetKilo
      ? profile.peakQuality
      : Math.max(0, profile.peakQuality - profile.declineRatePerKiloToken * (kiloTokens - onsetKilo));
}
