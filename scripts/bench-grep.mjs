#!/usr/bin/env node
// The grep tool's speed on ordinary patterns.
//
//   npm run build && node scripts/bench-grep.mjs [--root <project>] [--rounds 20] [--processes 8] [--compare <checkout>]
//
// Runs the real `grep` tool through a `ToolRegistry` (bypass mode, as the agent loop calls it) over
// the project (this repository by default) for a few everyday patterns: a name that is nowhere, a
// common word, a word class with a group, an alternation, and a case-insensitive word.
//   in a session: the same tool called again and again in one process (after one warm-up call);
//   first call: the first grep of a new process (`sylk ask`), in --processes fresh processes, one
//     second after the tool was made (the session opens, the model answers; the session starts
//     grep's thread meanwhile, as `openAgentSession` does).
// Each line gives the wall time (median, fastest) and the CPU time of all the process's threads
// (median), in milliseconds: on a loaded machine the CPU time is the steadier figure.
// --compare <checkout>: another built checkout (the main branch, say: `npm run build` there) is
// measured too, round by round in turn with this one, so that both see the same machine load.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);
const repo = resolve(self, "../..");
const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
};
const root = resolve(argument("root", repo));
const rounds = Number(argument("rounds", "20"));
const processes = Number(argument("processes", "8"));
const compare = argument("compare", undefined);

const PATTERNS = [
  { pattern: "createUserAccount\\(" },
  { pattern: "import" },
  { pattern: "function (\\w+)\\(" },
  { pattern: "TODO|FIXME|XXX" },
  { pattern: "error", ignore_case: true },
];

/** A checkout's grep as a session makes it. */
async function grepOf(checkout) {
  const tools = await import(`${checkout}/dist/src/agent/tools/grep.js`);
  const { ToolRegistry } = await import(`${checkout}/dist/src/agent/tools/tool-registry.js`);
  const { PermissionPolicy } = await import(`${checkout}/dist/src/agent/permissions/permission-policy.js`);
  let tool = tools.grepTool; // before tools were made per session, grep was one module-wide definition
  if (tools.createGrepTool) {
    const { GrepThread } = await import(`${checkout}/dist/src/agent/tools/grep-thread.js`);
    const thread = new GrepThread();
    thread.warmUp();
    tool = tools.createGrepTool(thread);
  }
  const registry = new ToolRegistry([tool], new PermissionPolicy("bypass"));
  return (input) => registry.run({ id: "bench", name: "grep", input: { ...input, max_results: 2000 } }, { root, signal: new AbortController().signal, extraDirectories: [] });
}

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function measure(grep, input) {
  const [wall, cpu] = [performance.now(), cpuMs()];
  const result = await grep(input);
  if (result.isError) throw new Error(`grep failed: ${result.output}`);
  return { wall: performance.now() - wall, cpu: cpuMs() - cpu, lines: result.output.startsWith("No matches") ? 0 : result.output.split("\n").filter((line) => /^\S.*:\d+: /.test(line)).length };
}

// A fresh process's first call: `--one <checkout> <pattern json>` prints its measurement as JSON.
if (process.argv[2] === "--one") {
  const grep = await grepOf(process.argv[3]);
  await new Promise((done) => setTimeout(done, 1_000));
  console.log(JSON.stringify(await measure(grep, JSON.parse(process.argv[4]))));
  process.exit(0);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const summary = (samples) =>
  `wall median ${median(samples.map((s) => s.wall)).toFixed(1).padStart(6)} ms, min ${Math.min(...samples.map((s) => s.wall)).toFixed(1).padStart(6)} ms, ` +
  `CPU median ${median(samples.map((s) => s.cpu)).toFixed(1).padStart(6)} ms`;

const checkouts = [repo, ...(compare ? [resolve(compare)] : [])];
const greps = await Promise.all(checkouts.map(grepOf));
console.log(`grep over ${root}: ${rounds} calls in a session, ${processes} first calls of a new process, per pattern and checkout`);
for (const input of PATTERNS) {
  const session = checkouts.map(() => []);
  const first = checkouts.map(() => []);
  for (const grep of greps) await grep(input);
  for (let round = 0; round < Math.max(rounds, processes); round++) {
    for (const [index, checkout] of checkouts.entries()) {
      if (round < rounds) session[index].push(await measure(greps[index], input));
      if (round < processes) {
        const child = spawnSync(process.execPath, [self, "--one", checkout, JSON.stringify(input), "--root", root], { encoding: "utf8" });
        if (child.status !== 0) throw new Error(`the first-call process failed: ${child.stderr}`);
        first[index].push(JSON.parse(child.stdout));
      }
    }
  }
  const name = `/${input.pattern}/${input.ignore_case ? "i" : ""}`;
  for (const [index, checkout] of checkouts.entries()) {
    const label = `${name.padEnd(22)} ${(checkout === repo ? "this" : checkout).slice(-14).padEnd(14)}`;
    console.log(`${label} in a session: ${summary(session[index])}; ${session[index][0].lines} lines`);
    console.log(`${label} first call:   ${summary(first[index])}`);
  }
}
