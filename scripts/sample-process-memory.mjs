#!/usr/bin/env node
// Where a process's resident memory is, over time: runs a command and reads
// its /proc files every --every ms until it ends, printing one JSON line per
// sample to --out and a summary of the sample at the peak to stderr.
//
//   node scripts/sample-process-memory.mjs --out <samples.jsonl> [--every 200] [--stdout <file>] -- <command> [args…]
//
// Each sample holds /proc/<pid>/status (VmRSS, VmHWM, RssAnon, RssFile),
// the resident memory of the process's mappings by kind (from
// /proc/<pid>/smaps: the main malloc arena `[heap]`, other threads' malloc
// arenas (anonymous 64 MB reservations), WebAssembly memories (anonymous
// reservations of several GB, which is how V8 bounds-checks them), V8's heap
// pages and other anonymous memory, SQLite's files (database, -wal, -shm),
// other files (code)), CPU seconds per thread name (/proc/<pid>/task/*/stat),
// and the last `phase` the command printed as a JSON line on stdout (what
// `sylk index --json` prints). Threads share one address space, so memory
// is per process; the kinds say whose it is.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { threadCpuByName } from "./lib/proc-stats.mjs";

const separator = process.argv.indexOf("--");
if (separator < 0) {
  console.error("Usage: node scripts/sample-process-memory.mjs --out <file> [--every ms] -- <command> [args…]");
  process.exit(2);
}
const { values } = parseArgs({
  args: process.argv.slice(2, separator),
  options: { out: { type: "string" }, every: { type: "string", default: "200" }, stdout: { type: "string" } },
});
const [command, ...args] = process.argv.slice(separator + 1);
const out = values.out;
if (!out || !command) throw new Error("--out and a command are needed");
writeFileSync(out, "");

const MB = 1024 * 1024;
const WASM_RESERVATION_BYTES = 1024 * MB;
const ARENA_BYTES = 64 * MB;

function kindOf(path, sizeBytes) {
  if (path === "[heap]") return "mallocMain";
  if (/\.db(-wal|-shm)?$|-journal$/.test(path)) return "sqliteFiles";
  if (path.startsWith("/")) return "otherFiles";
  if (path.startsWith("[")) return "otherAnon";
  if (sizeBytes >= WASM_RESERVATION_BYTES) return "wasm";
  // A whole arena reservation in one mapping; an arena split into its rw part and its ---p rest is joined in `mappings`.
  if (sizeBytes === ARENA_BYTES) return "mallocArenas";
  return "anon";
}

/** glibc's thread arenas are a 64 MB reservation split into an rw part and a ---p rest: join the pairs by their start. */
function mappings(pid) {
  const text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  const kinds = {};
  const largest = [];
  let current;
  let currentSize = 0;
  let arenaStart = -1;
  for (const line of text.split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const start = Number.parseInt(header[1], 16);
      const end = Number.parseInt(header[2], 16);
      const path = header[3] ?? "";
      let kind = kindOf(path, end - start);
      // An arena's reservation is aligned to 64 MB: its first part starts on the boundary.
      if (kind === "anon" && path === "" && start % ARENA_BYTES === 0 && end - start < ARENA_BYTES) {
        kind = "mallocArenas";
        arenaStart = start;
      } else if (kind === "anon" && arenaStart >= 0 && start < arenaStart + ARENA_BYTES && path === "") {
        kind = "mallocArenas";
      }
      current = kind;
      currentSize = end - start;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) {
      kinds[current] = (kinds[current] ?? 0) + Number(rss[1]) / 1024;
      if (Number(rss[1]) >= 8192)
        largest.push({ kind: current, sizeMB: Math.round(currentSize / MB), rssMB: Math.round(Number(rss[1]) / 1024) });
    }
  }
  largest.sort((a, b) => b.rssMB - a.rssMB);
  return { kinds, largest: largest.slice(0, 12) };
}

function status(pid) {
  const fields = {};
  for (const line of readFileSync(`/proc/${pid}/status`, "utf8").split("\n")) {
    const match = /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads):\s+(\d+)/.exec(line);
    if (match) fields[match[1]] = match[1] === "Threads" ? Number(match[2]) : Number(match[2]) / 1024;
  }
  return fields;
}

const started = performance.now();
const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
let phase = "starting";
let pending = "";
if (values.stdout) writeFileSync(values.stdout, "");
child.stdout.on("data", (data) => {
  if (values.stdout) appendFileSync(values.stdout, data);
  pending += data.toString();
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    try {
      const event = JSON.parse(line);
      if (event.phase) phase = event.type === "progress" ? `${event.phase} ${event.indexed}/${event.total}` : event.phase;
      else if (event.type) phase = event.type;
    } catch {
      // Not JSON: not an event.
    }
  }
});

let peak;
const timer = setInterval(() => {
  try {
    const memory = status(child.pid);
    // An exiting process (a zombie) still has a status file, without its memory
    // lines, and an empty smaps: such a read is not a sample.
    if (memory.VmRSS === undefined) return;
    const sample = {
      t: Math.round(performance.now() - started),
      phase,
      ...memory,
      ...mappings(child.pid),
      cpu: threadCpuByName(child.pid),
    };
    if (Object.keys(sample.kinds).length === 0) return;
    appendFileSync(out, `${JSON.stringify(sample)}\n`);
    if (!peak || sample.VmRSS > peak.VmRSS) peak = sample;
  } catch {
    // The process ended between two reads.
  }
}, Number(values.every));

child.on("exit", (code) => {
  clearInterval(timer);
  const round = (record) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, Math.round(value)]));
  if (peak)
    console.error(
      JSON.stringify({
        peakAt: peak.t,
        phase: peak.phase,
        VmRSS: Math.round(peak.VmRSS),
        RssAnon: Math.round(peak.RssAnon),
        RssFile: Math.round(peak.RssFile),
        kinds: round(peak.kinds),
      }),
    );
  process.exit(code ?? 1);
});
