import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { firstIndexProcessStart, SEPARATE_INDEX_PROCESS_ABOVE_FILES } from "./first-index-process.js";
import type { ForegroundWork } from "../indexer/foreground-work.js";
import { SESSION_PAUSE_LINE, SESSION_RESUME_LINE } from "../indexer/index-pause.js";
import { emptyIndexSummary, type IndexProgress, type IndexSummary } from "../indexer/project-indexer.js";
import { sylkPackageRoot } from "../package-root.js";
import type { ProjectServices } from "./project-services.js";

/** What `sylk index --for-session` reports while it runs, as the session shows it. */
export type IndexProcessEvent =
  | { type: "progress"; progress: IndexProgress }
  | { type: "waiting"; holderPid: number }
  | { type: "notice"; text: string }
  | { type: "embedding"; embedded: number; remaining: number };

/** Runs a whole indexing pass somewhere else and reports it; `runIndexProcess` by default. */
export type SeparateIndexRun = (signal: AbortSignal, onEvent: (event: IndexProcessEvent) => void) => Promise<IndexSummary>;

const count = z.number().int().nonnegative();
const progressEvent = z.object({
  type: z.literal("progress"),
  phase: z.enum(["scanning", "indexing", "saving", "complete"]),
  indexed: count,
  total: count,
  failed: count,
  elapsedMs: z.number(),
});
const summaryEvent = z.object({
  type: z.literal("summary"),
  before: z.enum(["missing", "fresh", "stale"]),
  scanned: count,
  added: count,
  changed: count,
  deleted: count,
  indexed: count,
  unchangedContent: count,
  skipped: count,
  failed: count,
  chunks: count,
  failures: z.array(z.object({ path: z.string(), reason: z.string() })),
  unindexable: z.object({
    count,
    examples: z.array(z.object({ path: z.string(), reason: z.enum(["fifo", "socket", "device", "name-not-utf8"]) })),
  }),
  repairedFullText: z.array(z.object({ index: z.enum(["code", "history", "knowledge"]), part: z.string(), problem: z.string() })),
  interrupted: z.boolean(),
  durationMs: z.number(),
});
const indexEvent = z.discriminatedUnion("type", [
  progressEvent,
  summaryEvent,
  z.object({ type: z.literal("waiting"), pid: z.number().int() }),
  z.object({ type: z.literal("notice"), text: z.string() }),
  z.object({ type: z.literal("embedding"), embedded: count, remaining: count }),
]);

/**
 * How a long-lived process that keeps the index fresh (the TUI, `sylk mcp
 * serve`) hands its large passes to a `sylk index` process, for its
 * `BackgroundIndexing`.
 */
export function indexProcessHandOff(
  services: Pick<ProjectServices, "paths" | "codeFullText" | "foregroundWork">,
  env: NodeJS.ProcessEnv,
  handOffAbove = SEPARATE_INDEX_PROCESS_ABOVE_FILES,
): { handOffAbove: number; run: SeparateIndexRun } {
  return {
    handOffAbove,
    run: async (signal, onEvent) => {
      try {
        return await runIndexProcess({ root: services.paths.root, env, foreground: services.foregroundWork }, signal, onEvent);
      } finally {
        // Loaded by a search meanwhile, the code index would take what that process indexed one document at a time.
        services.codeFullText.unload();
      }
    },
  };
}

/** How much of the process's stderr an error quotes. */
const STDERR_TAIL_CHARS = 2_000;

/**
 * Indexes the project in a `sylk index` process of its own and reports its
 * events. The interactive session hands it the large runs (a first index):
 * every file's text and terms then pass through that process on their way
 * to SQLite and the full-text index, and are gone with it, instead of
 * growing the heap of the process that draws the screen; and the run gets
 * every core's worth of threads, as `sylk index` does. The process takes the
 * index lock itself. Aborting `signal` stops it as Ctrl-C would (what it
 * committed is kept), and it stops too if this process ends without a word
 * (its stdin, held here, closes). While `foreground` work runs here (a
 * search the user waits on), the process is told to pause (`IndexPause`).
 */
export async function runIndexProcess(
  options: { root: string; env: NodeJS.ProcessEnv; sylkBin?: string; foreground?: ForegroundWork },
  signal: AbortSignal,
  onEvent: (event: IndexProcessEvent) => void,
): Promise<IndexSummary> {
  const sylkBin = options.sylkBin ?? join(sylkPackageRoot(), "bin", "sylk.js");
  // Started with the settings chosen for a large first index: the runs handed here are the large ones.
  const start = firstIndexProcessStart(options.env);
  const child = spawn(process.execPath, [sylkBin, "index", "--for-session", options.root], {
    cwd: options.root,
    env: start.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const stop = () => child.kill("SIGTERM");
  signal.addEventListener("abort", stop, { once: true });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const tellPause = (busy: boolean) => {
    if (child.stdin.writable) child.stdin.write(`${busy ? SESSION_PAUSE_LINE : SESSION_RESUME_LINE}\n`);
  };
  // A process that ended early has a closed pipe: a write then fails with EPIPE, which is not this run's error.
  child.stdin.on("error", () => {});
  const stopTelling = options.foreground?.onChange(tellPause);
  if (options.foreground?.busy) tellPause(true);
  let summary: IndexSummary | undefined;
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      const parsed = indexEvent.safeParse(parsedLine(line));
      if (!parsed.success) continue;
      const event = parsed.data;
      if (event.type === "summary") {
        const { type: _type, ...fields } = event;
        summary = fields;
      } else if (event.type === "progress") {
        const { type: _type, ...progress } = event;
        onEvent({ type: "progress", progress });
      } else if (event.type === "waiting") {
        onEvent({ type: "waiting", holderPid: event.pid });
      } else {
        onEvent(event);
      }
    }
    const [code, killedBy] = await exited;
    if (summary) return summary;
    if (signal.aborted) return interruptedBeforeSummary();
    const how = killedBy ? `was ended by ${killedBy}` : `exited with code ${code}`;
    const said = stderr.trim().split("\n").at(-1);
    throw new Error(`the indexing process ${how}${said ? `: ${said.replace(/^sylk: /, "")}` : ""}`);
  } finally {
    stopTelling?.();
    signal.removeEventListener("abort", stop);
    child.stdin.destroy();
  }
}

/** Stopped before it could say what it did: what it committed is kept, and the next run finds the rest. */
function interruptedBeforeSummary(): IndexSummary {
  return { ...emptyIndexSummary("stale"), interrupted: true };
}

function parsedLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    // Not an event (the process printed something else): skipped.
    return undefined;
  }
}
