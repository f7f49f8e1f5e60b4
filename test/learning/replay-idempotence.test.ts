import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdaptiveState } from "../../src/learning/adaptive-state.js";
import type { EpisodeObservation } from "../../src/learning/satisfaction.js";
import { ObservationLog } from "../../src/store/observation-log.js";
import { mulberry32 } from "../helpers/random-vectors.js";

type Episode = Omit<EpisodeObservation, "sequence">;

/** Fixed episodes, so a run with crashes and one without see the same input. */
function episodes(count: number, seed: number): Episode[] {
  const random = mulberry32(seed);
  const sampler = new AdaptiveState();
  return Array.from({ length: count }, (_, i) => {
    const query = `q${i % 5}`;
    const queryEmbedding = [i % 2, (i >> 1) % 2, 1];
    return {
      timestamp: i,
      query,
      queryEmbedding,
      ...sampler.sample(sampler.contexts.classify(query, queryEmbedding), random),
      taskCompleted: random() < 0.7,
      followUps: Math.floor(random() * 2),
      corrections: 0,
      toolCalls: 3,
      userEdits: 0,
      hedging: random() < 0.2,
      prefetchedKeys: ["a", "b", "c", "d", "e"].slice(0, Math.floor(random() * 6)),
      usedKeys: ["a"],
      searchedAfter: random() < 0.3 ? ["x", "y", "z"] : [],
    };
  });
}

/** The one-process reference: every episode applied once. */
function reference(all: Episode[]): AdaptiveState {
  const state = new AdaptiveState();
  all.forEach((e, i) => {
    state.update({ ...e, sequence: i + 1 }, "advantage");
  });
  return state;
}

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-replay-"));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe("replaying the observation log into a saved AdaptiveState", () => {
  it("equals applying every episode once, whatever episode the process died after logging and before saving", () => {
    const all = episodes(40, 5);
    const expected = JSON.stringify(reference(all));
    const random = mulberry32(11);
    for (let trial = 0; trial < 10; trial++) {
      const path = join(directory, `observations-${trial}.log`);
      // Saved state lives in a string, as in the state row; it is saved every `saveEvery` episodes.
      let saved = JSON.stringify(new AdaptiveState());
      const saveEvery = 1 + Math.floor(random() * 4);
      let cursor = 0;
      while (cursor < all.length) {
        // A process: restart from the saved state, replay the log, then go on until it dies.
        const state = AdaptiveState.fromJSON(JSON.parse(saved));
        const log = ObservationLog.open<Episode>(path, state.appliedSequence);
        for (const logged of log.readAfter(state.appliedSequence).entries) state.update(logged, "advantage");
        saved = JSON.stringify(state); // replayed: saved with its position
        const diesAfter = cursor + 1 + Math.floor(random() * 12);
        for (; cursor < all.length; cursor++) {
          const logged = log.append(all[cursor] as Episode);
          if (cursor + 1 === diesAfter) {
            cursor++;
            break; // killed between "log appended" and "state applied and saved"
          }
          state.update(logged, "advantage");
          if (logged.sequence % saveEvery === 0) saved = JSON.stringify(state);
        }
        if (saved !== JSON.stringify(state) && cursor < all.length && random() < 0.3) {
          // Sometimes also replay everything from 0: what the state already holds is skipped.
          for (const logged of log.readAfter(0).entries) state.update(logged, "advantage");
        }
        log.close();
      }
      const final = AdaptiveState.fromJSON(JSON.parse(saved));
      const log = ObservationLog.open<Episode>(path, final.appliedSequence);
      for (const logged of log.readAfter(0).entries) final.update(logged, "advantage");
      log.close();
      expect(JSON.stringify(final)).toBe(expected);
    }
  });
});
