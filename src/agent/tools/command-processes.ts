import { constants } from "node:os";
import { signalProcessGroup } from "../../process-group.js";

/** Signals that end Sylk from outside: `kill`, a closed terminal. Ctrl-C (SIGINT) aborts the run instead, which stops its commands. */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGHUP"];
/** How long commands get to stop after SIGTERM, and then to be reaped after SIGKILL. */
const GRACE_MS = 1_000;
const POLL_MS = 20;

/**
 * The process groups of the commands Sylk is running. Each command starts a
 * group of its own (so that stopping it stops what it started), which also
 * means it would outlive Sylk: when Sylk is told to end (SIGTERM, SIGHUP),
 * every group gets SIGTERM, then SIGKILL once the grace is over, and Sylk
 * exits only after that (unless the command line stops the run itself);
 * when Sylk exits any other way with commands still running (a second
 * Ctrl-C), they get SIGKILL. The signal handlers are installed only while a
 * command runs, so Sylk otherwise ends as before.
 */
export class CommandProcesses {
  private readonly groups = new Set<number>();
  private ending: NodeJS.Signals | undefined;
  private listening = false;
  // Whether another listener stops the run is judged when the signal arrives, before that listener may go away.
  private readonly onSignal = (signal: NodeJS.Signals) => void this.end(signal, process.listenerCount(signal) > 1);
  private readonly onExit = () => this.signalAll("SIGKILL");

  /** Set once Sylk is ending: no new command may start. */
  get endingBy(): NodeJS.Signals | undefined {
    return this.ending;
  }

  /** A command started as the leader of process group `pid`. */
  add(pid: number): void {
    this.groups.add(pid);
    this.listen();
  }

  /** That command and its group are gone. */
  remove(pid: number): void {
    this.groups.delete(pid);
    this.listen();
  }

  private async end(signal: NodeJS.Signals, othersStopTheRun: boolean): Promise<void> {
    if (this.ending) return;
    this.ending = signal;
    this.signalAll("SIGTERM");
    if (!(await this.allGone())) {
      this.signalAll("SIGKILL");
      await this.allGone();
    }
    // A command line that listens for the signal itself (sylk ask, the TUI) stops the run, records it and
    // exits with the signal's status: exiting here would cut that short.
    if (othersStopTheRun) return;
    // The conventional status of a process ended by this signal; `exit` handlers (placeholders, the terminal) still run.
    process.exit(128 + (constants.signals[signal] ?? 15));
  }

  private signalAll(signal: NodeJS.Signals): void {
    for (const pid of this.groups) signalProcessGroup(pid, signal);
  }

  /** Waits up to the grace period for every command to be over. */
  private async allGone(): Promise<boolean> {
    for (let waited = 0; waited < GRACE_MS && this.groups.size > 0; waited += POLL_MS)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    return this.groups.size === 0;
  }

  private listen(): void {
    const wanted = this.groups.size > 0 || this.ending !== undefined;
    if (wanted === this.listening) return;
    this.listening = wanted;
    for (const signal of ENDING_SIGNALS) {
      if (wanted) process.on(signal, this.onSignal);
      else process.off(signal, this.onSignal);
    }
    if (wanted) process.on("exit", this.onExit);
    else process.off("exit", this.onExit);
  }
}
