import { Command, CommanderError } from "commander";
import { ExitCode, type ExitCodeValue, FatalError } from "../errors.js";
import { sylkHome } from "../project/project-paths.js";
import type { CliContext } from "./cli-context.js";
import { registerAgentsCommand } from "./commands/agents-command.js";
import { registerAskCommand } from "./commands/ask-command.js";
import { registerConfigCommand } from "./commands/config-command.js";
import { registerDoctorCommand } from "./commands/doctor-command.js";
import { registerIndexCommand } from "./commands/index-command.js";
import { registerInteractiveCommand } from "./commands/interactive-command.js";
import { registerSearchCommand } from "./commands/search-command.js";
import { registerSessionsCommand } from "./commands/sessions-command.js";
import { registerLearningCommand } from "./commands/learning-command.js";
import { registerMcpCommand } from "./commands/mcp-command.js";
import { registerMemoryCommand } from "./commands/memory-command.js";
import { registerStatusCommand } from "./commands/status-command.js";
import { registerTrustCommand } from "./commands/trust-command.js";
import { diskFullMessage } from "./disk-full.js";
import { packageVersion } from "./package-version.js";
import { addGlobalOptions, resolveRoot } from "./shared-options.js";
import { listenForStopSignals } from "./stop-signals.js";
import { terminalText } from "./terminal-text.js";

/** Builds the command tree; each subcommand lives in its own module (the README's tables are checked against it). */
export function buildProgram(context: CliContext, setExitCode: (code: ExitCodeValue) => void = () => undefined): Command {
  const program = addGlobalOptions(new Command("sylk"))
    .description("A terminal-first coding agent that never forgets.")
    .version(packageVersion())
    .exitOverride()
    .configureOutput({
      // Usage errors quote the arguments, which a script may have taken from anywhere.
      writeOut: (text) => context.stdout.write(terminalText(text)),
      writeErr: (text) => context.stderr.write(terminalText(text)),
    })
    .hook("preAction", (command) => {
      const cwd = (command.opts() as { cwd?: string }).cwd;
      if (cwd) context.cwd = resolveRoot(context, cwd);
    });
  registerIndexCommand(program, context);
  registerSearchCommand(program, context);
  registerStatusCommand(program, context);
  registerAskCommand(program, context, setExitCode);
  registerSessionsCommand(program, context);
  registerLearningCommand(program, context);
  registerAgentsCommand(program, context);
  registerMemoryCommand(program, context);
  registerMcpCommand(program, context);
  registerTrustCommand(program, context);
  registerConfigCommand(program, context);
  registerDoctorCommand(program, context, setExitCode);
  // Last: `sylk` with no command starts it.
  registerInteractiveCommand(program, context);
  return program;
}

/**
 * Runs the CLI and returns the exit code. Fatal errors become exit codes
 * here and only here; Ctrl-C, SIGTERM and SIGHUP abort the running command
 * (see `listenForStopSignals`).
 */
export async function main(argv: string[], overrides: Partial<CliContext> = {}): Promise<number> {
  const controller = new AbortController();
  const context: CliContext = {
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
    ...overrides,
  };
  const stopSignals = listenForStopSignals(controller, context.stderr);
  // Kept after main returns: what the command wrote may reach a closed pipe later.
  if (context.stdout === process.stdout && !process.stdout.listeners("error").includes(endQuietlyOnClosedPipe)) {
    process.stdout.on("error", endQuietlyOnClosedPipe);
  }
  let exitCode: ExitCodeValue = ExitCode.Success;
  try {
    await buildProgram(context, (code) => (exitCode = code)).parseAsync(argv);
    return stopSignals.exitCode() ?? exitCode;
  } catch (error) {
    const code = reportError(error, context);
    return stopSignals.exitCode() ?? code;
  } finally {
    stopSignals.dispose();
  }
}

/** A reader that stops early (`sylk sessions | head -1`) closes the pipe: the command ends quietly, as other tools do. */
function endQuietlyOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === "EPIPE") process.exit(ExitCode.Success);
  throw error;
}

function reportError(error: unknown, context: CliContext): number {
  // Said where the painted prompt stood, in a terminal given back.
  context.firstPaint?.release();
  if (error instanceof CommanderError) {
    // Commander has printed usage or the message already.
    return error.exitCode === 0 ? ExitCode.Success : ExitCode.BadInput;
  }
  // Messages quote paths, file names and configuration values: shown escaped.
  if (error instanceof FatalError) {
    context.stderr.write(`sylk: ${terminalText(error.message)}\n`);
    return error.exitCode;
  }
  if (context.signal.aborted) {
    context.stderr.write("sylk: interrupted\n");
    return ExitCode.Interrupted;
  }
  const message = diskFullMessage(error, sylkHome(context.env)) ?? (error instanceof Error ? error.message : String(error));
  context.stderr.write(`sylk: ${terminalText(message)}\n`);
  if (context.env.SYLK_DEBUG && error instanceof Error && error.stack) context.stderr.write(`${terminalText(error.stack)}\n`);
  return ExitCode.General;
}
