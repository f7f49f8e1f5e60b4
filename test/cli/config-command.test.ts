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

  it("says which files it reads, which exist, where Sylk keeps its data and where the example is", async () => {
    const result = await runCli(["config"], { cwd: project.root, env: project.env });
    expect(result.code, result.stderr).toBe(0);
    const home = project.env.HOME as string;
    expect(result.stdout).toContain(`your settings:     ${join(home, ".sylkrc")} (none)\n`);
    expect(result.stdout).toContain(`project settings:  ${join(project.root, ".sylkrc")}\n`);
    expect(result.stdout).toContain(`Sylk's data:       ${project.env.SYLK_HOME}\n`);
    expect(result.stdout).toMatch(/^example: +\/.*\/\.sylkrc\.example \(sylk config --example prints it\)$/m);
  });
});
