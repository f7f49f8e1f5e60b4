#!/usr/bin/env node
// The bundled CLI (scripts/bundle.mjs): start-up reads a few files instead of thousands.
import { isSupportedNode, minimumNodeVersion } from "./node-version.js";

// Checked before the bundle loads: on an older Node it would fail with an
// error that does not say what is wrong.
if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(
    `sylk needs Node.js ${minimumNodeVersion().join(".")} or newer (22 or 24 LTS); this is Node.js ${process.version}.\n`,
  );
  process.exit(1);
}

// The launch frame's prompt, painted before the bundle, React and Ink load; the launch frame takes it over.
const { launchesSession, paintLaunchPrompt } = await import("./first-paint.js");
const args = process.argv.slice(2);
// Only the session's launch touches the terminal here: another command's stdin (a pipe, a file) is its own.
const firstPaint = launchesSession(args)
  ? paintLaunchPrompt({ args, stdin: process.stdin, stdout: process.stdout, env: process.env })
  : undefined;
try {
  // Only now: an older Node may not have the compile cache at all.
  const { enableSylkCompileCache } = await import("./compile-cache.js");
  enableSylkCompileCache(process.env);
  const { main } = await import("../dist/bundle/main.js");
  process.exitCode = await main(process.argv, firstPaint ? { firstPaint } : {});
} finally {
  // Whatever did not take the paint over (an error, the bundle failing to load) leaves the terminal as it was.
  firstPaint?.release();
}
