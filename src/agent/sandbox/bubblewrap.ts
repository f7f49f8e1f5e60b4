import { spawnSync } from "node:child_process";
import type { SandboxScope } from "./command-sandbox.js";
import type { HiddenPath } from "./read-denial.js";
import { isWithin } from "./sandbox-paths.js";

/** What a probe answers: bwrap works here, or why it does not. */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** What is mounted over the writable directories: the protected paths, then the hidden ones. */
export interface ProtectiveMounts {
  /** Existing paths (placeholders included), each bound read-only on itself. */
  readOnly: readonly string[];
  hidden: readonly HiddenPath[];
  /** An empty file, bound read-only over each hidden file. */
  emptyFile: string;
}

/**
 * The arguments that run `shell -c command` in a bubblewrap sandbox: the
 * whole file system read-only, a fresh `/tmp`, the project and the other
 * writable directories mounted writable over it (so a project under `/tmp`
 * reappears), then the protected paths read-only again (a mount point can be
 * neither written nor renamed nor removed), then the hidden paths covered by
 * empty read-only ones, and every namespace unshared (no network unless
 * asked, no view of other processes). `--die-with-parent` and
 * `--new-session` keep a killed run from leaving processes behind or
 * reaching the terminal.
 */
export function bubblewrapArguments(shell: string, command: string, scope: SandboxScope, mounts: ProtectiveMounts): string[] {
  const args = ["--die-with-parent", "--new-session", "--unshare-all"];
  if (scope.network) args.push("--share-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  args.push("--bind", scope.root, scope.root);
  for (const directory of scope.writable) args.push("--bind-try", directory, directory);
  for (const path of mounts.readOnly) args.push("--ro-bind", path, path);
  const visible = [scope.root, ...scope.writable];
  for (const { path, kind } of mounts.hidden) {
    // The command's /tmp is its own: what the host keeps there is out of sight already.
    if (isWithin(path, "/tmp") && !visible.some((directory) => isWithin(path, directory))) continue;
    if (kind === "directory") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", mounts.emptyFile, path);
  }
  args.push("--chdir", scope.root, "--setenv", "TMPDIR", "/tmp", "--", shell, "-c", command);
  return args;
}

/**
 * Whether bubblewrap can make a sandbox on this machine: it may be missing,
 * or the kernel may refuse unprivileged user namespaces (some containers and
 * distributions do). One run of `true` inside the same kind of sandbox tells.
 */
export function probeBubblewrap(env: NodeJS.ProcessEnv): ProbeResult {
  const result = spawnSync(
    "bwrap",
    ["--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"],
    {
      env,
      encoding: "utf8",
      timeout: 5_000,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    return {
      ok: false,
      reason: "bubblewrap is not installed (install the bubblewrap package: apt-get install bubblewrap, dnf install bubblewrap)",
    };
  }
  if (result.error) return { ok: false, reason: `bubblewrap could not be started: ${result.error.message}` };
  if (result.status !== 0) {
    const detail = result.stderr.trim().split("\n")[0] || `exit code ${result.status ?? result.signal}`;
    return { ok: false, reason: `bubblewrap cannot create a sandbox on this machine (${detail})` };
  }
  return { ok: true };
}
