/**
 * Sends `signal` to a process group: a command, a hook or an MCP server is
 * started in a group of its own (`detached: true`), so that what it started
 * goes with it. A group that has ended already is no error: the caller
 * wanted it gone.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
