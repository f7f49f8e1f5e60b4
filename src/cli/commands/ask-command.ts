import { type Command, Option } from "commander";
import { type AgentResult, hookIsShown, hookNote } from "../../agent/agent-events.js";
import { PERMISSION_MODES, type PermissionMode } from "../../agent/permissions/permission-modes.js";
import type { ProjectServices } from "../../app/project-services.js";
import type { WarmIndexClient } from "../../app/warm-index/warm-index-client.js";
import { BadInputError, ExitCode, errorMessage, type ExitCodeValue } from "../../errors.js";
import type { McpServers } from "../../mcp/client/mcp-servers.js";
import { createPrinter, OUTPUT_FORMATS, type OutputFormat } from "../ask-printers.js";
import type { CliContext } from "../cli-context.js";
import { IndexProgressPrinter } from "../index-progress-printer.js";
import { parsePositiveInteger, resolveRoot } from "../shared-options.js";
import { indexProject } from "./index-command.js";
import { printOpeningWarnings } from "../opening-warnings.js";
import { warnAboutAgentFiles } from "../custom-agent-errors.js";
import { sandboxName, warnAboutSandbox } from "../sandbox-warning.js";
import { terminalText } from "../terminal-text.js";

interface AskOptions {
  outputFormat: OutputFormat;
  model?: string;
  provider?: string;
  maxTurns?: number;
  permissionMode?: PermissionMode;
  continue?: boolean;
  resume?: string;
  yes?: boolean;
  contextWindow?: number;
  /** `--no-sandbox` sets it false. */
  sandbox: boolean;
  /** A built-in agent type or a custom agent's name, checked once the custom agents are loaded. */
  agent?: string;
  /** The prompt is a task for the team's pipeline. */
  pipeline?: boolean;
}

/** Largest stdin read as context (bigger input is cut, and the prompt says so). */
const MAX_STDIN_BYTES = 1 << 20;

export function registerAskCommand(program: Command, context: CliContext, setExitCode: (code: ExitCodeValue) => void): void {
  program
    .command("ask")
    .description("one scripted, non-interactive agent run; the answer alone goes to stdout")
    .argument("[prompt]", "what to ask; stdin is read too (appended as context when both are given)")
    .addOption(new Option("--output-format <format>", "text, json or stream-json").choices(OUTPUT_FORMATS).default("text"))
    .option("--model <name>", "model to use (overrides model.name)")
    .addOption(new Option("--provider <provider>", "model provider").choices(["anthropic", "openai-compatible", "none"]))
    .option("--max-turns <n>", "model calls before stopping (exit code 53)", parsePositiveInteger)
    .addOption(new Option("--permission-mode <mode>", "what runs without asking (a scripted run cannot ask)").choices(PERMISSION_MODES))
    .option("-c, --continue", "continue the latest session of this project")
    .option("-r, --resume <session>", "resume a session by id (or the start of one)")
    .option("-y, --yes", "consent to indexing the project if it never was")
    .option("--context-window <tokens>", "the model's context window in tokens (overrides context.windowTokens)", parsePositiveInteger)
    .option("--agent <name>", "the agent to talk to, built-in or custom (`sylk agents` lists them; overrides agent.type; default engineer)")
    .option("--no-sandbox", "run commands without the OS sandbox (overrides sandbox.enabled)")
    .option("--pipeline", "run the prompt as a task through the team: plan, design, implement, review and fix, test, summary")
    .action(async (promptArgument: string | undefined, options: AskOptions) => {
      if (options.continue && options.resume) throw new BadInputError("Use --continue or --resume, not both.");
      if (options.pipeline && options.agent) throw new BadInputError("--pipeline runs the team's own agents; leave out --agent.");
      const prompt = await readPrompt(promptArgument, context);
      const flags: Record<string, unknown> = {};
      if (options.model) flags["model.name"] = options.model;
      if (options.provider) flags["model.provider"] = options.provider;
      if (options.contextWindow) flags["context.windowTokens"] = options.contextWindow;
      if (!options.sandbox) flags["sandbox.enabled"] = false;
      if (options.agent) flags["agent.type"] = options.agent;
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const [
        { openProject },
        { openAgentSession },
        { resolveIndexConsent },
        { RemoteCodeSearcher },
        { loadCustomAgents },
        { resolveRole },
        { startMcpServers, serverSummary },
        { watchWhileRunning },
      ] = await Promise.all([
        import("../../app/project-services.js"),
        import("../../app/session/open-agent-session.js"),
        import("../../project/consent.js"),
        import("../../app/warm-index/remote-code-searcher.js"),
        import("../../roles/custom-agents.js"),
        import("../../roles/resolve-role.js"),
        import("../../mcp/session/start-mcp-servers.js"),
        import("../../app/one-shot-watch.js"),
      ]);
      const services = openProject({ root: resolveRoot(context), env: context.env, flags });
      printOpeningWarnings(services, context.stderr);
      // Started now, in the background, while the project is indexed.
      const mcp = startMcpServers(services.loadedConfig.config, context.env, services.paths.root);
      let watching: { close(): Promise<void> } | undefined;
      try {
        // Before any indexing: an unknown agent is a usage error, and files that did not load are said once.
        const custom = loadCustomAgents({ sylkHome: services.paths.sylkHome, root: services.paths.root });
        warnAboutAgentFiles(custom.errors, context.stderr);
        const role = resolveRole(services.loadedConfig.config.agent.type, custom.agents);
        await resolveIndexConsent(services.consent, { yes: options.yes ?? false });
        // An interactive sylk in this project keeps the index current and in memory: use it, if it answers.
        const warm = await warmIndexOf(services);
        if (!warm) {
          const progress = new IndexProgressPrinter(context.stderr.isTTY ? "bar" : "lines", context.stderr, context.stderr);
          await indexProject(services, context, progress, { quiet: true });
        }
        // In the background, as the interactive session: grep then needs no check of the whole tree at each call.
        watching = watchWhileRunning(services);
        // A scripted run has no later prompt to offer a late server's tools to: it waits for the servers still
        // starting, each at most mcp.startupTimeoutMs from its start (a hung one fails, and the run goes on).
        await mcp?.settled();
        // `/mcp__<server>__<prompt> args`: the server's prompt, filled in, is what the agent is asked.
        const asked = await expandMcpPrompt(prompt, mcp);
        if (context.signal.aborted) {
          setExitCode(ExitCode.Interrupted);
          return;
        }
        const session = openAgentSession({
          services,
          env: context.env,
          role,
          // --model beats a custom agent's own model; .sylkrc's model.name does not.
          ...(options.model ? { model: options.model } : {}),
          ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
          ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
          ...(options.continue ? { resume: { latest: true } as const } : {}),
          ...(options.resume ? { resume: { id: options.resume } } : {}),
          ...(warm ? { codeSearcher: new RemoteCodeSearcher(warm, () => services.codeSearcher) } : {}),
          ...(mcp ? { mcp } : {}),
        });
        if (session.provider) warnAboutSandbox(session.sandbox, context.stderr);
        const printer = createPrinter(options.outputFormat, context, {
          sandbox: sandboxName(session.sandbox),
          agentType: session.agentType,
          mcpServers: () => mcp?.statuses().map(serverSummary) ?? [],
        });
        const run = options.pipeline ? session.runPipeline(asked, context.signal) : session.run(asked, context.signal);
        let step = await run.next();
        while (!step.done) {
          printer.event(step.value);
          step = await run.next();
        }
        setExitCode(exitCodeOf(step.value));
        // The observation under way finishes before the process ends (a graceful shutdown: notes half written are not lost).
        await session.settleMemory();
        // After the result, which stays stdout's last line: what SessionEnd hooks have to say goes to stderr.
        for (const event of await session.end("exit")) {
          if (event.type === "hook" && hookIsShown(event)) context.stderr.write(terminalText(`sylk: ${hookNote(event)}\n`));
        }
        session.close();
        warm?.close();
      } finally {
        await watching?.close();
        await mcp?.close();
        await services.close();
      }
    });
}

