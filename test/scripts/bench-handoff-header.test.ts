import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/bench-handoff.mjs", import.meta.url));
const run = promisify(execFile);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sylk-bench-handoff-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A few sessions of one calibration seed and one other: the header is what is tested, not the figures. */
async function header(extra: string[]): Promise<string[]> {
  const args = [SCRIPT, "--calibration-seeds", "10", "--seeds", "11", "--sessions", "4", "--only", "bayesRemembered,oracle"];
  const { stdout } = await run(process.execPath, [...args, "--report-calibration", "false", "--out", join(dir, "out.json"), ...extra]);
  return stdout.split("\n").slice(0, 2);
}

describe("bench-handoff's printed header", () => {
  it("says that levels read from --thresholds were not chosen by the bench's per-seed rule", async () => {
    const levels = join(dir, "levels.json");
    writeFileSync(levels, JSON.stringify({ calibrationSeeds: [10], thresholds: { bayesRemembered: 0.9622 }, calibration: {} }));
    const [seeds, rule] = await header(["--thresholds", levels]);
    expect(seeds).toBe("Calibration seeds 10; unseen seeds 11; 4 sessions each.");
    // Before, the header read "false-firing target ≤ 5.0 % of sessions on every calibration seed" whatever chose the levels.
    expect(rule).toContain("Levels given by --thresholds, used as they are, not chosen by that rule: bayesRemembered");
    expect(rule).not.toMatch(/on every calibration seed \(/);
  });

  it("names the detectors whose levels this run calibrated by that rule", async () => {
    const [, rule] = await header([]);
    expect(rule).toContain("at most 5.0 % of sessions firing early on every calibration seed (bayesRemembered).");
    expect(rule).not.toContain("Levels given by --thresholds");
  });
});
