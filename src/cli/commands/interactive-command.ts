import { setImmediate as nextTurnOfEventLoop } from "node:timers/promises";
import { type Command, Option } from "commander";
import { PERMISSION_MODES, type PermissionMode } from "../../agent/permissions/permission-modes.js";
import { startBubblewrapProbe } from "../../agent/sandbox/bubblewrap.js";
import { BadInputError } from "../../errors.js";
import type { CliContext } from "../cli-context.js";
import type { InteractiveSession } from "../../app/interactive-session.js";
import { openingWarnings } from "../opening-warnings.js";
import { agentFileWarnings } from "../custom-agent-errors.js";
import { resolveRoot } from "../shared-options.js";

interface InteractiveOptions {
  model?: string;
  provider?: string;
  permissionMode?: PermissionMode;
  continue?: boolean;
  resume?: string;
  /** `--no-sandbox` sets it false. */
  sandbox: boolean;
  /** A built-in agent type or a custom agent's name, checked once the custom agents are loaded. */
  agent?: string;
}

/**
 * `sylk` on its own: the interactive session. A default subcommand rather
 * than options on the root program, so `sylk ask --model x` keeps its own
 * options (commander hands root options found after a subcommand to the root).
 */
export function registerInteractiveCommand(program: Command, context: CliContext): void {
  program
    .command("chat", { isDefault: true })
    .description('the interactive session (what `sylk` with no command starts); `sylk "prompt"` starts it with that prompt')
    .argument("[prompt...]", "a first prompt to send once the session is open")
    .option("--model <name>", "model to use (overrides model.name)")
    .addOption(new Option("--provider <provider>", "model provider").choices(["anthropic", "openai-compatible", "none"]))
    .addOption(new Option("--permission-mode <mode>", "what runs without asking").choices(PERMISSION_MODES))
    .option("-c, --continue", "continue the latest session of this project")
    .option("-r, --resume <session>", "resume a session by id (or the start of one)")
    .option("--agent <name>", "the agent to talk to, built-in or custom (`sylk agents` lists them; overrides agent.type; default engineer)")
    .option("--no-sandbox", "run commands without the OS sandbox (overrides sandbox.enabled)")
    .action(async (words: string[], options: InteractiveOptions) => {
      const commands = program.commands.map((command) => command.name());
      // A first word on its own (not one quoted prompt) that is a command mistyped: `sylk serach x`.
      const first = words[0] ?? "";
      const nearMiss = /\s/.test(first) ? undefined : commands.find((name) => isTypoOf(first, name));
      if (nearMiss) {
        throw new BadInputError(
          `Unknown command "${words[0]}": did you mean \`sylk ${nearMiss}\`? (\`sylk "${words[0]}"\` with quotes and more words starts a session with that prompt.)`,
        );
      }
      const initialPrompt = words.join(" ").trim();
      if (options.continue && options.resume) throw new BadInputError("Use --continue or --resume, not both.");
      if (!context.stdin.isTTY || !context.stdout.isTTY) {
        throw new BadInputError('The interactive session needs a terminal. In scripts and pipes use: sylk ask "…" (see sylk ask --help).');
      }
      const flags: Record<string, unknown> = {};
      if (options.model) flags["model.name"] = options.model;
      if (options.provider) flags["model.provider"] = options.provider;
      if (!options.sandbox) flags["sandbox.enabled"] = false;
      if (options.agent) flags["agent.type"] = options.agent;
      const { settleFolderTrust } = await import("../folder-trust-question.js");
      await settleFolderTrust(resolveRoot(context), context);
      // The prompt is drawn before the session's modules load, and keeps what is typed while they do.
      const { showLaunchFrame } = await import("../../tui/launch-frame.js");
      const screen = showLaunchFrame({
        env: context.env,
        stdin: context.stdin as NodeJS.ReadStream,
        stdout: context.stdout as NodeJS.WriteStream,
        stderr: context.stderr as NodeJS.WriteStream,
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.firstPaint ? { firstPaint: context.firstPaint } : {}),
      });
      // The sandbox's probe runs beside the loading below rather than in front of the first frame.
      const sandboxProbe = options.sandbox && process.platform === "linux" ? startBubblewrapProbe(context.env) : undefined;
      let session: InteractiveSession | undefined;
      let sessionId: string | undefined;
      try {
        // Loaded when the command runs: `sylk search` and the others do not pay for this one's modules. The
        // session's modules come a part at a time, with the typed keys read between parts: loaded at once they
        // held the thread for some 200 ms, during which nothing typed in the frame was shown.
        for (const part of SESSION_MODULE_PARTS) {
          await part();
          // A turn of the event loop: keys that arrived meanwhile are read and drawn before the next part.
          await nextTurnOfEventLoop();
          if (screen.leaving) return;
        }
        const [{ openInteractiveSession }, { resumedSession }, { loadCustomAgents }, { resolveRole }] = await Promise.all([
          import("../../app/interactive-session.js"),
          import("../../app/session/resumed-session.js"),
          import("../../roles/custom-agents.js"),
          import("../../roles/resolve-role.js"),
        ]);
        if (screen.leaving) return;
        session = openInteractiveSession({ root: resolveRoot(context), env: context.env, flags });
        await nextTurnOfEventLoop();
        const { paths, loadedConfig } = session.services;
        const custom = loadCustomAgents({ sylkHome: paths.sylkHome, root: paths.root });
        // An unknown agent is a usage error, said before the session's screen is drawn.
        resolveRole(loadedConfig.config.agent.type, custom.agents);
        // `sylk search` and `sylk ask` beside this session use its index instead of loading their own.
        await session.serveWarmIndex();
        // Off the thread that draws the screen: searches use sqlite-vec until it is loaded.
        void session.warmVectorsInBackground();
        const resume = options.continue ? ({ latest: true } as const) : options.resume ? { id: options.resume } : undefined;
        // Looked up here so an unknown --resume fails with its message before the session's screen is drawn.
        if (resume) resumedSession(session.services, resume, false);
        const { startTui } = await import("../../tui/start-tui.js");
        // The session's sandbox takes the probe's answer: were it still running, the sandbox would probe again,
        // synchronously, holding the screen meanwhile.
        await sandboxProbe;
        if (screen.leaving) return;
        ({ sessionId } = await startTui(screen, {
          session,
          env: context.env,
          // What used to go to stderr before the screen: the screen is up now, so the transcript says it.
          notices: [...openingWarnings(session.services), ...agentFileWarnings(custom.errors)],
          ...(context.signal ? { signal: context.signal } : {}),
          ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
          ...(resume ? { resume } : {}),
          ...(initialPrompt ? { initialPrompt } : {}),
        }));
      } catch (error) {
        // The frame leaves the screen, and the error is printed where it stood.
        screen.close({ erase: true });
        throw error;
      } finally {
        screen.close();
        await session?.shutdown();
      }
      // On a line of its own: the screen's last line (the status line) has no line break after it.
      if (sessionId)
        context.stdout.write(`\nSession ${sessionId.slice(0, 8)} saved; continue it with: sylk --resume ${sessionId.slice(0, 8)}\n`);
    });
}

