// The floor under a launch, for bench-tui-launch: how long this machine takes
// to start Node in the same pseudo-terminal and print the prompt's text, and
// to draw it with a bare Ink prompt (a bordered box, as the session's input)
// built as Sylk's bundle is built (the same esbuild options and dependency
// patches, scripts/lib/bundle-options.mjs) and started as bin/sylk.js starts
// (the same compile cache). Launch times on shared machines move with the
// machine (Node's own start doubled between two days on one host); the ratio
// of a launch to these floors, taken in one run, is what compares across runs.
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { decodeYogaWithoutFetch, narrowTextShortcut, sharedBuildOptions } from "./bundle-options.mjs";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Writes the two floor programs into `directory` and returns their paths:
 * `plainNode` prints `text`; `bareInk` draws it in a round-bordered Ink box.
 * The bench times the text's arrival and then kills them.
 */
export async function buildLaunchFloors(directory, text) {
  const { build } = await import("esbuild");
  mkdirSync(directory, { recursive: true });
  const plainNode = join(directory, "plain-node.mjs");
  writeFileSync(plainNode, `process.stdout.write(${JSON.stringify(`${text}\n`)});\n`);

  // Resolved from the repository, so the floor draws with the very Ink and React the session bundles.
  const fromRepo = createRequire(join(REPO, "package.json"));
  const entry = join(directory, "bare-ink-entry.mjs");
  writeFileSync(
    entry,
    [
      `import React from ${JSON.stringify(fromRepo.resolve("react"))};`,
      `import { Box, Text, render } from ${JSON.stringify(fromRepo.resolve("ink"))};`,
      "render(",
      '  React.createElement(Box, { borderStyle: "round", paddingX: 1 }, React.createElement(Text, { dimColor: true },',
      `    ${JSON.stringify(text)})),`,
      "  { exitOnCtrlC: false },",
      ");",
      "",
    ].join("\n"),
  );
  const bundleDirectory = join(directory, "bundle");
  await build({
    ...sharedBuildOptions(),
    entryPoints: { "bare-ink": entry },
    outdir: bundleDirectory,
    nodePaths: [join(REPO, "node_modules")],
    external: ["react-devtools-core"], // as in scripts/bundle.mjs: Ink imports it only when DEV=true
    plugins: [decodeYogaWithoutFetch, narrowTextShortcut],
  });
  const bareInk = join(directory, "bare-ink.mjs");
  const compileCache = pathToFileURL(join(REPO, "bin", "compile-cache.js")).href;
  writeFileSync(
    bareInk,
    [
      `const { enableSylkCompileCache } = await import(${JSON.stringify(compileCache)});`,
      "enableSylkCompileCache(process.env);",
      `await import(${JSON.stringify(pathToFileURL(join(bundleDirectory, "bare-ink.js")).href)});`,
      "",
    ].join("\n"),
  );
  return { plainNode, bareInk };
}
