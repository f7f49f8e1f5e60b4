import { setPriority } from "node:os";
import { join } from "node:path";
import { type Command, Option } from "commander";
import type { FirstIndexBeforeOpening } from "../../app/first-index-before-opening.js";
import {
  type RestartAbility,
  restartAbility,
  restartForFirstIndex,
  restartsForFirstIndex,
  SEPARATE_INDEX_PROCESS_ABOVE_FILES,
  startedForFirstIndex,
} from "../../app/first-index-process.js";
import type { ProjectServices } from "../../app/project-services.js";
import { sylkPackageRoot } from "../../package-root.js";
import { InterruptedError, errorMessage } from "../../errors.js";
import type { IndexSummary } from "../../indexer/project-indexer.js";
import { IndexPause, SESSION_PAUSE_LINE, SESSION_RESUME_LINE } from "../../indexer/index-pause.js";
import { takeoverNotice } from "../../project/index-lock.js";
import type { CliContext } from "../cli-context.js";
import { IndexProgressPrinter, type ProgressStyle } from "../index-progress-printer.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField, terminalText } from "../terminal-text.js";
import { printOpeningWarnings } from "../opening-warnings.js";

interface IndexOptions {
  yes?: boolean;
  json?: boolean;
  forSession?: boolean;
}

export function registerIndexCommand(program: Command, context: CliContext): void {
  program
    .command("index")
    .description("index the project (or refresh what changed); progress on stderr")
    .argument("[path]", "project root", ".")
    .option("-y, --yes", "consent to indexing without asking (running `sylk index` is consent too)")
    .option("--json", "print progress and the summary as JSON events, one per line")
    .addOption(
      new Option("--for-session", "run for an interactive session: JSON events, consent left as the session recorded it").hideHelp(),
    )
    .action(async (path: string, options: IndexOptions) => {
      // Before any thread starts: those started later (the indexing workers) inherit the priority.
      if (options.forSession) giveWayToForegroundWork();
      const root = resolveRoot(context, path);
      const restartable = mayRestartForFirstIndex(context, options);
      // A project with no store yet is decided before anything is opened; one with a store, once it is open.
      const before = restartable ? await restartedBeforeOpening(context, { root, ...options }) : undefined;
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const { openProject } = await import("../../app/project-services.js");
      // Without SQLite's map: an indexing run would keep every page it read resident beside the page cache.
      let services = openProject({ root, env: context.env, mmap: false });
      if (before === "ask-store" && (await restartedForFirstIndex(services, context, { root, ...options }))) {
        // Replacing the process failed: indexed here, as before.
        services = openProject({ root, env: context.env, mmap: false });
      }
      printOpeningWarnings(services, context.stderr);
      try {
        // The session asked, and remembered the answer only if the user wanted it remembered.
        if (!options.forSession) services.consent.recordIndexConsent(true, options.yes ? "sylk index --yes" : "sylk index");
        const style: ProgressStyle = options.json || options.forSession ? "json" : context.stderr.isTTY ? "bar" : "lines";
        const printer = new IndexProgressPrinter(style, context.stderr, context.stdout);
        const session = options.forSession ? watchSession(context, new IndexPause()) : undefined;
        let summary: IndexSummary;
        try {
          summary = await indexProject(
            services,
            session ? { ...context, signal: session.signal } : context,
            printer,
            session ? { pause: session.pause } : {},
          );
        } finally {
          session?.stopWatching();
        }
        if (summary.interrupted) throw new InterruptedError("Indexing interrupted; run `sylk index` again to finish.");
      } finally {
        await services.close();
      }
    });
}

/**
 * A first index of more than `SEPARATE_INDEX_PROCESS_ABOVE_FILES` files runs
 * in a process started with the settings chosen for it
 * (`restartForFirstIndex`). False where this process stays as it is (the
 * session's process, one already restarted, a command whose output is not
 * this process's own); whether the platform allows it is asked only of a
 * first index that would (`restartAbility` costs 2–6 ms, which a refresh
 * does not pay).
 */
function mayRestartForFirstIndex(context: CliContext, options: IndexOptions): boolean {
  if (options.forSession || startedForFirstIndex(context.env)) return false;
  return context.stdout === process.stdout && context.stderr === process.stderr;
}

/**
 * Before the store is opened (`firstIndexBeforeOpening`): a project with no
 * database and more files than the limit is restarted at once, and does not
 * return. Otherwise says what it found: `small` (index here), `ask-store`
 * (a store exists: `restartedForFirstIndex` decides once it is open), or
 * `large` if replacing the process failed (indexed here).
 */
async function restartedBeforeOpening(context: CliContext, options: IndexOptions & { root: string }): Promise<FirstIndexBeforeOpening> {
  const { firstIndexBeforeOpening } = await import("../../app/first-index-before-opening.js");
  const decision = await firstIndexBeforeOpening({ root: options.root, env: context.env, signal: context.signal });
  if (decision === "large") restartNow(context, options);
  return decision;
}

/**
 * Once the store is open: a first index (the file table empty) of more than
 * the limit closes what this process opened and replaces it, and does not
 * return. False when it stays as it is (a refresh, a small first index);
 * true if it closed `services` and replacing it failed.
 */
