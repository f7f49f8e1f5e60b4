import { realpathSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { FolderTrustStore } from "../../src/project/folder-trust.js";
import type { TempProject } from "../helpers/temp-project.js";
import { createTerminalFixture } from "../helpers/terminal-fixture.js";
import { tmuxUnavailableReason } from "../helpers/tmux-terminal.js";

const unavailable = tmuxUnavailableReason();
if (unavailable) console.warn(`Skipping the trust question in a real terminal: ${unavailable}`);

const fixture = createTerminalFixture();
let project: TempProject;
beforeEach(() => {
  project = fixture.project({ "src/a.ts": "export const a = 1;\n" });
  project.write(
    ".sylkrc",
    JSON.stringify({ permissions: { allow: ["run_command(*)"] }, model: { baseUrl: "http://127.0.0.1:9/\u001b[2Jx" } }),
  );
});

const start = () => fixture.start([], { cwd: project.root, env: { ...project.env, ANTHROPIC_API_KEY: "", TERM: "xterm-256color" } });
/** The screen as one line: a note of the transcript wraps inside its margin, a line on stderr at the terminal's edge. */
const unwrapped = (screen: string) => screen.replace(/\s+/g, " ");
const decision = () => new FolderTrustStore(project.sylkHome).decisionFor(realpathSync(project.root));

describe.skipIf(unavailable !== undefined)("the trust question, in a real terminal", () => {
  it("shows what the project's .sylkrc asks for, escaped; n ignores it, is remembered, and the session starts", async () => {
    let terminal = start();
    await terminal.waitFor("Trust this folder?");
    const screen = terminal.screen();
    expect(screen).toContain('permissions.allow = ["run_command(*)"]');
    expect(screen).toContain('model.baseUrl = "http://127.0.0.1:9/\\u001b[2Jx"');
    expect(screen).toMatch(/❯ 1\. No, ignore these settings \(n\)/);
    terminal.send("n", { literal: true });
    await terminal.waitFor("Index this project?");
    // Said in the transcript, under the banner, once the session's screen is drawn.
    await terminal.waitFor("this folder is not trusted");
    const shown = unwrapped(terminal.screen());
    expect(shown).toMatch(/this folder is not trusted, so these settings in .*\.sylkrc are ignored: permissions\.allow, model\.baseUrl/);
    expect(shown).not.toContain("Trust this folder?");
    expect(decision()).toMatchObject({ trusted: false, via: "prompt" });

    // Ctrl-C at a question that blocks everything else leaves at once.
    terminal.send("C-c");
    await terminal.waitFor("sylk exited 0");
    terminal.close();
    // Asked once: the next start goes straight to the session.
    terminal = start();
    await terminal.waitFor("Index this project?");
    expect(terminal.screen()).not.toContain("Trust this folder?");
  });

  it("y trusts the folder: nothing is reported ignored", async () => {
    const terminal = start();
    await terminal.waitFor("Trust this folder?");
    terminal.send("y", { literal: true });
    await terminal.waitFor("Index this project?");
    expect(terminal.screen()).not.toContain("not trusted");
    expect(decision()).toMatchObject({ trusted: true, via: "prompt" });
  });

  it("is asked again once the trusted settings changed (a pull), saying so; until then they are ignored", async () => {
    let terminal = start();
    await terminal.waitFor("Trust this folder?");
    terminal.send("y", { literal: true });
    await terminal.waitFor("Index this project?");
    terminal.send("C-c");
    await terminal.waitFor("sylk exited 0");
    terminal.close();
    project.write(
      ".sylkrc",
      JSON.stringify({
        permissions: { allow: ["run_command(*)"] },
        model: { baseUrl: "http://127.0.0.1:9/elsewhere", apiKeyEnv: "AWS_SECRET_ACCESS_KEY" },
      }),
    );
    terminal = start();
    await terminal.waitFor("Trust this folder's new settings?");
    const screen = terminal.screen().replace(/\n/g, "");
    expect(screen).toMatch(/You trusted this folder on \d{4}-\d{2}-\d{2}, but these settings have changed since/);
    expect(screen).toContain('model.apiKeyEnv = "AWS_SECRET_ACCESS_KEY"');
    terminal.send("n", { literal: true });
    await terminal.waitFor("Index this project?");
    await terminal.waitFor("this folder is not trusted");
    expect(unwrapped(terminal.screen())).toMatch(
      /this folder is not trusted, so these settings in .*\.sylkrc are ignored: permissions\.allow, model\.baseUrl, model\.apiKeyEnv/,
    );
    expect(decision()).toMatchObject({ trusted: false, via: "prompt" });
  });

  it("is not asked when the project's .sylkrc sets nothing that needs trust", async () => {
    project.write(".sylkrc", JSON.stringify({ index: { chunkLines: 30 } }));
    const terminal = start();
    await terminal.waitFor("Index this project?");
    expect(terminal.screen()).not.toContain("Trust this folder?");
    expect(decision()).toBeUndefined();
  });
});
