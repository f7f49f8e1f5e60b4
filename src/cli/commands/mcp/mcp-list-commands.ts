import type { Command } from "commander";
import type { LoadedConfig } from "../../../config/load-config.js";
import type { McpServerConfig } from "../../../config/mcp-servers-schema.js";
import { BadInputError } from "../../../errors.js";
import { terminalJson } from "../../../format/terminal-json.js";
import type { McpServerStatus } from "../../../mcp/client/server-connection.js";
import { maskSecretsIn } from "../../../security/mask-values.js";
import type { CliContext } from "../../cli-context.js";
import { resolveRoot } from "../../shared-options.js";
import { terminalText } from "../../terminal-text.js";

/** A configured server, where it is defined, and how connecting to it went. */
interface ListedServer {
  name: string;
  scope: string;
  file: string;
  config: McpServerConfig;
  status: McpServerStatus;
}

/** `sylk mcp list`: every server the project's sessions would start, each connected to once to say how it is. */
export function registerMcpListCommand(group: Command, context: CliContext): void {
  group
    .command("list")
    .description("the configured MCP servers, each connected to: its state, its tools, its last error")
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => {
      const { servers, loaded } = await checkedServers(context);
      const ignored = ignoredServers(loaded);
      if (options.json) {
        context.stdout.write(`${terminalJson({ servers: servers.map(serverJson), ...(ignored ? { ignored } : {}) })}\n`);
        return;
      }
      const lines =
        servers.length === 0 ? ["No MCP servers are configured (sylk mcp add <name> -- <command> [args…])."] : servers.map(serverLine);
      if (ignored) lines.push(ignored.note);
      context.stdout.write(`${terminalText(lines.join("\n"))}\n`);
    });
}

/** `sylk mcp get <name>`: one server's configuration, state, tools and prompts. */
export function registerMcpGetCommand(group: Command, context: CliContext): void {
  group
    .command("get")
    .description("one MCP server: where it is defined, how it starts, its state, tools and prompts")
    .argument("<name>", "the server's name")
    .option("--json", "print one JSON object")
    .action(async (name: string, options: { json?: boolean }) => {
      const { servers } = await checkedServers(context, name);
      const server = servers[0];
      if (!server) throw new BadInputError(`No MCP server is named "${name}" (sylk mcp list shows them).`);
      if (options.json) {
        context.stdout.write(`${terminalJson(serverJson(server))}\n`);
        return;
      }
      const { status } = server;
      const lines = [
        serverLine(server),
        `  defined in ${server.file}`,
        `  ${JSON.stringify(maskSecretsIn(server.config).value)}`,
        ...(status.tools.length > 0
          ? ["  tools:", ...status.tools.map((tool) => `    ${tool.name}${tool.description ? ` — ${firstLine(tool.description)}` : ""}`)]
          : []),
        ...(status.prompts.length > 0 ? ["  prompts:", ...status.prompts.map((prompt) => `    /mcp__${name}__${prompt.name}`)] : []),
      ];
      context.stdout.write(`${terminalText(lines.join("\n"))}\n`);
    });
}

/** The configured servers (one, when named), each started, listed and closed again. */
async function checkedServers(context: CliContext, only?: string): Promise<{ servers: ListedServer[]; loaded: LoadedConfig }> {
  const [{ loadProjectConfig }, { McpServers }, { CommandProcesses }] = await Promise.all([
    import("../../../app/project-config.js"),
    import("../../../mcp/client/mcp-servers.js"),
    import("../../../agent/tools/command-processes.js"),
  ]);
  const loaded = loadProjectConfig({ root: resolveRoot(context), env: context.env });
  const { config } = loaded;
  const configs = Object.fromEntries(Object.entries(config.mcpServers).filter(([name]) => only === undefined || name === only));
  const servers = new McpServers(configs, {
    env: context.env,
    root: resolveRoot(context),
    settings: config.mcp,
    processes: new CommandProcesses(),
  });
  try {
    await servers.settled();
    return {
      loaded,
      servers: servers.statuses().map((status) => {
        const origin = loaded.sources.get(`mcpServers.${status.name}.command`) ?? loaded.sources.get(`mcpServers.${status.name}.url`);
        return {
          name: status.name,
          scope: origin?.source ?? "user",
          file: origin?.origin ?? "",
          config: configs[status.name] as McpServerConfig,
          status,
        };
      }),
    };
  } finally {
    await servers.close();
  }
}

function serverJson(server: ListedServer): Record<string, unknown> {
  const { status } = server;
  return {
    name: server.name,
    scope: server.scope,
    file: server.file,
    transport: status.transport,
    // What the file says (${VAR} unexpanded), with anything that looks like a key masked.
    config: maskSecretsIn(server.config).value,
    state: status.state,
    tools: status.tools.map((tool) => tool.name),
    prompts: status.prompts.map((prompt) => prompt.name),
    ...(status.error ? { error: status.error } : {}),
  };
}

function serverLine(server: ListedServer): string {
  const { status } = server;
  const state = status.state === "failed" ? `✗ failed: ${status.error ?? "?"}` : `✓ connected, ${status.tools.length} tools`;
  return `${server.name} (${server.scope}, ${status.transport}): ${state}`;
}

/** A project's servers left out because the folder is not trusted, said so. */
function ignoredServers(loaded: LoadedConfig): { file: string; note: string } | undefined {
  const ignored = loaded.ignoredProjectSettings;
  if (!ignored?.settings.some((setting) => setting.key === "mcpServers" || setting.key.startsWith("mcpServers."))) return undefined;
  return {
    file: ignored.file,
    note: `The servers in ${ignored.file} are not started: this folder is not trusted with them (sylk trust).`,
  };
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
