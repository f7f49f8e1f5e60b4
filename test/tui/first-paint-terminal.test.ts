import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import { runCli } from "../helpers/run-cli.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason, type TmuxTerminal } from "../helpers/tmux-terminal.js";

/**
 * The first paint, in a real terminal: `bin/sylk.js` draws the prompt
 * before the CLI's bundle loads, and every key typed into it reaches the
 * session in order. A module hook holds the bundle's entry back for
 * `BUNDLE_DELAY_MS`, so all that happens while the CLI has not loaded, and
 * the old code, which drew nothing before the bundle, cannot pass. (On
 * Node 22 and 24 a hook's wait holds the main thread too, as loading a
 * large module does, so the paint cannot echo meanwhile: its echo is
 * tested in first-paint.test.ts.)
 */
const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping the first paint in a real terminal: ${unavailable}`);

const BUNDLE_DELAY_MS = 8_000;
/** Well inside the delay: what shows by then was drawn before the CLI loaded. */
const BEFORE_THE_BUNDLE_MS = 6_000;

const fixture = createTerminalFixture();
const hookDirectories: string[] = [];
afterEach(() => {
  for (const directory of hookDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** NODE_OPTIONS that hold the bundle's entry module back, as a slow disk or a cold cache would. */
function bundleHeldBack(): string {
  const directory = mkdtempSync(join(tmpdir(), "sylk-bundle-delay-"));
  hookDirectories.push(directory);
  writeFileSync(
    join(directory, "hooks.mjs"),
    `export async function load(url, context, nextLoad) {
  if (url.endsWith("/dist/bundle/main.js")) await new Promise((resolve) => setTimeout(resolve, ${BUNDLE_DELAY_MS}));
  return nextLoad(url, context);
}
`,
  );
  writeFileSync(join(directory, "register.mjs"), `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`);
  return `--import=${join(directory, "register.mjs")}`;
}

async function launch(files: Record<string, string>): Promise<{ project: TempProject; terminal: TmuxTerminal }> {
  const project = fixture.project(files);
  expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
  const terminal = fixture.start([], {
    cwd: project.root,
    env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color", NODE_OPTIONS: bundleHeldBack() },
  });
  return { project, terminal };
}

describe.skipIf(unavailable !== undefined)("the prompt painted before the CLI loads, in a real terminal", () => {
  it("is drawn before the bundle has loaded, and the session applies every key typed into it, in order", async () => {
    const { terminal: shown } = await launch({ "src/a.ts": "export const alpha = 1;\n" });
    await shown.waitFor("Ask anything · /help for commands", BEFORE_THE_BUNDLE_MS);
    expect(shown.visibleScreen()).toContain("opening the project…");
    // Keys with editing keys among them, as a fast typist's reach a busy program, all while the bundle is held
    // back; they reach the prompt in one read, so the line ends with the one Enter (more text after a line break
    // in one read is taken for a paste, KeySplitter).
    shown.sendBurst(["gone", "C-u", "abcd", "BSpace", "BSpace", "X"]);
    shown.sendBurst(["Enter"]);

    // The session's screen: the line was sent as typed (the transcript shows it as the user's).
    await shown.waitFor(/^ > abX\s*$/m, 60_000);
    await shown.waitFor("index: fresh", 30_000);
    // The screen with its scrollback: nothing of the paint was left above the session either.
    const screen = shown.screen();
    expect(screen).not.toContain("gone");
    // The paint's lines left no copy behind: one prompt box on the screen, the session's.
    expect(screen.match(/❯/g)).toHaveLength(1);
    expect(screen).not.toContain("opening the project");
  }, 120_000);

  it("keeps the keys typed into it from answering the trust question that comes first", async () => {
    const { project, terminal: shown } = await launch({
      "src/a.ts": "export const a = 1;\n",
      ".sylkrc": JSON.stringify({ permissions: { allow: ["run_command(*)"] } }),
    });
    const { root, sylkHome } = project;
    await shown.waitFor("Ask anything", BEFORE_THE_BUNDLE_MS);
    // "y" would trust the folder, were it taken for the answer.
    shown.send("y", { literal: true });
    await shown.waitFor("Trust this folder?", 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(new FolderTrustStore(sylkHome).decisionFor(realpathSync(root))).toBeUndefined();
    expect(shown.visibleScreen()).not.toContain("Ask anything");
    shown.send("n", { literal: true });
    // The key typed before the question is the prompt's, once the session opens.
    await shown.waitFor("index: fresh", 60_000);
    expect(shown.visibleScreen()).toMatch(/❯ y\s*│/);
    expect(new FolderTrustStore(sylkHome).decisionFor(realpathSync(root))).toMatchObject({ trusted: false });
  }, 120_000);

  it("is erased, and the terminal given back, when the CLI stops with an error before the session", async () => {
    const project = fixture.project({ "a.txt": "a\n" });
    // A Sylk home inside the project is refused before the launch frame is drawn.
    const terminal = fixture.start([], {
      cwd: project.root,
      env: { ...project.env, SYLK_HOME: join(project.root, ".sylk-home"), TERM: "xterm-256color", NODE_OPTIONS: bundleHeldBack() },
    });
    await terminal.waitFor("Ask anything", BEFORE_THE_BUNDLE_MS);
    // The process ends: nothing is left reading the terminal.
    await terminal.waitFor(/sylk exited \d+/, 60_000);
    const screen = terminal.visibleScreen();
    expect(screen).toMatch(/SYLK_HOME \(.*\) is inside the project/);
    expect(screen).not.toContain("Ask anything");
    expect(screen).not.toContain("╭");
    expect(screen).toContain("sylk exited 52");
  }, 120_000);
});
