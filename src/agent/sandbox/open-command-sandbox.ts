import { realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxConfig, SylkConfig } from "../../config/schema.js";
import { opensNetwork } from "../permissions/permission-policy.js";
import { bubblewrapArguments, probeBubblewrap, type ProbeResult } from "./bubblewrap.js";
import { unsandboxed, type CommandSandbox, type SandboxKind, type SandboxScope } from "./command-sandbox.js";
import { hasSandboxExec, SANDBOX_EXEC, sandboxExecArguments, seatbeltProfile, temporaryDirectoriesOf } from "./seatbelt.js";

export interface OpenSandboxOptions {
  config: SandboxConfig;
  /** Allow rules open the network for some commands. */
  networkRules: boolean;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Tests replace the probe to see the unavailable path. */
  probe?: (env: NodeJS.ProcessEnv) => ProbeResult;
}

/**
 * The sandbox commands run in on this machine: bubblewrap on Linux,
 * sandbox-exec on macOS, none elsewhere or when the user turned it off. The
 * probe runs once here, so a session knows from its start (and can say) how
 * its commands will run.
 */
export function openCommandSandbox(options: OpenSandboxOptions): CommandSandbox {
  if (!options.config.enabled) return unsandboxed({ state: "off" });
  const platform = options.platform ?? process.platform;
  const on = (kind: SandboxKind) => ({ state: "on" as const, kind, network: options.config.network, networkRules: options.networkRules });
  const configured = options.config.writableDirectories.map((directory) => expandHome(directory, options.env));

  if (platform === "linux") {
    const probe = (options.probe ?? probeBubblewrap)(options.env);
    if (!probe.ok) return unsandboxed({ state: "unavailable", reason: probe.reason });
    return {
      status: on("bubblewrap"),
      plan: (shell, command, env, scope) => ({
        file: "bwrap",
        args: bubblewrapArguments(shell, command, realScope(scope, configured)),
        env: { ...env, TMPDIR: "/tmp" },
      }),
    };
  }
  if (platform === "darwin") {
    if (!hasSandboxExec()) return unsandboxed({ state: "unavailable", reason: `${SANDBOX_EXEC} is missing` });
    const temporary = temporaryDirectoriesOf(["/tmp", "/private/var/tmp", tmpdir()], realpathSync);
    return {
      status: on("sandbox-exec"),
      plan: (shell, command, env, scope) => ({
        file: SANDBOX_EXEC,
        args: sandboxExecArguments(shell, command, seatbeltProfile(realScope(scope, configured), temporary)),
        env,
      }),
    };
  }
  return unsandboxed({ state: "unavailable", reason: `Sylk has no sandbox for ${platform} (it uses bubblewrap on Linux and sandbox-exec on macOS)` });
}

/** The sandbox this machine offers for commands, as the configuration asks for it. */
export function sandboxFor(config: Pick<SylkConfig, "sandbox" | "permissions">, env: NodeJS.ProcessEnv): CommandSandbox {
  return openCommandSandbox({ config: config.sandbox, networkRules: opensNetwork(config.permissions.allow), env });
}

/** The scope with real paths (both sandboxes compare resolved paths) and the configured directories added. */
function realScope(scope: SandboxScope, configured: readonly string[]): SandboxScope {
  return {
    root: realOrSelf(scope.root),
    writable: [...new Set([...scope.writable, ...configured].map(realOrSelf))],
    network: scope.network,
  };
}

function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
