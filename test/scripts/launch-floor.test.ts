import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildLaunchFloors } from "../../scripts/lib/launch-floor.mjs";

const directory = mkdtempSync(join(tmpdir(), "sylk-launch-floor-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("the launch floor bench-tui-launch compares a launch with", () => {
  it("builds a plain Node program and a bare Ink prompt that each draw the prompt's text", async () => {
    const text = "Ask anything";
    const { plainNode, bareInk } = await buildLaunchFloors(directory, text);
    const plain = spawnSync(process.execPath, [plainNode], { encoding: "utf8", timeout: 30_000 });
    expect(plain.stdout).toBe(`${text}\n`);
    // The bare Ink prompt draws its box and ends (nothing reads the keyboard outside a terminal).
    const ink = spawnSync(process.execPath, [bareInk], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, XDG_CACHE_HOME: join(directory, "cache") },
    });
    expect(ink.status, ink.stderr).toBe(0);
    expect(ink.stdout).toContain(text);
    expect(ink.stdout).toContain("╭"); // the round border, drawn by Ink's layout (yoga, as Sylk bundles it)
  });
});
