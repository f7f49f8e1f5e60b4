#!/usr/bin/env node
// How quickly the TUI is usable on a large repository:
//   1. launch → interactive prompt, with the index already fresh (`sylk index` runs first); then a word
//      typed the moment it appears, until it is shown; then the session open ("index: fresh"). Alternated
//      with this machine's floor (Node printing the prompt's text; a bare Ink prompt built and
//      started as Sylk is, scripts/lib/launch-floor.mjs), whose ratio compares across days;
//   2. keystroke → echo on screen while a cold index runs in the background (and, for comparison, when idle).
// The real `node bin/sylk.js` runs in a pseudo-terminal made by util-linux `script`, so Ink draws
// exactly as in a terminal; times are taken when the bytes arrive. Nothing is written to the repo.
//
// BENCH_EXTRA_ENV='{"SYLK_INDEX_WORKER_THREADS":"2"}' adds settings to the launched sylk.
//
//   node scripts/bench-tui-launch.mjs --tree <dir> [--launches 5] [--keys 40] [--home <SYLK_HOME to reuse>] [--only launch|echo]
//
// --tree is a checkout of a large repository (required); docs/BENCHMARKS.md uses biomejs/biome at 18883b7d.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildLaunchFloors } from "./lib/launch-floor.mjs";
import { launchInTerminal, quit, requireScriptCommand, waitForText } from "./lib/pseudo-terminal.mjs";

const { values } = parseArgs({
  options: {
    tree: { type: "string" },
    launches: { type: "string", default: "5" },
    keys: { type: "string", default: "40" },
    "key-interval-ms": { type: "string", default: "150" },
    /** Reuse this SYLK_HOME for the warm index (kept); by default a temporary one is made and removed. */
    home: { type: "string" },
    /** Run just one part: "launch" or "echo". */
    only: { type: "string" },
  },
});
const REPO = fileURLToPath(new URL("..", import.meta.url));
const SYLK = join(REPO, "bin/sylk.js");
const PROMPT_READY = "Ask anything";
const TYPED_AT_FIRST_FRAME = "hello";
if (!values.tree) {
  console.error("Usage: node scripts/bench-tui-launch.mjs --tree <dir> [--launches 5] [--keys 40] (a checkout of a large repository)");
  process.exit(2);
}

requireScriptCommand("bench-tui-launch");

/** Types one character at a time; each sample is the time until the prompt shows all typed so far. */
async function echoLatencies(session, count, intervalMs, label) {
  const samples = [];
  let typed = "";
  for (let index = 0; index < count; index++) {
    const character = "qwertyuiopasdfghjklzxcvbnm"[index % 26];
    typed += character;
    const from = session.output.length;
    const sent = performance.now();
    session.child.stdin.write(character);
    const shown = await waitForText(session, typed.slice(-12), from, 10_000);
    samples.push(shown - sent);
    await sleep(intervalMs);
  }
  // Clear the prompt again (Ctrl-U) so the typed text is not sent.
  session.child.stdin.write("\u0015");
  return { label, ...summary(samples) };
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1)) };
}

