// Processes, randomness and bookkeeping for scripts/bench-faults.mjs.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A seeded generator per scenario, so one scenario's trials do not shift another's. */
export function randomFor(seed, name) {
  let state = (seed ^ [...name].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 16777619), 2166136261)) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The environment of one child: nothing of the caller's Sylk or model settings leaks in. */
export function envFor(home, extra = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(SYLK_|ANTHROPIC_|OPENAI_)/.test(key)) delete env[key];
  return { ...env, HOME: dirname(home), SYLK_HOME: home, CI: "true", NO_COLOR: "1", ...extra };
}

/** Runs the built CLI at `sylk`: `launch` starts it (`lines` fills with stdout's JSON lines as they arrive), `run` waits for it. */
export function sylkCli(sylk) {
  const launch = (args, options) => start(sylk, args, options);
  return { launch, run: (args, options) => start(sylk, args, options).exited };
}

function start(sylk, args, { cwd, env }) {
  const started = performance.now();
  const child = spawn(process.execPath, [sylk, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  const listeners = [];
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    pending += chunk;
    const complete = pending.split("\n");
    pending = complete.pop() ?? "";
    for (const text of complete) {
      let line;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      lines.push(line);
      for (const listener of listeners) listener(line);
    }
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((done) =>
    child.on("close", (code, signal) => done({ code, signal, stdout, stderr, ms: performance.now() - started })),
  );
  return { child, lines, onLine: (listener) => listeners.push(listener), exited };
}

export const tally = (list, key) =>
  list.reduce((counts, item) => {
    counts[item[key]] = (counts[item[key]] ?? 0) + 1;
    return counts;
  }, {});
export const sum = (list, pick) => list.reduce((total, item) => total + (pick(item) || 0), 0);
export const count = (list, pick) => list.filter(pick).length;

/** A small TypeScript project: six files of 80 lines, so that reading one costs ~1,900 tokens. */
export function generateProject(root) {
  mkdirSync(join(root, "src"), { recursive: true });
  for (let file = 0; file < 6; file++) {
    const lines = Array.from(
      { length: 80 },
      (_, line) => `export function handler${file}_${line}(value: number) { return value * ${line} + ${file}; } // step ${line}`,
    );
    writeFileSync(join(root, `src/mod${file}.ts`), `${lines.join("\n")}\n`);
  }
  writeFileSync(join(root, "README.md"), "# Handlers\n\nSix modules of numeric handlers.\n");
}
