#!/usr/bin/env node
// Handoff latency: how long a same-type handoff takes, without the next model call.
// A real project store and the real agent loop talk to a loopback Messages API; the scripted
// model reads generated files turn after turn, and after --turns model calls `/handoff` is
// requested, so the next call hands off. The `handoff` event's duration covers everything the
// handoff does: the prepared context read, the state built and stored, the old instance ended
// and its profile contribution written, the trim (one reference for everything before the
// kept turns) and the new window prepared.
//
//   npm run build && node scripts/bench-handoff-latency.mjs [--sessions 20] [--turns 40,120,300]
//
// Results go to stdout as markdown and to .sylk-bench/handoff-latency.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeMessagesServer } from "./lib/fake-messages-server.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: { sessions: { type: "string", default: "20" }, turns: { type: "string", default: "40,120,300" } },
});
const sessions = Number(values.sessions);
const turnCounts = values.turns.split(",").map(Number);

const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
const { openAgentSession } = await import(join(repo, "dist/src/app/session/open-agent-session.js"));

/** ~600 tokens each, one per turn: the model never reads a file twice, so its quality never degrades and only /handoff hands off. */
const fileText = (index) =>
  `${Array.from({ length: 35 }, (_, line) => `entry ${index}.${line}: ${((index + 1) * 7919 * (line + 3)) % 1_000_003} ok`).join("\n")}\n`;

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const rows = [];
/** The first handoff of the process runs cold (nothing compiled yet), as a user's first handoff of a session does: reported apart. */
let first;
for (const turns of turnCounts) {
  const durations = [];
  for (let run = 0; run < sessions; run++) {
    const base = mkdtempSync(join(tmpdir(), "sylk-handoff-latency-"));
    const root = join(base, "project");
    for (let index = 0; index <= turns; index++) {
      mkdirSync(join(root, "data"), { recursive: true });
      writeFileSync(join(root, "data", `file${index}.txt`), fileText(index));
    }
    let session;
    const server = await startFakeMessagesServer({
      plan: (_body, number) => {
        if (number === turns) session.requestHandoff();
        if (number > turns + 1) return { blocks: [{ type: "text", text: "done" }] };
        return { blocks: [{ type: "tool_use", id: `toolu_${number}`, name: "read_file", input: { path: `data/file${number}.txt` } }] };
      },
    });
    const env = {
      ...process.env,
      HOME: base,
      SYLK_HOME: join(base, "home"),
      ANTHROPIC_API_KEY: "bench",
      ANTHROPIC_BASE_URL: server.baseUrl,
      SYLK_AGENT_MAX_TURNS: String(turns + 10),
      SYLK_CONTEXT_PREFETCH: "false",
      // Window large enough that the token safety net never evicts before the handoff.
      SYLK_CONTEXT_WINDOW_TOKENS: "1000000",
    };
    const services = openProject({ root, env });
    try {
      session = openAgentSession({ services, env });
      const run = session.run("Read every data file and report.", new AbortController().signal);
      for (let step = await run.next(); !step.done; step = await run.next()) {
        if (step.value.type !== "handoff") continue;
        if (first === undefined) first = step.value.durationMs;
        else durations.push(step.value.durationMs);
      }
      session.close();
    } finally {
      await services.close();
      await server.close();
      rmSync(base, { recursive: true, force: true });
    }
  }
  durations.sort((a, b) => a - b);
  rows.push({ turns, handoffs: durations.length, p50: quantile(durations, 0.5), p95: quantile(durations, 0.95), max: durations.at(-1) });
}

const format = (ms) => `${ms.toFixed(2)} ms`;
console.log("| turns before the handoff | handoffs | p50 | p95 | max |");
console.log("| ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) console.log(`| ${row.turns} | ${row.handoffs} | ${format(row.p50)} | ${format(row.p95)} | ${format(row.max)} |`);
console.log(`\nThe process's first handoff (cold: nothing compiled yet): ${format(first)}.`);
mkdirSync(join(repo, ".sylk-bench"), { recursive: true });
writeFileSync(join(repo, ".sylk-bench", "handoff-latency.json"), JSON.stringify({ sessions, first, rows }, null, 2));
