import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject({ ".sylkrc": "{}\n" });
});
afterEach(() => project.cleanup());

const EXAMPLE = join(import.meta.dirname, "../../.sylkrc.example");

describe("sylk config", () => {
  it("--example prints the bundled .sylkrc.example byte for byte", async () => {
    const result = await runCli(["config", "--example"], { cwd: project.root, env: project.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(readFileSync(EXAMPLE, "utf8"));
  });

  it("prints /config's report: each setting with where it came from, the files read, where Sylk keeps its data and where the example is", async () => {
    project.write(".sylkrc", JSON.stringify({ agent: { maxTurns: 12 }, sandbox: { network: true } }));
    const result = await runCli(["config"], { cwd: project.root, env: { ...project.env, SYLK_CONTEXT_PREFETCH: "false" } });
    expect(result.code, result.stderr).toBe(0);
    const home = project.env.HOME as string;
    const own = join(project.root, ".sylkrc");
    expect(result.stdout).toMatch(/^Settings \(value · where it came from\):$/m);
    expect(result.stdout).toMatch(new RegExp(`^ {2}agent\\.maxTurns +12 +· ${own}$`, "m"));
    expect(result.stdout).toMatch(/^ {2}context\.prefetch +false +· environment$/m);
    // Untrusted: the project's sandbox setting is not in effect, and the report says why.
    expect(result.stdout).toMatch(/^ {2}sandbox\.network +false +· default$/m);
    expect(result.stdout).toContain(`  project  ${own} (read; sandbox.network ignored: the folder is not trusted with them (see below))\n`);
    expect(result.stdout).toContain(`  user     ${join(home, ".sylkrc")} (none)\n`);
    expect(result.stdout).toContain(`  data     ${project.env.SYLK_HOME} (indexes, conversations, trust decisions)\n`);
    expect(result.stdout).toMatch(/^ {2}example {2}\/.*\/\.sylkrc\.example \(`sylk config --example` prints it\)$/m);
    expect(result.stdout).toContain("To change them:");
  });
});
