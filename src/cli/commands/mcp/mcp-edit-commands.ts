import { type Command, Option } from "commander";
import type { McpServerConfig } from "../../../config/mcp-servers-schema.js";
import { BadInputError, errorMessage } from "../../../errors.js";
import { terminalJson } from "../../../format/terminal-json.js";
import { maskSecretsIn } from "../../../security/mask-values.js";
import type { CliContext } from "../../cli-context.js";
import { resolveRoot } from "../../shared-options.js";
import { terminalText } from "../../terminal-text.js";

interface AddOptions {
  transport?: "stdio" | "http" | "sse";
  env: string[];
  header: string[];
  cwd?: string;
  project?: boolean;
  json?: boolean;
}

/**
 * `sylk mcp add <name> -- <command> [args…]` (stdio) or `sylk mcp add
 * <name> <url>` (streamable HTTP; `--transport sse` for an old server), as
 * Claude Code's `mcp add` takes them, written to the user's `~/.sylkrc`, or
 * the project's with `--project`.
 */
export function registerMcpAddCommand(group: Command, context: CliContext): void {
  group
    .command("add")
    .description("add an MCP server to ~/.sylkrc (--project: this project's .sylkrc): add <name> -- <command> [args…], or add <name> <url>")
    .argument("<name>", "the server's name: letters, digits, - and _ (its tools are mcp__<name>__<tool>)")
    .argument("<command-or-url...>", "the command and its arguments (after --), or the server's URL")
    .addOption(
      new Option("-t, --transport <transport>", "stdio, http or sse (default: http for a URL, else stdio)").choices([
        "stdio",
        "http",
        "sse",
      ]),
    )
    .option(
      "-e, --env <KEY=value>",
      `an environment variable for a stdio server (repeatable; \${VAR} is read from your environment)`,
      collect,
      [],
    )
    .option("-H, --header <Name: value>", `an HTTP header (repeatable; \${VAR} is read from your environment)`, collect, [])
    .option("--cwd <dir>", "where a stdio server starts (relative to the project)")
    .option("--project", "write the project's .sylkrc (used once you trust the folder)")
    .option("--json", "print one JSON object")
    .action(async (name: string, words: string[], options: AddOptions) => {
      const config = serverConfigOf(words, options);
      const file = await targetFile(context, options.project);
      const { addServerToFile } = await configFileEditor();
      try {
        addServerToFile(file, name, config);
      } catch (error) {
        throw new BadInputError(errorMessage(error));
      }
      const scope = options.project ? "project" : "user";
      const masked = maskSecretsIn(config).value;
      context.stdout.write(
        options.json
          ? `${terminalJson({ added: name, scope, file, config: masked })}\n`
          : `${terminalText(`Added the MCP server "${name}" to ${file}: its tools are mcp__${name}__<tool>, and ask before they run (allow them with "mcp__${name}" in permissions.allow).`)}\n`,
      );
    });
}

/** `sylk mcp remove <name>`: out of the user's `~/.sylkrc`, or the project's with `--project`. */
export function registerMcpRemoveCommand(group: Command, context: CliContext): void {
  group
    .command("remove")
    .description("remove an MCP server from ~/.sylkrc (--project: from this project's .sylkrc)")
    .argument("<name>", "the server's name")
    .option("--project", "the project's .sylkrc")
    .option("--json", "print one JSON object")
    .action(async (name: string, options: { project?: boolean; json?: boolean }) => {
      const file = await targetFile(context, options.project);
      const { removeServerFromFile } = await configFileEditor();
      let removed: boolean;
      try {
        removed = removeServerFromFile(file, name);
      } catch (error) {
        throw new BadInputError(errorMessage(error));
      }
      if (!removed) {
        const other = options.project ? "without --project, for ~/.sylkrc" : "with --project, for the project's .sylkrc";
        throw new BadInputError(`${file} has no MCP server "${name}" (try ${other}).`);
      }
      const scope = options.project ? "project" : "user";
      context.stdout.write(
        options.json
          ? `${terminalJson({ removed: name, scope, file })}\n`
          : `${terminalText(`Removed the MCP server "${name}" from ${file}.`)}\n`,
      );
    });
}

function serverConfigOf(words: string[], options: AddOptions): McpServerConfig {
  const [first, ...rest] = words;
  if (first === undefined) throw new BadInputError("Give the server's command (after --) or its URL.");
  const transport = options.transport ?? (/^https?:\/\//.test(first) ? "http" : "stdio");
  if (transport === "stdio") {
    if (options.header.length > 0) throw new BadInputError("--header is for an HTTP server; a stdio server takes --env.");
    const env = pairs(options.env, "=", "--env takes KEY=value");
    return {
      command: first,
      ...(rest.length > 0 ? { args: rest } : {}),
      ...(env ? { env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    };
  }
  if (rest.length > 0) throw new BadInputError(`An ${transport} server is one URL; ${rest.join(" ")} is more.`);
  if (options.env.length > 0 || options.cwd)
    throw new BadInputError("--env and --cwd are for a stdio server; an HTTP server takes --header.");
  const headers = pairs(options.header, ":", "--header takes 'Name: value'");
  return { ...(transport === "sse" ? { type: "sse" as const } : {}), url: first, ...(headers ? { headers } : {}) };
}

function pairs(items: readonly string[], separator: string, usage: string): Record<string, string> | undefined {
  if (items.length === 0) return undefined;
  const entries = items.map((item) => {
    const at = item.indexOf(separator);
    if (at <= 0) throw new BadInputError(`${usage}: "${item}" is not.`);
    return [item.slice(0, at).trim(), item.slice(at + 1).trim()] as const;
  });
  return Object.fromEntries(entries);
}

/**
 * The configuration's reader and editor (zod's schemas, the JSON-with-comments
 * parser) load when an edit runs: every other command would pay for them at
 * start-up, since the command tree is built before the command is known.
 */
const configFileEditor = () => import("../../../mcp/mcp-config-file.js");

async function targetFile(context: CliContext, project: boolean | undefined): Promise<string> {
  const { configFilePaths } = await import("../../../config/load-config.js");
  const paths = configFilePaths({ projectRoot: resolveRoot(context), env: context.env });
  return project ? paths.project : paths.user;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
