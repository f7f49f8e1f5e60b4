import type { Command } from "commander";
import type { ProjectServices } from "../../app/project-services.js";
import { InterruptedError, errorMessage } from "../../errors.js";
import type { IndexSummary } from "../../indexer/project-indexer.js";
import { takeoverNotice } from "../../project/index-lock.js";
import type { CliContext } from "../cli-context.js";
import { formatCount } from "../../format/numbers.js";
import { IndexProgressPrinter, type ProgressStyle } from "../index-progress-printer.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField, terminalText } from "../terminal-text.js";
import { printOpeningWarnings } from "../opening-warnings.js";

interface IndexOptions {
  yes?: boolean;
  json?: boolean;
}

export function registerIndexCommand(program: Command, context: CliContext): void {
  program
    .command("index")
    .description("index the project (or refresh what changed); progress on stderr")
    .argument("[path]", "project root", ".")
    .option("-y, --yes", "consent to indexing without asking (running `sylk index` is consent too)")
    .option("--json", "print progress and the summary as JSON events, one per line")
    .action(async (path: string, options: IndexOptions) => {
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const { openProject } = await import("../../app/project-services.js");
      const services = openProject({ root: resolveRoot(context, path), env: context.env });
      printOpeningWarnings(services, context.stderr);
      try {
        services.consent.recordIndexConsent(true, options.yes ? "sylk index --yes" : "sylk index");
        const style: ProgressStyle = options.json ? "json" : context.stderr.isTTY ? "bar" : "lines";
        const printer = new IndexProgressPrinter(style, context.stderr, context.stdout);
        const summary = await indexProject(services, context, printer);
        if (summary.interrupted) throw new InterruptedError("Indexing interrupted; run `sylk index` again to finish.");
      } finally {
        await services.close();
      }
    });
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
  options: { quiet?: boolean } = {},
): Promise<IndexSummary> {
  await services.indexLock.acquire({
    signal: context.signal,
    onWait: (holder) =>
      context.stderr.write(`Another sylk process (pid ${holder.pid}) is indexing this project; waiting for it to finish…\n`),
    // The reason may quote the lock file, which names a path.
    onTakeover: (takeover) => context.stderr.write(`${terminalField(takeoverNotice(takeover))}\n`),
  });
  try {
    const run = services.indexer.run(context.signal);
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
          if (context.stderr.isTTY) {
            context.stderr.write(`\r\x1b[2KEmbedded ${formatCount(progress.embedded)} (${formatCount(progress.remaining)} left)`);
          }
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
