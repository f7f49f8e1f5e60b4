import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { PermissionPolicy, type PermissionMode, type PermissionRules } from "../../src/agent/permissions/permission-policy.js";
import { probeBubblewrap } from "../../src/agent/sandbox/bubblewrap.js";
import { openCommandSandbox } from "../../src/agent/sandbox/open-command-sandbox.js";
import { RepositoryIntegrity } from "../../src/agent/sandbox/repository-integrity.js";
import { CommandProcesses } from "../../src/agent/tools/command-processes.js";
import { createRunCommandTool, type RunCommandDeps } from "../../src/agent/tools/run-command.js";
import type { ToolDefinition } from "../../src/agent/tools/tool.js";
import { ToolRegistry, type Approver, type ToolRunResult } from "../../src/agent/tools/tool-registry.js";

/** Whether bubblewrap can make a sandbox here; the tests that need one skip, saying why, when it cannot. */
export const bubblewrap =
  process.platform === "linux"
    ? probeBubblewrap(process.env)
    : ({ ok: false, reason: `bubblewrap tests run on Linux, not ${process.platform}` } as const);

export interface SandboxedRegistryOptions {
  /** HOME and SYLK_HOME as the sandbox sees them (default: this process's). */
  env?: NodeJS.ProcessEnv;
  mode?: PermissionMode;
  rules?: PermissionRules;
  approver?: Approver;
  writableDirectories?: string[];
  denyRead?: string[];
  network?: RunCommandDeps["networkFor"];
  /** Shared with other tools of the same session (a role tool that runs git). */
  integrity?: RepositoryIntegrity;
  /** More tools in the same registry. */
  tools?: ToolDefinition[];
}

/** `run_command` with the machine's real sandbox behind a real registry (bypass mode unless asked: nothing asks). */
export function sandboxedRegistry(root: string, options: SandboxedRegistryOptions = {}) {
  const env = options.env ?? process.env;
  const sandbox = openCommandSandbox({
    config: { enabled: true, network: false, writableDirectories: options.writableDirectories ?? [], denyRead: options.denyRead ?? [] },
    networkRules: false,
    env,
    root,
  });
  if (sandbox.status.state !== "on") throw new Error(`no sandbox: ${JSON.stringify(sandbox.status)}`);
  const integrity = options.integrity ?? new RepositoryIntegrity(env);
  const tool = createRunCommandTool({
    sandbox,
    networkFor: options.network ?? (() => false),
    integrity,
    processes: new CommandProcesses(),
  });
  const registry = new ToolRegistry(
    [tool, ...(options.tools ?? [])],
    new PermissionPolicy(options.mode ?? "bypass", options.rules),
    options.approver,
  );
  const context = { root, signal: new AbortController().signal, extraDirectories: [] };
  return {
    sandbox,
    integrity,
    registry,
    run: (command: string, input: Record<string, unknown> = {}): Promise<ToolRunResult> =>
      registry.run({ id: "1", name: "run_command", input: { command, timeout_ms: 30_000, ...input } }, context),
    call: (name: string, input: Record<string, unknown>): Promise<ToolRunResult> => registry.run({ id: "2", name, input }, context),
  };
}

/**
 * A directory outside `/tmp` (which the sandbox replaces with its own, so
 * that anything under the host's `/tmp` is out of sight anyway): a home
 * directory whose `~/.ssh` the sandbox really has to hide, or a place it
 * really has to keep read-only.
 */
export function directoryOutsideTmp(prefix: string): string {
  return mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), prefix));
}