/**
 * The interactive session's module graph in parts of some 50 ms each here,
 * each importing part of what the next would: the configuration and its
 * schemas, the store, the search, the indexer, the project's services, the
 * agent and its tools, the screen. The last import (`interactive-session.js`)
 * finds them loaded.
 */
const SESSION_MODULE_PARTS: ReadonlyArray<() => Promise<unknown>> = [
  () => import("../../config/load-config.js"),
  () => import("../../store/database.js"),
  () => import("../../search/hybrid-code-searcher.js"),
  () => import("../../indexer/project-indexer.js"),
  () => import("../../app/project-services.js"),
  () => import("../../agent/tools/tool-registry.js"),
  () => import("../../app/session/open-agent-session.js"),
  () => import("../../tui/start-tui.js"),
];

/** A mistyped command name (`idnex`, `serach`): one or two letters off, or two swapped. */
function isTypoOf(word: string, command: string): boolean {
  if (word.length < 3 || word === command) return false;
  const a = word.toLowerCase();
  const b = command;
  const distance: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((distance[i - 1]?.[j] ?? 0) + 1, (distance[i]?.[j - 1] ?? 0) + 1, (distance[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (distance[i - 2]?.[j - 2] ?? 0) + 1);
      (distance[i] as number[])[j] = best;
    }
  }
  return (distance[a.length]?.[b.length] ?? Infinity) <= (b.length <= 4 ? 1 : 2);
}
