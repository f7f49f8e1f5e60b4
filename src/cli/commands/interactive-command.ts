import { type Command, Option } from "commander";
import { PERMISSION_MODES, type PermissionMode } from "../../agent/permissions/permission-modes.js";
import { BadInputError } from "../../errors.js";
import type { CliContext } from "../cli-context.js";
import { warnAboutIgnoredSettings } from "../ignored-settings-warning.js";
import { resolveRoot } from "../shared-options.js";

interface InteractiveOptions {
  model?: string;
  provider?: string;
  permissionMode?: PermissionMode;
  continue?: boolean;
  resume?: string;
}

/**
 * `sylk` on its own: the interactive session. A default subcommand rather
 * than options on the root program, so `sylk ask --model x` keeps its own
 * options (commander hands root options found after a subcommand to the root).
 */
export function registerInteractiveCommand(program: Command, context: CliContext): void {
  program
    .command("chat", { isDefault: true })
    .description("the interactive session (what `sylk` with no command starts)")
    .argument("[words...]")
    .option("--model <name>", "model to use (overrides model.name)")
    .addOption(new Option("--provider <provider>", "model provider").choices(["anthropic", "openai-compatible", "none"]))
    .addOption(new Option("--permission-mode <mode>", "what runs without asking").choices(PERMISSION_MODES))
    .option("-c, --continue", "continue the latest session of this project")
    .option("-r, --resume <session>", "resume a session by id (or the start of one)")
    .action(async (words: string[], options: InteractiveOptions) => {
      if (words.length > 0) {
        throw new BadInputError(`Unknown command "${words[0]}". \`sylk --help\` lists the commands; \`sylk ask "…"\` runs one prompt.`);
      }
      if (options.continue && options.resume) throw new BadInputError("Use --continue or --resume, not both.");
      if (!context.stdin.isTTY || !context.stdout.isTTY) {
        throw new BadInputError('The interactive session needs a terminal. In scripts and pipes use: sylk ask "…" (see sylk ask --help).');
      }
      const flags: Record<string, unknown> = {};
      if (options.model) flags["model.name"] = options.model;
      if (options.provider) flags["model.provider"] = options.provider;
      const { settleFolderTrust } = await import("../folder-trust-question.js");
      await settleFolderTrust(resolveRoot(context), context);
      // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules.
      const [{ openInteractiveSession }, { openAgentSession }] = await Promise.all([
        import("../../app/interactive-session.js"),
        import("../../app/agent-session.js"),
      ]);
      const session = openInteractiveSession({ root: resolveRoot(context), env: context.env, flags });
      warnAboutIgnoredSettings(session.services.loadedConfig, context.stderr);
      let sessionId = "";
      try {
        const resume = options.continue ? ({ latest: true } as const) : options.resume ? { id: options.resume } : undefined;
        // Opened once here so an unknown --resume fails with its message before the screen is drawn.
        if (resume) openAgentSession({ services: session.services, env: context.env, resume });
        // Loaded here: Ink and React cost start-up time the other commands should not pay.
        const { startTui } = await import("../../tui/start-tui.js");
        ({ sessionId } = await startTui({
          session,
          env: context.env,
          stdin: context.stdin as NodeJS.ReadStream,
          stdout: context.stdout as NodeJS.WriteStream,
          stderr: context.stderr as NodeJS.WriteStream,
          signal: context.signal,
          ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
          ...(resume ? { resume } : {}),
        }));
      } finally {
        await session.shutdown();
      }
      if (sessionId) context.stdout.write(`Session ${sessionId.slice(0, 8)} saved; continue it with: sylk --resume ${sessionId.slice(0, 8)}\n`);
    });
}
