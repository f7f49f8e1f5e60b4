/**
 * Commands the agent runs are fenced in by the operating system, as Codex
 * and Claude Code do: pattern checks cannot see through `base64 -d | sh`,
 * a sandbox does not need to. The project and a private temporary directory
 * are writable, everything else is read-only, and the network is off unless
 * the user opens it.
 */
export type SandboxKind = "bubblewrap" | "sandbox-exec";

/** Whether commands run fenced in, and if not, why not. */
export type SandboxStatus =
  | {
      state: "on";
      kind: SandboxKind;
      /** `sandbox.network`: every command may reach the network. */
      network: boolean;
      /** Allow rules open the network for some commands (`network(<pattern>)`). */
      networkRules: boolean;
      /** What commands cannot read (`~/.ssh`, …), as the user writes the paths. */
      hidden: readonly string[];
      /** Credential places left readable because the project or a writable directory is inside them, with why. */
      kept: ReadonlyArray<{ path: string; reason: string }>;
    }
  /** The user turned it off (`sandbox.enabled`, `--no-sandbox`). */
  | { state: "off" }
  /** Wanted, but this machine cannot make one; commands run unsandboxed. */
  | { state: "unavailable"; reason: string };

/** What one command may touch. */
export interface SandboxScope {
  /** The project root: writable. */
  root: string;
  /** Other writable directories: those the user allowed tools to reach, and `sandbox.writableDirectories`. */
  writable: readonly string[];
  network: boolean;
}

/** How to start a command: the program, its arguments and environment. */
export interface SpawnPlan {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** One command, ready to start. */
export interface PreparedCommand {
  plan: SpawnPlan;
  /** Call once the command and everything it started have ended: placeholders it relied on may go. */
  release(): void;
  /** Nested repositories' `.git` entries, which the integrity check compares after the command. */
  nestedRepositories: readonly string[];
  /** What the sandbox could not cover, for the user; each is given once a session. */
  notes: readonly string[];
}

export interface CommandSandbox {
  readonly status: SandboxStatus;
  /** `shell -c command`, wrapped in the sandbox when it is on, as it is otherwise. */
  prepare(shell: string, command: string, env: NodeJS.ProcessEnv, scope: SandboxScope): PreparedCommand;
  /** Whether Sylk holds this path with an empty placeholder now (see `Placeholders`): it is not really there. */
  isPlaceholder(path: string): boolean;
}

/** One line for `sylk status`, warnings and the session's first note. */
export function describeSandbox(status: SandboxStatus): string {
  switch (status.state) {
    case "on":
      return (
        `commands run sandboxed (${status.kind}: only the project and a temporary directory are writable, ` +
        `but not .git or Sylk's settings; ${hiddenText(status)}; ${networkText(status)})`
      );
    case "off":
      return "commands run unsandboxed: the sandbox is turned off (sandbox.enabled is false, or --no-sandbox)";
    case "unavailable":
      return `commands run unsandboxed: ${status.reason}`;
  }
}

/** Short forms for the status line; the usual case (sandboxed, no network) is the shortest. */
export function sandboxLabel(status: SandboxStatus): { full: string; short: string } {
  switch (status.state) {
    case "on":
      if (status.network) return { full: "sandboxed, network on", short: "sandboxed+net" };
      return status.networkRules ? { full: "sandboxed, network by rule", short: "sandboxed" } : { full: "sandboxed", short: "sandboxed" };
    case "off":
      return { full: "unsandboxed (off)", short: "unsandboxed" };
    case "unavailable":
      return { full: "unsandboxed (no sandbox here)", short: "unsandboxed" };
  }
}

function hiddenText(status: Extract<SandboxStatus, { state: "on" }>): string {
  const [first, second, ...rest] = status.hidden;
  if (first === undefined) return "nothing hidden";
  const named = [first, second].filter((path) => path !== undefined).join(", ");
  return `${named}${rest.length > 0 ? ` and ${rest.length} more` : ""} hidden`;
}

/** Credential places left readable, one sentence each, for a warning at the session's start; none usually. */
export function keptReadable(status: SandboxStatus): string[] {
  if (status.state !== "on") return [];
  return status.kept.map((entry) => `${entry.path} is readable by sandboxed commands: ${entry.reason}, so hiding it would hide that too.`);
}

function networkText(status: Extract<SandboxStatus, { state: "on" }>): string {
  if (status.network) return "network on";
  return status.networkRules ? "network off but for allowed commands" : "network off";
}

/** Runs commands as they are: the sandbox is off or unavailable. */
export function unsandboxed(status: Exclude<SandboxStatus, { state: "on" }>): CommandSandbox {
  return {
    status,
    prepare: (shell, command, env) => ({
      plan: { file: shell, args: ["-c", command], env },
      release: () => undefined,
      nestedRepositories: [],
      notes: [],
    }),
    isPlaceholder: () => false,
  };
}
