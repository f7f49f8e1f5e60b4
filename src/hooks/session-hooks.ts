import type { ConfiguredHook } from "../config/hook-layers.js";
import { changedHookScript } from "../config/hook-scripts.js";
import { maskSecrets } from "../security/secrets.js";
import { claudeCodeNamesOf } from "./claude-code-names.js";
import { readHookVerdict, type HookVerdict } from "./hook-answer.js";
import { type HookEventName, matcherSubject } from "./hook-events.js";
import { type HookProcessOptions, type HookProcessResult, runHookCommand } from "./run-hook-command.js";

/** One hook run, as the user sees it (the `hook` event). */
export interface HookRunReport {
  hookEvent: HookEventName;
  command: string;
  toolName?: string;
  outcome: HookVerdict["outcome"];
  exitCode: number | null;
  durationMs: number;
  /** Why it blocked, or what went wrong. */
  message?: string;
  permissionDecision?: HookVerdict["permissionDecision"];
  /** What the hook asked the user to see (`systemMessage`), or what Sylk did not take from it. */
  note?: string;
}

/** What the hooks of one event said together. */
export interface HookOutcome {
  /** Set when any hook blocked: every blocking hook's reason, one per line. */
  blocked?: string;
  /** `ask` when any hook asks; `allow` when a hook the user wrote allows and none asks. */
  permissionDecision?: "allow" | "ask";
  permissionReason?: string;
  /** Every hook's context for the model, in configuration order. */
  additionalContext?: string;
}

export interface SessionHooksDeps {
  hooks: readonly ConfiguredHook[];
  /** The project root: the hooks' working directory and `cwd`. */
  root: string;
  /** The user's environment, which hooks run with (and `SYLK_PROJECT_DIR`, `CLAUDE_PROJECT_DIR`). */
  env: NodeJS.ProcessEnv;
  sessionId: () => string;
  permissionMode: () => string;
  /** Where the hooks' process groups are registered while they run, so that they end with Sylk. */
  processes?: HookProcessOptions["processes"];
}

/** A hook ready to run: its matcher compiled once. */
interface PreparedHook extends ConfiguredHook {
  matches: (subject: string | undefined) => boolean;
}

/**
 * The hooks of one session: which run for an event, running them (at once,
 * each command once), and what they said together. Every run is kept as a
 * report until the agent loop or the session takes it, to show the user.
 */
export class SessionHooks {
  private readonly hooks: PreparedHook[];
  private readonly reports: HookRunReport[] = [];

  constructor(private readonly deps: SessionHooksDeps) {
    this.hooks = deps.hooks.map((hook) => ({ ...hook, matches: matcherOf(hook.matcher) }));
  }

  /** Whether any hook is configured for this event (nothing is started otherwise). */
  has(event: HookEventName): boolean {
    return this.hooks.some((hook) => hook.event === event);
  }

  /** The reports of hook runs since the last call, oldest first. */
  takeReports(): HookRunReport[] {
    return this.reports.splice(0);
  }

  /** Runs the event's matching hooks with `input` (beside the common fields) on their stdin. */
  async run(event: HookEventName, input: Record<string, unknown>, signal?: AbortSignal): Promise<HookOutcome> {
    const subjectField = matcherSubject(event);
    const subject = subjectField ? input[subjectField] : undefined;
    const selected = onePerCommand(
      this.hooks.filter((hook) => hook.event === event && hook.matches(typeof subject === "string" ? subject : undefined)),
    );
    if (selected.length === 0) return {};
    const payload = JSON.stringify({
      session_id: this.deps.sessionId(),
      cwd: this.deps.root,
      hook_event_name: event,
      permission_mode: this.deps.permissionMode(),
      ...input,
    });
    const verdicts = await Promise.all(selected.map(async (hook) => this.runOne(hook, event, input, payload, signal)));
    return combined(verdicts);
  }

