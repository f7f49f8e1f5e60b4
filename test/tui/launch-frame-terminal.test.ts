import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

/**
 * The launch frame, in a real terminal: the prompt is drawn before the
 * session opens, and what is typed there is kept. The session waits for the
 * sandbox's probe before its screen replaces the frame; a `bwrap` on the PATH
 * that takes three seconds to answer holds the frame up for that long, so
 * the keys below are typed while it is the frame that reads them.
 */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping the launch frame in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
const binDirectories: string[] = [];
afterEach(() => {
  for (const directory of binDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const OPENING = "opening the project…";

/** A `bwrap` that logs each run and answers after three seconds, as a slow machine's might. */
function slowBubblewrap(): { path: string; runs: () => number } {
  const bin = mkdtempSync(join(tmpdir(), "sylk-slow-bwrap-"));
  binDirectories.push(bin);
  const log = join(bin, "runs.log");
  writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho run >> '${log}'\nsleep 3\nexit 0\n`);
  chmodSync(join(bin, "bwrap"), 0o755);
  return {
    path: `${bin}:${process.env.PATH ?? ""}`,
    runs: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0),
  };
}

async function openWithSlowProbe(files: Record<string, string>, args: string[] = []) {
  const project = fixture.project(files);
  expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
  const bwrap = slowBubblewrap();
  const terminal = fixture.start(args, {
    cwd: project.root,
    env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color", PATH: bwrap.path },
  });
  await terminal.waitFor(OPENING, 60_000);
  return { terminal, bwrap };
}

describe.skipIf(unavailable !== undefined)("the prompt before the session, in a real terminal", () => {
  it("keeps a line sent and a draft typed before the session opened, and sends the line once it has", async () => {
    const { terminal: shown, bwrap } = await openWithSlowProbe({ "src/a.ts": "export const alpha = 1;\n" });
    shown.send("where is alpha", { literal: true });
    await shown.waitFor(/❯ where is alpha\s*│/, 10_000);
    shown.send("Enter");
    await shown.waitFor(/queued: where is alpha/, 10_000);
    shown.send("draft", { literal: true });
    await shown.waitFor(/❯ draft\s*│/, 10_000);
    // All of it while the frame was up: the session's screen has no "opening" line.
    expect(shown.visibleScreen()).toContain(OPENING);

    // The session's screen: the queued line was sent (the transcript shows it as the user's), the draft stayed.
    await shown.waitFor(/^ > where is alpha\s*$/m, 30_000);
    await shown.waitFor("index: fresh", 30_000);
    expect(shown.visibleScreen()).toMatch(/❯ draft\s*│/);
    expect(shown.visibleScreen()).not.toContain(OPENING);
    // The session took the probe started before the frame: bwrap ran once, not again in front of the screen.
    expect(bwrap.runs()).toBe(1);
  }, 120_000);

  it("leaves at once on Ctrl-D, and says a usage error where the frame was", async () => {
    const { terminal: left } = await openWithSlowProbe({ "a.txt": "a\n" });
    left.send("C-d");
    await left.waitFor("sylk exited 0", 30_000);
    expect(left.screen()).not.toContain("saved; continue it with");
    left.close();

    const { terminal: refused } = await openWithSlowProbe({ "a.txt": "a\n" }, ["--agent", "nobody"]);
    await refused.waitFor(/sylk exited \d+/, 30_000);
    const screen = refused.visibleScreen();
    expect(screen).toContain('Unknown agent "nobody"');
    expect(screen).not.toContain("Ask anything");
    expect(screen).not.toContain(OPENING);
  }, 120_000);

  it("says what opening the project found in the transcript, not over the screen", async () => {
    const { terminal: shown } = await openWithSlowProbe({ "a.txt": "a\n", ".sylkrc": '{ "noSuchSetting": 1 }\n' });
    await shown.waitFor("index: fresh", 30_000);
    const screen = shown.visibleScreen();
    expect(screen).toMatch(/has settings this Sylk does not know, which are ignored: noSuchSetting/);
    // Said once, under the banner, with the session's screen drawn whole below it.
    expect(screen.indexOf("Sylk —")).toBeLessThan(screen.indexOf("noSuchSetting"));
    expect(screen.match(/noSuchSetting/g)).toHaveLength(1);
    expect(screen).not.toContain("sylk: ");
  }, 120_000);
});
