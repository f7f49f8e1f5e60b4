import type { Readable, Writable } from "node:stream";
import { type Command, InvalidArgumentError } from "commander";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { IndexNotice } from "../../../app/background-indexing.js";
import type { CliContext } from "../../cli-context.js";
import { printOpeningWarnings } from "../../opening-warnings.js";
import { packageVersion } from "../../package-version.js";
import { resolveRoot } from "../../shared-options.js";
import { terminalText } from "../../terminal-text.js";

interface ServeOptions {
  http?: number;
  yes?: boolean;
}

export function registerMcpServeCommand(group: Command, context: CliContext): void {
  group
    .command("serve")
    .description("serve this project's index and history as read-only MCP tools, over stdio (or streamable HTTP with --http)")
    .option("--http <port>", "serve streamable HTTP on 127.0.0.1:<port> (0: any free port) with a bearer token printed at start", parsePort)
    .option("-y, --yes", "consent to indexing the project if it never was")
    .action(async (options: ServeOptions) => {
      // Loaded when the command runs: the other commands do not pay for the SDK and the project's services.
      const [{ openServedProject }, { createMcpToolServer }] = await Promise.all([
        import("../../../mcp/server/served-project.js"),
        import("../../../mcp/server/mcp-tool-server.js"),
      ]);
      const servers = new Set<Server>();
      const onNotice = (notice: IndexNotice) => {
        context.stderr.write(terminalText(`sylk mcp serve: ${notice.text}\n`));
        for (const server of servers)
          server.sendLoggingMessage({ level: notice.tone, logger: "sylk.index", data: notice.text }).catch(() => undefined);
      };
      const project = await openServedProject({ root: resolveRoot(context), env: context.env, yes: options.yes ?? false, onNotice });
      printOpeningWarnings(project.services, context.stderr);
      const newServer = () => {
        const server = createMcpToolServer({
          registry: project.registry,
          root: project.services.paths.root,
          hiddenDirectories: [project.services.paths.sylkHome],
          version: packageVersion(),
        });
        servers.add(server);
        server.onclose = () => servers.delete(server);
        return server;
      };
      const searchNote =
        project.codeSearch() === "warm" ? "code search through the interactive session's warm index" : "index kept fresh by its watcher";
      try {
        if (options.http === undefined) await serveStdio(newServer(), context, searchNote);
        else await serveHttp(options.http, newServer, context, searchNote);
      } finally {
        await Promise.all([...servers].map((server) => server.close()));
        await project.close();
      }
    });
}

/**
 * MCP over stdin and stdout. stdout is the protocol's: anything else
 * written there would break the client's framing, so what the process has
 * to say goes to stderr, `console.log` included for as long as it serves.
 * Ends when stdin ends (the client closed it or went away) or on a stop
 * signal.
 */
async function serveStdio(server: Server, context: CliContext, searchNote: string): Promise<void> {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const restoreConsole = consoleToStderr();
  try {
    const ended = new Promise<void>((resolve) => {
      context.stdin.once("end", resolve);
      context.stdin.once("close", resolve);
      if (context.signal.aborted) resolve();
      context.signal.addEventListener("abort", () => resolve(), { once: true });
      const forget = server.onclose;
      server.onclose = () => {
        forget?.();
        resolve();
      };
    });
    await server.connect(new StdioServerTransport(context.stdin as Readable, context.stdout as Writable));
    context.stderr.write(`sylk mcp serve: serving over stdio (${searchNote})\n`);
    await ended;
  } finally {
    restoreConsole();
  }
}

/** Streamable HTTP on 127.0.0.1; the address and the token are the command's output, on stdout. Ends on a stop signal. */
async function serveHttp(port: number, newServer: () => Server, context: CliContext, searchNote: string): Promise<void> {
  const { startHttpEndpoint } = await import("../../../mcp/server/http-endpoint.js");
  const endpoint = await startHttpEndpoint(port, newServer);
  try {
    context.stdout.write(`MCP endpoint: ${endpoint.url}\nAuthorization: Bearer ${endpoint.token}\n`);
    context.stderr.write(`sylk mcp serve: serving streamable HTTP on ${endpoint.url} (${searchNote}); Ctrl-C stops it\n`);
    if (!context.signal.aborted)
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve(), { once: true }));
  } finally {
    await endpoint.close();
  }
}

/** Sends `console.log`, `info` and `debug` to stderr until the returned function puts them back. */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidArgumentError("must be a port number (0–65535)");
  return port;
}
