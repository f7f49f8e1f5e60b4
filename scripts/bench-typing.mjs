#!/usr/bin/env node
// Typing with a large paste in the prompt: the real `node bin/sylk.js` runs in a 120x40
// pseudo-terminal made by util-linux `script` (as in bench-tui-launch.mjs), a bracketed paste of
// --lines lines goes into the prompt, then keys are typed one at a time; each sample is the time
// from writing the key until the screen shows everything typed so far. The same typing into the empty
// prompt first gives a baseline for the machine at that moment. Nothing is sent to a model
// and nothing is written to the repository.
//
//   node scripts/bench-typing.mjs --tree <dir> [--lines 2000] [--keys 30] [--key-interval-ms 100]
//                                 [--home <SYLK_HOME to reuse>] [--sylk <bin/sylk.js to measure>]
//
// --tree is the project sylk opens (required; it is indexed first, so no consent question is asked).
// --sylk measures another build, e.g. one made from an earlier commit, for a before/after comparison.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { launchInTerminal, quit, requireScriptCommand, waitForText } from "./lib/pseudo-terminal.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    lines: { type: "string", default: "2000" },
    keys: { type: "string", default: "30" },
    "key-interval-ms": { type: "string", default: "100" },
    home: { type: "string" },
    sylk: { type: "string" },
  },
});
const SYLK = values.sylk ? resolve(values.sylk) : fileURLToPath(new URL("../bin/sylk.js", import.meta.url));
const PROMPT_READY = "Ask anything";
const LAST_LINE = "end of the pasted text";
const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";
if (!values.tree) {
  console.error("Usage: node scripts/bench-typing.mjs --tree <dir> [--lines 2000] [--keys 30] [--sylk <bin/sylk.js>]");
  process.exit(2);
}
requireScriptCommand("bench-typing");

/** What a terminal sends for a paste: the text between the bracketed-paste markers, line breaks as CR. */
function pasteOf(lineCount) {
  const lines = Array.from(
    { length: lineCount - 1 },
    (_, index) => `${String(index + 1).padStart(5)}  const value${index} = compute(input, ${index}); // pasted`,
  );
  return PASTE_START + [...lines, LAST_LINE].join("\r") + PASTE_END;
}

async function echoLatencies(session, count, intervalMs) {
  const samples = [];
  let typed = "";
  for (let index = 0; index < count; index++) {
    const character = "qwertyuiopasdfghjklzxcvbnm"[index % 26];
    typed += character;
    const from = session.output.length;
    const sent = performance.now();
    session.child.stdin.write(character);
    const shown = await waitForText(session, typed.slice(-12), from, 60_000);
    samples.push(shown - sent);
    await sleep(intervalMs);
  }
  return summary(samples);
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1)) };
}

const round = (value) => Math.round(value * 10) / 10;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const home = values.home ?? mkdtempSync(join(tmpdir(), "sylk-bench-typing-"));
  const env = { ...process.env, ANTHROPIC_API_KEY: "", SYLK_HOME: home };
  delete env.CI; // Ink draws only the last frame under CI.
  try {
    console.log(`indexing ${values.tree} first (sylk index)…`);
    const indexed = spawnSync(process.execPath, [SYLK, "index", "--yes", values.tree], { env, stdio: ["ignore", "ignore", "inherit"] });
    if (indexed.status !== 0) throw new Error(`sylk index failed (${indexed.status})`);

    const session = launchInTerminal(SYLK, values.tree, env);
    await waitForText(session, PROMPT_READY);
    await waitForText(session, "index: fresh");
    await sleep(500);

    // The same typing with an empty prompt first: what the machine gives without the paste.
    const baseline = await echoLatencies(session, Number(values.keys), Number(values["key-interval-ms"]));
    console.log(
      `keystroke → echo, empty prompt (baseline):     p50 ${baseline.p50} ms, p95 ${baseline.p95} ms, max ${baseline.max} ms (n=${baseline.n})`,
    );
    session.child.stdin.write("\u0015"); // Ctrl-U: clear what was typed
    await sleep(500);

    const lineCount = Number(values.lines);
    const from = session.output.length;
    const pasted = performance.now();
    session.child.stdin.write(pasteOf(lineCount));
    const shown = await waitForText(session, ["[Pasted text", LAST_LINE], from);
    console.log(`paste of ${lineCount} lines → shown in the prompt: ${round(shown - pasted)} ms`);
    await sleep(1_000);

    const echo = await echoLatencies(session, Number(values.keys), Number(values["key-interval-ms"]));
    console.log(
      `keystroke → echo with the paste in the prompt:   p50 ${echo.p50} ms, p95 ${echo.p95} ms, max ${echo.max} ms (n=${echo.n})`,
    );
    await quit(session);
  } finally {
    if (!values.home) rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