  /** One hook, unless a script it names changed during the session; its report kept, its verdict returned. */
  private async runOne(
    hook: PreparedHook,
    event: HookEventName,
    input: Record<string, unknown>,
    payload: string,
    signal: AbortSignal | undefined,
  ): Promise<HookVerdict> {
    const { root } = this.deps;
    const changed = changedHookScript(hook.scripts, root);
    const result: HookProcessResult = changed
      ? { ending: "not_started", exitCode: null, stdout: "", stderr: "", durationMs: 0, error: changedScript(changed) }
      : await runHookCommand({
          command: hook.command,
          input: payload,
          cwd: root,
          env: { ...this.deps.env, SYLK_PROJECT_DIR: root, CLAUDE_PROJECT_DIR: root },
          timeoutMs: hook.timeoutSeconds * 1_000,
          ...(signal ? { signal } : {}),
          ...(this.deps.processes ? { processes: this.deps.processes } : {}),
        });
    const verdict = readHookVerdict(event, result, hook.timeoutSeconds);
    const ignoredAllow = verdict.permissionDecision === "allow" && hook.source === "project";
    this.reports.push({
      hookEvent: event,
      // Shown and streamed: a token written into the command line is masked as any output is.
      command: maskSecrets(hook.command).text,
      ...(event === "PreToolUse" || event === "PostToolUse" ? { toolName: String(input.tool_name) } : {}),
      outcome: verdict.outcome,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      ...(verdict.message ? { message: verdict.message } : {}),
      ...(verdict.permissionDecision ? { permissionDecision: verdict.permissionDecision } : {}),
      ...(ignoredAllow
        ? { note: "its allow was not taken: a project's hook may deny or ask, only a hook you wrote may allow" }
        : verdict.systemMessage
          ? { note: verdict.systemMessage }
          : {}),
    });
    return ignoredAllow ? { ...verdict, permissionDecision: undefined } : verdict;
  }
}

function changedScript(file: string): string {
  return `${file} changed during this session, and a hook runs outside the sandbox: a script that may have been changed by the agent is not run (start a new session to run it as it is now)`;
}

/** A blocking hook wins; then an `ask`; an `allow` only when nothing else was said. */
function combined(verdicts: readonly HookVerdict[]): HookOutcome {
  const blocking = verdicts.filter((verdict) => verdict.outcome === "blocked");
  const contexts = verdicts.flatMap((verdict) => (verdict.additionalContext ? [verdict.additionalContext] : []));
  const context = contexts.length > 0 ? { additionalContext: contexts.join("\n\n") } : {};
  if (blocking.length > 0) return { blocked: blocking.map((verdict) => verdict.message ?? "").join("\n"), ...context };
  const asking = verdicts.find((verdict) => verdict.permissionDecision === "ask");
  const allowing = verdicts.find((verdict) => verdict.permissionDecision === "allow");
  const decided = asking ?? allowing;
  if (!decided?.permissionDecision) return context;
  return { permissionDecision: decided.permissionDecision, ...(decided.message ? { permissionReason: decided.message } : {}), ...context };
}

/** The same command configured twice (in ~/.sylkrc and the project's) runs once, as the user's if it is theirs. */
function onePerCommand(hooks: readonly PreparedHook[]): PreparedHook[] {
  const byCommand = new Map<string, PreparedHook>();
  for (const hook of hooks) {
    const seen = byCommand.get(hook.command);
    if (!seen || (seen.source === "project" && hook.source !== "project")) byCommand.set(hook.command, hook);
  }
  return [...byCommand.values()];
}

/**
 * A matcher is a regular expression matched against the whole subject (a
 * tool's Sylk name or its Claude Code name); none, `""` and `*` match
 * everything, as in Claude Code.
 */
function matcherOf(matcher: string | undefined): (subject: string | undefined) => boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  const pattern = new RegExp(`^(?:${matcher})$`);
  return (subject) => subject !== undefined && [subject, ...claudeCodeNamesOf(subject)].some((name) => pattern.test(name));
}
