import { describeSandbox, type SandboxStatus } from "../agent/sandbox/command-sandbox.js";
import { terminalText } from "./terminal-text.js";

/**
 * Says once, on stderr, that commands will run unsandboxed because this
 * machine cannot make a sandbox, and what to do about it. Nothing is said
 * when the sandbox is on, or when the user turned it off on purpose.
 */
export function warnIfUnsandboxed(status: SandboxStatus, stderr: NodeJS.WritableStream): void {
  if (status.state !== "unavailable") return;
  stderr.write(`sylk: warning: ${terminalText(describeSandbox(status))}. Set sandbox.enabled to false to run commands unsandboxed on purpose and silence this.\n`);
}

/** The sandbox in one word, as `stream-json`'s `init` event and `sylk status --json` give it. */
export function sandboxName(status: SandboxStatus): string {
  return status.state === "on" ? status.kind : status.state;
}
