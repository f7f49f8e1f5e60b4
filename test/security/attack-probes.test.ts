import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { closeOpenLabs, PROBES, probeEnvironment, runProbe } from "../../scripts/lib/security-probes.mjs";

/**
 * Every attack of scripts/bench-security.mjs as a test: each probe attacks the
 * built CLI (bin/sylk.js) with a scripted model in a laboratory of its own and
 * must find the defence held. A probe whose tool (bubblewrap, tmux, git, curl)
 * is missing here is skipped with the reason, never passed.
 */
const environment = probeEnvironment(fileURLToPath(new URL("../..", import.meta.url)));

/** Probes run two at a time (the benchmark's default): the suite's length is mostly waiting on processes. */
const CONCURRENCY = Number(process.env.SYLK_PROBE_CONCURRENCY ?? 2);
/** A probe's own bounds end it within about two minutes; the rest is the wait for a slot. */
const PROBE_TIMEOUT_MS = 420_000;

const slots = semaphore(CONCURRENCY);
// A probe cut by its test's timeout leaves its laboratory open: closed here.
afterAll(() => closeOpenLabs(environment));

describe.concurrent("attack probes against the built CLI", () => {
  for (const probe of PROBES) {
    it(`${probe.id}: ${probe.title}`, { timeout: PROBE_TIMEOUT_MS }, async (context) => {
      const result = await slots.run(() => runProbe(probe, environment));
      if (result.status === "skipped") context.skip(result.detail);
      expect(result.status, result.detail).toBe("held");
    });
  }
});

function semaphore(size: number) {
  let free = Math.max(1, size);
  const waiting: Array<() => void> = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
      else free--;
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else free++;
      }
    },
  };
}