/** The prompt, or the MCP prompt it names as a slash command, filled in (a server's error is a usage error). */
async function expandMcpPrompt(prompt: string, mcp: McpServers | undefined): Promise<string> {
  if (!mcp || !prompt.startsWith("/mcp__")) return prompt;
  const { mcpSlashCommands, mcpSlashCommandOf } = await import("../../mcp/session/mcp-prompt-commands.js");
  const found = mcpSlashCommandOf(prompt, mcpSlashCommands(mcp));
  if (!found) return prompt;
  try {
    return await found.command.expand(found.typed);
  } catch (error) {
    throw new BadInputError(`${found.command.usage}: ${errorMessage(error)}`);
  }
}

/** How long `sylk ask` waits for the interactive session to bring the index up to date. */
const CATCH_UP_TIMEOUT_MS = 120_000;

/**
 * The warm index of an interactive session in this project, brought up to
 * date, or undefined when there is none to use (then this process indexes
 * and searches itself, as always).
 */
async function warmIndexOf(services: ProjectServices): Promise<WarmIndexClient | undefined> {
  const { WarmIndexClient } = await import("../../app/warm-index/warm-index-client.js");
  const client = await WarmIndexClient.forProject(services.paths);
  if (!client) return undefined;
  const state = await client.catchUp(CATCH_UP_TIMEOUT_MS).catch(() => undefined);
  if (state === "fresh") return client;
  client.close();
  return undefined;
}

/** The one place a run's outcome becomes a process exit code. */
export function exitCodeOf(result: AgentResult): ExitCodeValue {
  switch (result.stopReason) {
    case "end_turn":
    case "max_tokens":
      return ExitCode.Success;
    case "max_turns":
      return ExitCode.TurnLimit;
    case "interrupted":
      return ExitCode.Interrupted;
    case "blocked":
      return ExitCode.Blocked;
    case "error":
      if (result.error?.kind === "authentication" || result.error?.kind === "permission") return ExitCode.Authentication;
      if (result.error?.kind === "tool") return ExitCode.FatalTool;
      // A window too small for the system prompt and tools is the configuration's to fix; a prompt too long for it, the input's.
      if (result.error?.kind === "context_window") return ExitCode.Configuration;
      if (result.error?.kind === "prompt_too_long") return ExitCode.BadInput;
      return ExitCode.General;
  }
}

async function readPrompt(argument: string | undefined, context: CliContext): Promise<string> {
  const piped = context.stdin.isTTY ? "" : await readAll(context.stdin);
  const prompt = argument?.trim() ?? "";
  if (prompt && piped.trim()) return `${prompt}\n\n<stdin>\n${piped.trimEnd()}\n</stdin>`;
  if (prompt) return prompt;
  if (piped.trim()) return piped.trim();
  throw new BadInputError('Give a prompt: sylk ask "…", or pipe one on stdin.');
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    chunks.push(buffer);
    if (size > MAX_STDIN_BYTES) break;
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return size > MAX_STDIN_BYTES ? `${text.slice(0, MAX_STDIN_BYTES)}\n[… stdin cut at 1 MiB]` : text;
}