const round = (value) => Math.round(value * 10) / 10;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const tree = values.tree;
  const baseEnv = {
    ...process.env,
    ANTHROPIC_API_KEY: "",
    ...(process.env.BENCH_EXTRA_ENV ? JSON.parse(process.env.BENCH_EXTRA_ENV) : {}),
  };
  delete baseEnv.CI; // Ink draws only the last frame under CI.

  // 1. Launch to prompt, index fresh.
  const warmHome = values.home ?? mkdtempSync(join(tmpdir(), "sylk-bench-tui-"));
  const coldHome = mkdtempSync(join(tmpdir(), "sylk-bench-tui-cold-"));
  const floorDirectory = mkdtempSync(join(tmpdir(), "sylk-bench-tui-floor-"));
  try {
    const env = { ...baseEnv, SYLK_HOME: warmHome };
    console.log(`indexing ${tree} first (sylk index)…`);
    const indexed = spawnSync(process.execPath, [SYLK, "index", "--yes", tree], { env, stdio: ["ignore", "ignore", "inherit"] });
    if (indexed.status !== 0) throw new Error(`sylk index failed (${indexed.status})`);

    const launches = [];
    const floors = { plainNode: [], bareInk: [] };
    const runLaunches = values.only !== "echo";
    const runEcho = values.only !== "launch";
    const floorPrograms = runLaunches ? await buildLaunchFloors(join(floorDirectory, "programs"), PROMPT_READY) : undefined;
    // Round 0 warms every program's compile cache and is not counted; then the three alternate, run by run.
    for (let run = 0; floorPrograms && run <= Number(values.launches); run++) {
      const counted = run > 0;
      for (const [name, program] of Object.entries(floorPrograms)) {
        const session = launchInTerminal(program, tree, env);
        const shown = await waitForText(session, PROMPT_READY);
        if (counted) floors[name].push(shown - session.started);
        session.child.kill("SIGKILL");
        await new Promise((resolve) => session.child.once("exit", resolve));
      }
      const session = launchInTerminal(SYLK, tree, env);
      const prompt = await waitForText(session, PROMPT_READY);
      // A word typed the moment the prompt appears: the prompt is usable when it shows what was typed.
      const typedFrom = session.output.length;
      session.child.stdin.write(TYPED_AT_FIRST_FRAME);
      const echoed = await waitForText(session, TYPED_AT_FIRST_FRAME, typedFrom);
      const fresh = await waitForText(session, "index: fresh");
      if (counted) launches.push({ prompt: prompt - session.started, echoed: echoed - session.started, fresh: fresh - session.started });
      await sleep(300);
      // Ctrl-U: the word is not left in the prompt for the Ctrl-C of quit to clear.
      session.child.stdin.write("\u0015");
      await quit(session);
    }
    if (runLaunches) {
      const prompt = summary(launches.map((run) => run.prompt));
      const echoed = summary(launches.map((run) => run.echoed));
      const fresh = summary(launches.map((run) => run.fresh));
      const plainNode = summary(floors.plainNode);
      const bareInk = summary(floors.bareInk);
      console.log(`\nlaunch → interactive prompt (fresh index, ${launches.length} runs): p50 ${prompt.p50} ms, max ${prompt.max} ms`);
      console.log(`launch → a word typed at the prompt's first frame shown: p50 ${echoed.p50} ms, max ${echoed.max} ms`);
      console.log(`launch → "index: fresh" confirmed (the session open):   p50 ${fresh.p50} ms, max ${fresh.max} ms`);
      console.log("the floor on this machine, alternated with those launches in the same terminal:");
      console.log(`  Node printing the prompt's text:                     p50 ${plainNode.p50} ms, max ${plainNode.max} ms`);
      console.log(`  a bare Ink prompt, built and started as Sylk is:     p50 ${bareInk.p50} ms, max ${bareInk.max} ms`);
      console.log(`launch over the bare Ink prompt: ${(prompt.p50 / bareInk.p50).toFixed(2)}× (p50 over p50)`);
      // The first paint (bin/first-paint.js) draws before any module of the CLI loads: Node itself is its floor.
      console.log(`launch over Node printing the prompt's text: ${(prompt.p50 / plainNode.p50).toFixed(2)}× (p50 over p50)`);
      console.log(`a word typed at the first frame, shown, over the bare Ink prompt: ${(echoed.p50 / bareInk.p50).toFixed(2)}×`);
    }
    if (!runEcho) return;

    // 2. Keystroke echo during a cold index, then when idle.
    const cold = launchInTerminal(SYLK, tree, { ...baseEnv, SYLK_HOME: coldHome });
    await waitForText(cold, "Index this project?");
    await sleep(200);
    cold.child.stdin.write("1");
    await waitForText(cold, "Indexing [");
    const during = await echoLatencies(cold, Number(values.keys), Number(values["key-interval-ms"]), "during cold index");
    const stillIndexing = !cold.output.slice(-4000).includes("index: fresh");
    console.log(
      `keystroke → echo ${during.label}: p50 ${during.p50} ms, p95 ${during.p95} ms, max ${during.max} ms (n=${during.n}` +
        `${stillIndexing ? ", index still running at the end" : ", index finished during sampling"})`,
    );
    await quit(cold);

    const idle = launchInTerminal(SYLK, tree, env);
    await waitForText(idle, "index: fresh");
    await sleep(500);
    const quiet = await echoLatencies(idle, Number(values.keys), Number(values["key-interval-ms"]), "idle");
    console.log(
      `keystroke → echo ${quiet.label}:             p50 ${quiet.p50} ms, p95 ${quiet.p95} ms, max ${quiet.max} ms (n=${quiet.n})`,
    );
    await quit(idle);
  } finally {
    if (!values.home) rmSync(warmHome, { recursive: true, force: true });
    rmSync(coldHome, { recursive: true, force: true });
    rmSync(floorDirectory, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
