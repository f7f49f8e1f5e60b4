import { ExitCode, type ExitCodeValue } from "../errors.js";

/**
 * How long a process told to stop may take to end on its own (the turn
 * recorded as interrupted, commands killed, the terminal restored, the
 * database closed) before it ends as the signal's default action would.
 * Container runtimes wait 10 s before SIGKILL; half that leaves a loaded
 * machine time to finish cleanly.
 */
export const STOP_GRACE_MS = 5_000;

type TerminationSignal = "SIGTERM" | "SIGHUP";

const EXIT_CODES: Record<TerminationSignal, ExitCodeValue> = { SIGTERM: ExitCode.Terminated, SIGHUP: ExitCode.HungUp };

export interface StopSignals {
  /** 128 + the number of the termination signal that stopped the command, if one did. */
  exitCode(): ExitCodeValue | undefined;
  /** Stops listening. A hard stop already under way stays under way. */
  dispose(): void;
}

/**
 * Ctrl-C, SIGTERM and SIGHUP abort the command's signal, so that a running
 * turn stops as Esc stops it and the session is recorded; a second Ctrl-C,
 * or a second termination signal, ends the process at once. A termination
 * signal also arms a hard stop: if the process has not ended `graceMs`
 * later (something that cannot be cancelled, such as a read of a pipe
 * nobody writes, holds it), it ends by the signal's default action, which
 * nothing can hold. `process.exit` could: it waits for such a read for ever.
 */
export function listenForStopSignals(
  controller: AbortController,
  stderr: NodeJS.WritableStream,
  graceMs: number = STOP_GRACE_MS,
): StopSignals {
  let terminatedBy: TerminationSignal | undefined;
  const onInterrupt = () => {
    if (controller.signal.aborted) return endNow("SIGINT");
    stderr.write("\nStopping… (Ctrl-C again to quit at once)\n");
    controller.abort();
  };
  const onTermination = (signal: TerminationSignal) => () => {
    if (terminatedBy) return endNow(signal);
    terminatedBy = signal;
    // After SIGHUP the terminal is gone: there is no one to tell.
    if (signal === "SIGTERM") stderr.write("\nsylk: terminated; stopping…\n");
    controller.abort();
    setTimeout(() => endNow(signal), graceMs).unref();
  };
  const listeners: Array<[NodeJS.Signals, () => void]> = [
    ["SIGINT", onInterrupt],
    ["SIGTERM", onTermination("SIGTERM")],
    ["SIGHUP", onTermination("SIGHUP")],
  ];
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return {
    exitCode: () => (terminatedBy ? EXIT_CODES[terminatedBy] : undefined),
    dispose: () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}

/** Ends the process as the signal's default action does: no listener is left to catch it. */
function endNow(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}
