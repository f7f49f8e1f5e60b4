import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import { getMeta } from "../../store/database.js";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { formatBytes, formatCount } from "../format.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField, terminalText } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";
import { warnAboutIgnoredSettings } from "../ignored-settings-warning.js";
import type { SylkConfig } from "../../config/schema.js";
import { sandboxName } from "../sandbox-warning.js";

export interface StatusJson {
  root: string;
  database: string;
  state: "missing" | "fresh" | "stale";
  stale?: { added: number; changed: number; deleted: number; directories: number };
  files: { total: number; indexed: number; skipped: number; failed: number };
  chunks: number;
  symbols: number;
  entries: number;
  vectors: { chunks: number; entries: number; embedder: string };
  lastRefresh: string | null;
  indexBytes: number;
  failures: Array<{ path: string; reason: string | null }>;
  consent: boolean | null;
  /** How `run_command` runs here: `bubblewrap`, `sandbox-exec`, `off` or `unavailable`, and in words. */
  sandbox: { name: string; description: string };
}

export function registerStatusCommand(program: Command, context: CliContext): void {
  program
    .command("status")
    .description("what the index holds and whether it is fresh")
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => {
      const paths = resolveProjectPaths(resolveRoot(context), context.env);
      if (!existsSync(paths.database)) {
        const { loadProjectConfig } = await import("../../app/project-config.js");
        const sandbox = await sandboxJson(loadProjectConfig({ root: paths.root, env: context.env }).config, context.env);
        const text = `Project ${paths.root} has no index yet. Run \`sylk index\` to create it.\nCommands:     ${sandbox.description}\n`;
        context.stdout.write(options.json ? `${terminalJson({ root: paths.root, state: "missing", sandbox })}\n` : terminalText(text));
        return;
      }
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const { openProject } = await import("../../app/project-services.js");
      const services = openProject({ root: paths.root, env: context.env });
      warnAboutIgnoredSettings(services.loadedConfig, context.stderr);
      try {
        const freshness = await services.indexer.checkFreshness();
        const counts = services.files.counts();
        const status: StatusJson = {
          root: paths.root,
          database: paths.database,
          state: freshness.state,
          files: { total: counts.files, indexed: counts.indexed, skipped: counts.skipped, failed: counts.failed },
          chunks: counts.chunks,
          symbols: counts.symbols,
          entries: services.contentStore.count(),
          vectors: {
            chunks: services.vectors.count("chunk_vectors"),
            entries: services.vectors.count("entry_vectors"),
            embedder: services.embedder.id,
          },
          lastRefresh: getMeta(services.db, "last_refresh") ?? null,
          indexBytes: ["", "-wal", "-shm"].reduce((sum, suffix) => sum + sizeOf(`${paths.database}${suffix}`), 0),
          failures: services.files.failures(50),
          consent: services.consent.indexConsent() ?? null,
          sandbox: await sandboxJson(services.loadedConfig.config, context.env),
        };
        if (freshness.state === "stale") {
          status.stale = {
            added: freshness.diff.added.length,
            changed: freshness.diff.changed.length,
            deleted: freshness.diff.deleted.length + freshness.diff.newlySkipped.length,
            directories: freshness.changedDirectories.length,
          };
        }
        context.stdout.write(options.json ? `${terminalJson(status)}\n` : terminalText(renderText(status)));
      } finally {
        await services.close();
      }
    });
}

function renderText(status: StatusJson): string {
  const state =
    status.state === "stale" && status.stale
      ? `stale: ${formatCount(status.stale.added)} added, ${formatCount(status.stale.changed)} changed, ${formatCount(status.stale.deleted)} removed (run \`sylk index\`)`
      : status.state;
  return [
    `Project:      ${status.root}`,
    `Index:        ${status.database} (${formatBytes(status.indexBytes)})`,
    `State:        ${state}`,
    `Files:        ${formatCount(status.files.indexed)} indexed, ${formatCount(status.files.skipped)} skipped, ${formatCount(status.files.failed)} failed`,
    `Chunks:       ${formatCount(status.chunks)} (${formatCount(status.symbols)} symbols)`,
    `Entries:      ${formatCount(status.entries)} (prompts, responses, tool calls and results)`,
    `Vectors:      ${formatCount(status.vectors.chunks)} chunks, ${formatCount(status.vectors.entries)} entries (${status.vectors.embedder})`,
    `Last refresh: ${status.lastRefresh ?? "never completed"}`,
    `Commands:     ${status.sandbox.description}`,
    ...status.failures.slice(0, 5).map((failure) => `  failed: ${terminalField(failure.path)}: ${terminalField(failure.reason ?? "unknown")}`),
    "",
  ].join("\n");
}

/** How commands would run here; its modules load only for `sylk status`. */
async function sandboxJson(config: SylkConfig, env: NodeJS.ProcessEnv): Promise<StatusJson["sandbox"]> {
  const [{ sandboxFor }, { describeSandbox }] = await Promise.all([
    import("../../agent/sandbox/open-command-sandbox.js"),
    import("../../agent/sandbox/command-sandbox.js"),
  ]);
  const { status } = sandboxFor(config, env);
  return { name: sandboxName(status), description: describeSandbox(status) };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
