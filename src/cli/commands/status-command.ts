import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import { resolveProjectPaths } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { formatBytes, formatCount } from "../../format/numbers.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField, terminalText } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";
import { printOpeningWarnings } from "../opening-warnings.js";
import type { SylkConfig } from "../../config/schema.js";
import { sandboxName } from "../sandbox-warning.js";
import { describeDamage, type FullTextIndexDamage } from "../../store/snapshot-damage.js";
import { checkIndexHealth, type StaleCounts } from "../../app/index-health.js";
import type { McpServerSummary } from "../../mcp/session/start-mcp-servers.js";

export interface StatusJson {
  root: string;
  database: string;
  /** `damaged`: the files are indexed, but a full-text index's snapshot is damaged (see `damaged`). */
  state: "missing" | "fresh" | "stale" | "damaged";
  stale?: StaleCounts;
  /** Full-text indexes whose snapshot is damaged: `sylk search` answers from vectors alone until `sylk index` rebuilds them. */
  damaged?: FullTextIndexDamage[];
  files: { total: number; indexed: number; skipped: number; failed: number };
  chunks: number;
  symbols: number;
  entries: number;
  vectors: { chunks: number; entries: number; embedder: string };
  lastRefresh: string | null;
  indexBytes: number;
  failures: Array<{ path: string; reason: string | null }>;
  consent: boolean | null;
  /** How `run_command` runs here: `bubblewrap`, `sandbox-exec`, `off` or `unavailable`, in words, and what it hides. */
  sandbox: { name: string; description: string; hidden: readonly string[]; warnings: string[] };
  /** The configured MCP servers, each connected to once: its state, tool count and last error. */
  mcpServers: McpServerSummary[];
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
        const loadedConfig = loadProjectConfig({ root: paths.root, env: context.env });
        printOpeningWarnings({ loadedConfig }, context.stderr);
        const { config } = loadedConfig;
        const sandbox = await sandboxJson(config, context.env, paths.root);
        const mcpServers = await mcpServersJson(config, context.env, paths.root);
        const text = [
          `Project ${paths.root} has no index yet. Run \`sylk index\` to create it.`,
          ...sandboxLines(sandbox),
          ...mcpLines(mcpServers),
          "",
        ].join("\n");
        context.stdout.write(
          options.json ? `${terminalJson({ root: paths.root, state: "missing", sandbox, mcpServers })}\n` : terminalText(text),
        );
        return;
      }
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const { openProject } = await import("../../app/project-services.js");
      const services = openProject({ root: paths.root, env: context.env });
      printOpeningWarnings(services, context.stderr);
      try {
        const health = await checkIndexHealth(services);
        const counts = services.files.counts();
        const status: StatusJson = {
          root: paths.root,
          database: paths.database,
          state: health.state,
          ...(health.stale ? { stale: health.stale } : {}),
          ...(health.damaged ? { damaged: health.damaged } : {}),
          files: { total: counts.files, indexed: counts.indexed, skipped: counts.skipped, failed: counts.failed },
          chunks: counts.chunks,
          symbols: counts.symbols,
          entries: services.contentStore.count(),
          vectors: {
            chunks: services.vectors.count("chunk_vectors"),
            entries: services.vectors.count("entry_vectors"),
            embedder: services.embedder.id,
          },
          lastRefresh: services.indexer.lastRefresh() ?? null,
          indexBytes: ["", "-wal", "-shm"].reduce((sum, suffix) => sum + sizeOf(`${paths.database}${suffix}`), 0),
          failures: services.files.failures(50),
          consent: services.consent.indexConsent() ?? null,
          sandbox: await sandboxJson(services.loadedConfig.config, context.env, paths.root),
          mcpServers: await mcpServersJson(services.loadedConfig.config, context.env, paths.root),
        };
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
      : status.state === "damaged"
        ? "damaged: a full-text index needs rebuilding (run `sylk index`)"
        : status.state;
  return [
    `Project:      ${status.root}`,
    `Index:        ${status.database} (${formatBytes(status.indexBytes)})`,
    `State:        ${state}`,
    ...(status.damaged ?? []).map(
      (damage) =>
        `  damaged: the ${damage.index} full-text snapshot (${describeDamage(damage)}); \`sylk index\` rebuilds it from the stored terms`,
    ),
    `Files:        ${formatCount(status.files.indexed)} indexed, ${formatCount(status.files.skipped)} skipped, ${formatCount(status.files.failed)} failed`,
    `Chunks:       ${formatCount(status.chunks)} (${formatCount(status.symbols)} symbols)`,
    `Entries:      ${formatCount(status.entries)} (prompts, responses, tool calls and results)`,
    `Vectors:      ${formatCount(status.vectors.chunks)} chunks, ${formatCount(status.vectors.entries)} entries (${status.vectors.embedder})`,
    `Last refresh: ${status.lastRefresh ?? "never completed"}`,
    ...sandboxLines(status.sandbox),
    ...mcpLines(status.mcpServers),
    ...status.failures
      .slice(0, 5)
      .map((failure) => `  failed: ${terminalField(failure.path)}: ${terminalField(failure.reason ?? "unknown")}`),
    "",
  ].join("\n");
}

function sandboxLines(sandbox: StatusJson["sandbox"]): string[] {
  return [
    `Commands:     ${sandbox.description}`,
    ...(sandbox.hidden.length > 0 ? [`Hidden:       ${sandbox.hidden.join(", ")}`] : []),
    ...sandbox.warnings.map((warning) => `  warning: ${warning}`),
  ];
}

function mcpLines(servers: readonly McpServerSummary[]): string[] {
  return servers.map(
    (server, index) =>
      `${index === 0 ? "MCP servers: " : "             "}${terminalField(server.name)} (${server.transport}): ${server.state === "failed" ? `failed: ${terminalField(server.error ?? "?")}` : `${server.state}, ${server.tools} tools`}`,
  );
}

/** The MCP servers, each connected to once; their modules load only when some are configured. */
async function mcpServersJson(config: SylkConfig, env: NodeJS.ProcessEnv, root: string): Promise<McpServerSummary[]> {
  if (Object.keys(config.mcpServers).length === 0) return [];
  const { checkMcpServers } = await import("../../mcp/session/start-mcp-servers.js");
  return checkMcpServers(config, env, root);
}

/** How commands would run here; its modules load only for `sylk status`. */
async function sandboxJson(config: SylkConfig, env: NodeJS.ProcessEnv, root: string): Promise<StatusJson["sandbox"]> {
  const [{ sandboxFor }, { describeSandbox, keptReadable }] = await Promise.all([
    import("../../agent/sandbox/open-command-sandbox.js"),
    import("../../agent/sandbox/command-sandbox.js"),
  ]);
  const { status } = sandboxFor(config, env, root);
  return {
    name: sandboxName(status),
    description: describeSandbox(status),
    hidden: status.state === "on" ? status.hidden : [],
    warnings: keptReadable(status),
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
