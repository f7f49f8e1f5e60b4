import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSupportedNode, minimumNodeVersion } from "../../bin/node-version.js";
import { packageVersion } from "../../src/cli/package-version.js";
import { runCli, SYLK_BIN } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
  engines: { node: string };
};

/** Runs the built CLI on this Node made to report `version`, as an older or newer Node would. */
function runOnNodeReporting(version: string, args: string[], project: TempProject) {
  const pretend = [
    `Object.defineProperty(process, "version", { value: "v${version}" });`,
    `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "${version}" } });`,
  ].join(" ");
  return spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(pretend)}`, SYLK_BIN, ...args], {
    cwd: project.root,
    env: { ...project.env, CI: "true" },
    encoding: "utf8",
  });
}

let project: TempProject;
beforeEach(() => {
  project = createTempProject({ "a.ts": "export const a = 1;\n" });
});
afterEach(() => project.cleanup());

describe("the Node that sylk runs on", () => {
  it("sylk --version prints the version written in package.json", async () => {
    const run = await runCli(["--version"], { cwd: project.root, env: project.env });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(manifest.version);
    expect(packageVersion()).toBe(manifest.version);
  });

  it("on Node 20 sylk says in one line which Node it needs and exits 1, before loading anything", () => {
    const run = runOnNodeReporting("20.20.2", ["index", "--yes"], project);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe("sylk needs Node.js 22.14.0 or newer (22 or 24 LTS); this is Node.js v20.20.2.\n");
  });

  it("the lowest supported version and newer ones run", () => {
    for (const version of ["22.14.0", "24.21.0", "26.0.0"]) {
      const run = runOnNodeReporting(version, ["--version"], project);
      expect(run.stderr).toBe("");
      expect(run.stdout.trim()).toBe(manifest.version);
    }
  });

  it("the minimum is package.json's engines.node, compared part by part", () => {
    expect(manifest.engines.node).toBe(`>=${minimumNodeVersion().join(".")}`);
    expect(isSupportedNode("22.13.9")).toBe(false);
    expect(isSupportedNode("21.99.0")).toBe(false);
    expect(isSupportedNode("v22.14.0")).toBe(true);
    expect(isSupportedNode("22.20.0")).toBe(true);
    expect(isSupportedNode("100.0.0")).toBe(true);
  });
});
