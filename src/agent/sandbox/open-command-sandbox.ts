import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import type { SandboxConfig, SylkConfig } from "../../config/schema.js";
import { sylkHome } from "../../project/project-paths.js";
import { opensNetwork } from "../permissions/permission-policy.js";
import { bubblewrapArguments, probeBubblewrap, type ProbeResult } from "./bubblewrap.js";
import {
  unsandboxed,
  type CommandSandbox,
  type PreparedCommand,
  type SandboxKind,
  type SandboxScope,
  type SpawnPlan,
} from "./command-sandbox.js";
import { emptyFileIn } from "./empty-file.js";
import { Placeholders } from "./placeholders.js";
import { readDenial } from "./read-denial.js";
import { expandHome, realOrSelf, shownPath } from "./sandbox-paths.js";
import { hasSandboxExec, SANDBOX_EXEC, sandboxExecArguments, seatbeltProfile, temporaryDirectoriesOf } from "./seatbelt.js";
import { writeProtection, type UserPlaces, type WriteProtection } from "./write-protection.js";

export interface OpenSandboxOptions {
  config: SandboxConfig;
  /** Allow rules open the network for some commands. */
  networkRules: boolean;
  env: NodeJS.ProcessEnv;
  /** The project root: what the status says is hidden depends on where the project is. */
  root: string;
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
  const places: UserPlaces = { env: options.env, sylkHome: realOrSelf(sylkHome(options.env)) };
  const configured = options.config.writableDirectories.map((directory) => expandHome(directory, options.env));
  const denyRead = options.config.denyRead.map((path) => expandHome(path, options.env));
  const scopeOf = (scope: SandboxScope) => realScope(scope, configured);
  const sessionDenial = readDenial(scopeOf({ root: options.root, writable: [], network: false }), places, denyRead);
  const on = (kind: SandboxKind) => ({
    state: "on" as const,
    kind,
    network: options.config.network,
    networkRules: options.networkRules,
    hidden: sessionDenial.hidden.map((entry) => shownPath(entry.path, options.env)),
    kept: sessionDenial.kept,
  });
  const notesGiven = new Set<string>();
  const prepared = (plan: SpawnPlan, protection: WriteProtection, release: () => void): PreparedCommand => {
    const notes = protection.notes.filter((note) => !notesGiven.has(note));
    for (const note of notes) notesGiven.add(note);
    return { plan, release, nestedRepositories: protection.nestedRepositories, notes };
  };

  if (platform === "linux") {
    const probe = (options.probe ?? probeBubblewrap)(options.env);
    if (!probe.ok) return unsandboxed({ state: "unavailable", reason: probe.reason });
    const placeholders = new Placeholders();
    return {
      status: on("bubblewrap"),
      isPlaceholder: (path) => placeholders.isPlaceholder(path),
      prepare: (shell, command, env, requested) => {
        const scope = scopeOf(requested);
        const protection = writeProtection(scope, places);
        const { held, existing } = placeholders.acquire(protection.absent);
        const mounts = {
          readOnly: [...protection.readOnly, ...existing, ...held],
          hidden: readDenial(scope, places, denyRead).hidden,
          emptyFile: emptyFileIn(places.sylkHome),
        };
        const plan = { file: "bwrap", args: bubblewrapArguments(shell, command, scope, mounts), env: { ...env, TMPDIR: "/tmp" } };
        return prepared(plan, protection, () => placeholders.release(held));
      },
    };
  }
  if (platform === "darwin") {
    if (!hasSandboxExec()) return unsandboxed({ state: "unavailable", reason: `${SANDBOX_EXEC} is missing` });
    const temporary = temporaryDirectoriesOf(["/tmp", "/private/var/tmp", tmpdir()], realpathSync);
    return {
      status: on("sandbox-exec"),
      isPlaceholder: () => false,
      prepare: (shell, command, env, requested) => {
        const scope = scopeOf(requested);
        const protection = writeProtection(scope, places);
        const profile = seatbeltProfile(scope, temporary, {
          readOnly: [...protection.readOnly, ...protection.absent.map((entry) => entry.path)],
          hidden: readDenial(scope, places, denyRead).hidden,
        });
        return prepared({ file: SANDBOX_EXEC, args: sandboxExecArguments(shell, command, profile), env }, protection, () => undefined);
      },
    };
  }
  return unsandboxed({
    state: "unavailable",
    reason: `Sylk has no sandbox for ${platform} (it uses bubblewrap on Linux and sandbox-exec on macOS)`,
  });
}

/** The sandbox this machine offers for commands in `root`, as the configuration asks for it. */
export function sandboxFor(config: Pick<SylkConfig, "sandbox" | "permissions">, env: NodeJS.ProcessEnv, root: string): CommandSandbox {
  return openCommandSandbox({ config: config.sandbox, networkRules: opensNetwork(config.permissions.allow), env, root });
}

/** The scope with real paths (both sandboxes compare resolved paths) and the configured directories added. */
function realScope(scope: SandboxScope, configured: readonly string[]): SandboxScope {
  return {
    root: realOrSelf(scope.root),
    writable: [...new Set([...scope.writable, ...configured].map(realOrSelf))],
    network: scope.network,
  };
}
