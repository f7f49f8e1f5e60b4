import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectConfigReport } from "../../src/app/config-report.js";
import { loadConfig } from "../../src/config/load-config.js";
import { gatedSettingsHash, withoutTrustGatedKeys } from "../../src/config/trust-gated-keys.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** /config: each setting with where it came from, the files read, whether the project's gated settings count, and how to change them. */

let project: TempProject;
beforeEach(() => {
  project = createTempProject();
  project.write("../.sylkrc", JSON.stringify({ agent: { maxTurns: 40 }, model: { name: "claude-opus-4-1" } }));
  project.write(".sylkrc", JSON.stringify({ model: { name: "claude-sonnet-4-5" }, permissions: { allow: ["run_command(npm test*)"] } }));
});
afterEach(() => project.cleanup());

function report(env: NodeJS.ProcessEnv = project.env, trusted = false): string[] {
  const trust = trusted
    ? {
        projectTrust: {
          trusted: true,
          settingsHash: gatedSettingsHash(withoutTrustGatedKeys({ permissions: { allow: ["run_command(npm test*)"] } }).ignored),
        },
      }
    : {};
  const loaded = loadConfig({ projectRoot: project.root, env, ...trust });
  return projectConfigReport(loaded, project.root, env);
}

const line = (lines: string[], key: string) => lines.find((text) => text.startsWith(`  ${key} `));

describe("the /config report", () => {
  it("names where each setting came from: a default, the user's file, the project's, the environment", () => {
    const lines = report({ ...project.env, SYLK_CONTEXT_PREFETCH: "false" });
    const user = `${project.env.HOME}/.sylkrc`;
    const own = `${project.root}/.sylkrc`;
    expect(line(lines, "model.provider")).toMatch(/anthropic +· default$/);
    expect(line(lines, "model.name")).toMatch(new RegExp(`claude-sonnet-4-5 +· ${own}$`));
    expect(line(lines, "agent.maxTurns")).toMatch(new RegExp(`40 +· ${user}$`));
    expect(line(lines, "context.prefetch")).toMatch(/false +· environment$/);
    expect(line(lines, "permissions.allow")).toMatch(/\(none\) +· default$/);
    expect(lines).toContain(`  user     ${user} (read)`);
  });

  it("names where Sylk keeps its data and where the bundled example is", () => {
    const lines = report();
    expect(lines).toContain(`  data     ${project.env.SYLK_HOME} (indexes, conversations, trust decisions)`);
    expect(lines.find((text) => text.startsWith("  example  "))).toMatch(
      /^ {2}example {2}\/.*\/\.sylkrc\.example \(`sylk config --example` prints it\)$/,
    );
  });

  it("says the project's gated settings are ignored in an untrusted folder, and honoured once it is trusted with them", () => {
    const untrusted = report();
    expect(untrusted).toContain(
      `  project  ${project.root}/.sylkrc (read; permissions.allow ignored: the folder is not trusted with them (see below))`,
    );
    expect(untrusted.join("\n")).toContain("this folder is not trusted, so these settings");
    const trusted = report(project.env, true);
    expect(trusted).toContain(`  project  ${project.root}/.sylkrc (read; permissions.allow honoured: you trusted this folder with them)`);
    expect(line(trusted, "permissions.allow")).toMatch(/run_command\(npm test\*\) +· .*\/project\/\.sylkrc$/);
    expect(trusted).not.toContain("Warnings:");
  });

  it("says how to change them, for good and for this session", () => {
    const text = report().join("\n");
    expect(text).toContain("~/.sylkrc for every project, .sylkrc here for this one");
    expect(text).toContain("`sylk trust .`");
    expect(text).toContain("SYLK_<SECTION>_<KEY>");
    expect(text).toContain("In a session: /model <name>, /permissions");
  });
});