async function restartedForFirstIndex(
  services: ProjectServices,
  context: CliContext,
  options: IndexOptions & { root: string },
): Promise<boolean> {
  if (!(await services.indexer.firstIndexAbove(SEPARATE_INDEX_PROCESS_ABOVE_FILES, context.signal))) return false;
  const ability = restartAbility();
  if (!restartsForFirstIndex(context.env, ability)) return false;
  // What opening changed is said once: the process that takes over finds it done.
  for (const notice of services.notices) context.stderr.write(terminalText(`sylk: ${notice}\n`));
  await services.close();
  restartNow(context, options, ability);
  return true;
}

/**
 * Replaces this process (`restartForFirstIndex`); returns where the
 * platform does not allow it, or having said so if replacing it failed.
 */
function restartNow(context: CliContext, options: IndexOptions & { root: string }, ability: RestartAbility = restartAbility()): void {
  if (!restartsForFirstIndex(context.env, ability)) return;
  const args = ["index", ...(options.yes ? ["--yes"] : []), ...(options.json ? ["--json"] : []), options.root];
  try {
    restartForFirstIndex(context.env, join(sylkPackageRoot(), "bin", "sylk.js"), args, ability);
  } catch (error) {
    context.stderr.write(`sylk: could not restart for a first index (${terminalText(errorMessage(error))}); indexing here.\n`);
  }
}

/**
 * The nice value of a session's indexing process (`--for-session`): a
 * background index, as IDEs and desktop search run theirs. On a machine
 * with spare cores it changes nothing; when the cores are contended, the
 * work the user waits on (the session's own thread, its grep, a command it
 * runs) gets about nine times the indexing's share of each, instead of
 * splitting them evenly with a first index that takes minutes.
 */
const BACKGROUND_NICE = 10;

function giveWayToForegroundWork(): void {
  try {
    setPriority(BACKGROUND_NICE);
  } catch {
    // A platform that refuses it indexes at the normal priority.
  }
}

/**
 * Takes the project's index lock (waiting for another process that holds
 * it), indexes, and fills any missing vectors. Shared by every command that
 * refreshes the index before working.
 */
export async function indexProject(
  services: ProjectServices,
  context: CliContext,
  printer: IndexProgressPrinter,
  options: { quiet?: boolean; pause?: IndexPause } = {},
): Promise<IndexSummary> {
  await services.indexLock.acquire({
    signal: context.signal,
    onWait: (holder) => printer.waiting(holder.pid),
    onTakeover: (takeover) => printer.notice(takeoverNotice(takeover)),
  });
  try {
    const run = services.indexer.run(context.signal, options.pause ? { pause: options.pause } : {});
    let step = await run.next();
    while (!step.done) {
      // Quiet (before an agent run): show progress only when there is indexing to do.
      if (!options.quiet || step.value.total > 0) printer.update(step.value);
      step = await run.next();
    }
    const summary = step.value;
    let vectorsEmbedded = 0;
    if (!summary.interrupted && services.backfill.missingCount() > 0) {
      context.stderr.write(`Embedding with ${terminalField(services.embedder.id)}…\n`);
      try {
        for await (const progress of services.backfill.run(context.signal)) {
          vectorsEmbedded = progress.embedded;
          printer.embedding(progress.embedded, progress.remaining);
        }
        if (context.stderr.isTTY) context.stderr.write("\n");
      } catch (error) {
        if (context.signal.aborted) throw error;
        context.stderr.write(
          `Vector embedding failed (${terminalText(errorMessage(error))}); full-text search works, and \`sylk index\` retries.\n`,
        );
      }
    }
    if (!options.quiet || summary.failed > 0) printer.summary(summary, vectorsEmbedded > 0 ? { vectorsEmbedded } : {});
    return summary;
  } finally {
    services.indexLock.release();
  }
}

/**
 * The session that started this process reads its events on our stdout and
 * holds our stdin open: end of input means it has gone (even killed), and the
 * run stops as on Ctrl-C, keeping what it committed. On that stdin it also
 * writes `pause` and `resume`, one a line, around a search its user waits on
 * (`SESSION_PAUSE_LINE`; see `IndexPause`); other lines are ignored.
 */
function watchSession(context: CliContext, pause: IndexPause): { signal: AbortSignal; pause: IndexPause; stopWatching(): void } {
  const sessionGone = new AbortController();
  const stop = () => sessionGone.abort();
  const events = ["end", "close", "error"] as const;
  for (const event of events) context.stdin.on(event, stop);
  let pending = "";
  const onData = (chunk: Buffer | string) => {
    const lines = (pending + chunk.toString()).split("\n");
    pending = (lines.pop() ?? "").slice(-SESSION_PAUSE_LINE.length - 16); // not a line we know: nothing to keep whole
    // Only the last word counts: a burst of pause/resume settles where the session is now.
    const last = lines.map((line) => line.trim()).findLast((line) => line === SESSION_PAUSE_LINE || line === SESSION_RESUME_LINE);
    if (last === SESSION_PAUSE_LINE) pause.pause();
    else if (last === SESSION_RESUME_LINE) pause.resume();
  };
  context.stdin.on("data", onData);
  return {
    signal: AbortSignal.any([context.signal, sessionGone.signal]),
    pause,
    stopWatching: () => {
      pause.resume();
      context.stdin.off("data", onData);
      for (const event of events) context.stdin.off(event, stop);
      // A paused pipe no longer keeps the process alive.
      context.stdin.pause();
    },
  };
}
