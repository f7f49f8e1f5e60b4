import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, SYLK_BIN } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

const RECORDER = fileURLToPath(new URL("../helpers/record-module-loads.mjs", import.meta.url));

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

/**
 * What a command loads, by package: the bundle's chunks name the packages
 * bundled into them (`// node_modules/zod/…`), and a package left outside
 * the bundle is resolved by its own name.
 */
async function packagesLoadedBy(args: string[], context: TempProject, env = context.env): Promise<Set<string>> {
  const log = join(context.sylkHome, `modules-${Date.now()}.log`);
  appendFileSync(log, "");
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", RECORDER, SYLK_BIN, ...args], {
      cwd: context.root,
      env: { ...env, CI: "true", NO_COLOR: "1", SYLK_TEST_MODULE_LOG: log },
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
  expect(code).toBe(0);
  const packages = new Set<string>();
  for (const url of readFileSync(log, "utf8").split("\n")) {
    if (!url.startsWith("file:")) continue;
    const path = fileURLToPath(url);
    const outside = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (outside) packages.add(outside[1] as string);
    if (!path.includes("/dist/bundle/") || !existsSync(path)) continue;
    for (const bundled of readFileSync(path, "utf8").matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm))
      packages.add(bundled[1] as string);
  }
  return packages;
}

const SCREEN_AND_MODELS = ["ink", "react", "@anthropic-ai/sdk", "openai"];

describe("what a command loads at start-up", () => {
  it("loads neither zod, YAML nor string-width to print the version or answer a one-shot search", async () => {
    project = createTempProject({ "src/parse.ts": "export function parseBinding(text: string) {\n  return text.trim();\n}\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);
    // Nothing configured: no settings file and no SYLK_<SECTION>_ variable (the tests' own pin one).
    const env = Object.fromEntries(Object.entries(project.env).filter(([name]) => !/^SYLK_[A-Z]+_/.test(name)));
    for (const args of [["--version"], ["search", "parse binding"]]) {
      const loaded = await packagesLoadedBy(args, project, env);
      expect(loaded.has("commander"), args.join(" ")).toBe(true);
      // string-width builds an Intl.Segmenter as it loads (some 25 ms); the commands' output never measures tabs.
      for (const name of ["zod", "yaml", "string-width", ...SCREEN_AND_MODELS])
        expect(loaded.has(name), `${args.join(" ")} loads ${name}`).toBe(false);
    }
  });

  it("sylk index loads no screen or model client, and tree-sitter only when a file is to be parsed", async () => {
    project = createTempProject({ "src/parse.ts": "export function parseBinding(text: string) {\n  return text.trim();\n}\n" });
    expect((await runCli(["index", "--yes"], { cwd: project.root, env: project.env })).code).toBe(0);

    const fresh = await packagesLoadedBy(["index"], project);
    for (const name of ["web-tree-sitter", "piscina", "yaml", ...SCREEN_AND_MODELS])
      expect(fresh.has(name), `a fresh index loads ${name}`).toBe(false);

    appendFileSync(join(project.root, "src/parse.ts"), "export const edited = true;\n");
    const oneFile = await packagesLoadedBy(["index"], project);
    // The one file is parsed on the main thread: no worker pool.
    expect(oneFile.has("web-tree-sitter")).toBe(true);
    for (const name of ["piscina", "yaml", ...SCREEN_AND_MODELS]) expect(oneFile.has(name), `a one-file index loads ${name}`).toBe(false);
  });
});
