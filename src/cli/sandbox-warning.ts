import { describeSandbox, keptReadable, type SandboxStatus } from "../agent/sandbox/command-sandbox.js";
import { terminalText } from "./terminal-text.js";

/**
 * Says once, on stderr, that commands will run unsandboxed because this
 * machine cannot make a sandbox, and what to do about it, or which
 * credential places the sandbox leaves readable (the project is inside
 * them). Nothing is said when the sandbox is on and hides all it should,
 * or when the user turned it off on purpose.
 */
export function warnAboutSandbox(status: SandboxStatus, stderr: NodeJS.WritableStream): void {
  for (const warning of keptReadable(status)) stderr.write(`sylk: warning: ${terminalText(warning)}\n`);
  if (status.state !== "unavailable") return;
  stderr.write(
    `sylk: warning: ${terminalText(describeSandbox(status))}. Set sandbox.enabled to false to run commands unsandboxed on purpose and silence this.\n`,
  );
}

/** The sandbox in one word, as `stream-json`'s `init` event and `sylk status --json` give it. */
export function sandboxName(status: SandboxStatus): string {
  return status.state === "on" ? status.kind : status.state;
}
