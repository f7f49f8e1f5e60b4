import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBubblewrap, startBubblewrapProbe } from "../../../src/agent/sandbox/bubblewrap.js";

/**
 * A `bwrap` of the test's own on a PATH of its own: it counts its runs in a
 * file and answers as told, so the probe's real spawn paths are exercised
 * without depending on the machine's bubblewrap.
 */
const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function fakeBubblewrap(script: string): { env: NodeJS.ProcessEnv; runs: () => number } {
  const directory = mkdtempSync(join(tmpdir(), "sylk-bwrap-"));
  made.push(directory);
  const counter = join(directory, "runs");
  writeFileSync(counter, "");
  writeFileSync(join(directory, "bwrap"), `#!/bin/sh\necho run >> '${counter}'\n${script}\n`);
  chmodSync(join(directory, "bwrap"), 0o755);
  return {
    env: { PATH: `${directory}:/usr/bin:/bin` },
    runs: () => readFileSync(counter, "utf8").split("\n").filter(Boolean).length,
  };
}

describe("the bubblewrap probe", () => {
  it("started early, answers the sandbox's probe without a second run", async () => {
    const bwrap = fakeBubblewrap("exit 0");
    expect(await startBubblewrapProbe(bwrap.env)).toEqual({ ok: true });
    expect(probeBubblewrap(bwrap.env)).toEqual({ ok: true });
    expect(bwrap.runs()).toBe(1);
  });

  it("says why bubblewrap cannot make a sandbox, the same early or not", async () => {
    const refusing = "echo 'bwrap: No permissions to create new namespace' >&2\nexit 1";
    const expected = {
      ok: false,
      reason: "bubblewrap cannot create a sandbox on this machine (bwrap: No permissions to create new namespace)",
    };
    expect(probeBubblewrap(fakeBubblewrap(refusing).env)).toEqual(expected);
    expect(await startBubblewrapProbe(fakeBubblewrap(refusing).env)).toEqual(expected);
  });

  it("says bubblewrap is not installed when no bwrap is on the PATH, the same early or not", async () => {
    const env = { PATH: mkdtempSync(join(tmpdir(), "sylk-no-bwrap-")) };
    made.push(env.PATH);
    const expected = { ok: false, reason: expect.stringContaining("bubblewrap is not installed") };
    expect(probeBubblewrap(env)).toEqual(expected);
    expect(await startBubblewrapProbe(env)).toEqual(expected);
  });

  it("runs again when the early probe has not answered yet, rather than wait for it", () => {
    const bwrap = fakeBubblewrap("sleep 1; exit 0");
    void startBubblewrapProbe(bwrap.env);
    expect(probeBubblewrap(bwrap.env)).toEqual({ ok: true });
    expect(bwrap.runs()).toBe(2);
  });
});
