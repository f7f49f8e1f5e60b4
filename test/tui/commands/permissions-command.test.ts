import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../../helpers/fake-anthropic-server.js";
import { bubblewrap } from "../../helpers/sandboxed-commands.js";
import { createTempProject } from "../../helpers/temp-project.js";
import type { RenderAppOptions, RenderedApp } from "../render-app.js";
import { createAppFixture } from "../app-fixture.js";

/** /permissions: what may run without asking, and rules for this session that never get around what the policy always holds. */

const tui = createAppFixture();

function withModel(options: RenderAppOptions = {}): Promise<RenderedApp> {
  return tui.render({
    files: { "README.md": "# shop\n" },
    consent: true,
    columns: 160,
    ...options,
    env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, ...options.env },
  });
}

describe("/permissions", () => {
  it("lists the mode and each rule with where it came from; session rules are added, checked, kept across /clear, reset, and never kept on disk", async () => {
    const project = createTempProject({ "README.md": "# shop\n" });
    project.write("../.sylkrc", JSON.stringify({ permissions: { allow: ["run_command(npm test*)"] } }));
    let app: RenderedApp | undefined;
    try {
      app = await withModel({ project, env: { SYLK_PERMISSIONS_DENY: '["run_command(rm *)"]' } });
      await app.waitFor("index: fresh");
      await app.submit("/permissions");
      await app.waitFor("For good:");
      expect(app.frame()).toMatch(/Mode: default: writes and commands are asked about\./);
      expect(app.frame()).toMatch(/ {2}deny {3}run_command\(rm \*\) +the environment \(SYLK_PERMISSIONS_DENY\)/);
      expect(app.frame()).toContain(`  allow  run_command(npm test*)  ${project.env.HOME}/.sylkrc`);

      await app.submit("/permissions allow run_command(npm test");
      await app.waitFor('"run_command(npm test" is not a rule: a rule looks like tool, tool(pattern), mcp__server or mcp__server__tool');
      await app.submit("/permissions allow run_comand(*)");
      await app.waitFor("No tool is named run_comand: a rule names one of ");
      await app.submit("/permissions ask run_command(git push*)");
      await app.waitFor("For this session, ask: run_command(git push*).");
      await app.submit("/permissions mode plan");
      await app.waitFor("plan mode for this session: read-only");
      // The status line follows, as after Shift+Tab.
      await app.waitFor(/ · plan mode · /);
      await app.submit("/permissions mode bypass");
      await app.waitFor("Bypass mode is only for a session started in it");

      await app.submit("/clear");
      await app.waitFor("New session.");
      await app.submit("/permissions");
      await app.waitFor("For good:");
      expect(app.frame()).toMatch(/ {2}ask {4}run_command\(git push\*\) +this session/);
      expect(app.frame()).toMatch(/Mode: plan:/);

      await app.submit("/permissions reset");
      await app.waitFor("the mode is default again");
      await app.submit("/permissions");
      await app.waitFor(() => app!.frame().lastIndexOf("Mode: default") > app!.frame().lastIndexOf("the mode is default again"));
      expect(app.frame().slice(app.frame().lastIndexOf("Mode: default"))).not.toContain("git push");

      // A rule of this session is gone with it: the next start has only the configuration's.
      await app.submit("/permissions deny run_command(curl *)");
      await app.waitFor("For this session, deny: run_command(curl *).");
      await app.close();
      app = await withModel({ project });
      await app.waitFor("index: fresh");
      await app.submit("/permissions");
      await app.waitFor("For good:");
      expect(app.frame()).not.toContain("run_command(curl *)");
      expect(app.frame()).toContain("run_command(npm test*)");
    } finally {
      await app?.close();
      project.cleanup();
    }
  });

  it("text the model writes that looks like the command changes nothing: only what the user types reaches the slash commands", async () => {
    tui.server.enqueue(
      reply().text("/permissions allow run_command(*)\n/permissions mode bypass"),
      reply().toolUse("run_command", { command: "touch made-by-model", description: "Touch a file" }),
      reply().text("Stopped."),
    );
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("say the magic words");
    await app.waitFor("/permissions mode bypass");
    await app.submit("now touch it");
    await app.waitFor("Run a command?");
    await app.write("n");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(existsSync(join(app.project.root, "made-by-model"))).toBe(false);
    await app.submit("/permissions");
    await app.waitFor("For good:");
    expect(app.frame()).toContain("none: the mode decides");
    expect(app.frame()).toMatch(/Mode: default:/);
  });
});

describe.skipIf(!bubblewrap.ok)("a session allow of every command", () => {
  it("runs commands unasked, but the sandbox keeps .git/hooks read-only, and a write there is still asked about", async () => {
    const hook = ".git/hooks/pre-commit";
    tui.server.enqueue(
      reply().toolUse("run_command", { command: `echo pwned > ${hook}; echo ran`, description: "Plant a hook" }),
      reply().text("Tried the command."),
      reply().toolUse("write_file", { path: hook, content: "#!/bin/sh\necho pwned\n" }),
      reply().text("Stopped."),
    );
    const app = await withModel();
    execFileSync("git", ["init", "-q"], { cwd: app.project.root });
    await app.waitFor("index: fresh");
    await app.submit("/permissions allow run_command(*)");
    await app.waitFor("For this session, allow: run_command(*).");
    await app.submit("/permissions allow write_file");
    await app.waitFor("For this session, allow: write_file.");

    await app.submit("plant the hook");
    await app.waitFor("Tried the command.");
    expect(app.frames().some((frame) => frame.includes("Run a command?"))).toBe(false);
    expect(existsSync(join(app.project.root, hook))).toBe(false);
    // The command's own output says the sandbox refused the write.
    expect(app.frame()).toMatch(/Read-only file system/);

    await app.submit("write it then");
    await app.waitFor("Change a protected file?");
    await app.write("n");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(existsSync(join(app.project.root, hook))).toBe(false);
  });
});
