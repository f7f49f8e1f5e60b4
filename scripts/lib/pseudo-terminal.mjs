// The real `node bin/sylk.js` in a pseudo-terminal made by util-linux `script`, so that Ink draws
// exactly as in a terminal; times are taken when the bytes arrive. Shared by the TUI benchmarks.
import { spawn, spawnSync } from "node:child_process";

/** Exits with a clear message where util-linux `script` is missing. */
export function requireScriptCommand(benchmark) {
  if (spawnSync("script", ["--version"]).status !== 0) {
    console.error(`${benchmark} needs util-linux \`script\` (it provides the pseudo-terminal).`);
    process.exit(1);
  }
}

/** `sylk` (the file `sylkBin`) in a `columns`x`rows` pseudo-terminal; `output` accumulates everything drawn. */
export function launchInTerminal(sylkBin, cwd, env, { columns = 120, rows = 40 } = {}) {
  const command = `stty cols ${columns} rows ${rows}; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(sylkBin)}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { ...env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const session = { child, output: "", started: performance.now(), waiters: [] };
  child.stdout.on("data", (chunk) => {
    session.output += chunk.toString("utf8");
    const now = performance.now();
    session.waiters = session.waiters.filter((waiter) => !waiter.check(now));
  });
  return session;
}

/** Resolves with the time (performance.now) at which the output after `from` first contains one of `texts`. */
export function waitForText(session, texts, from = 0, timeoutMs = 120_000) {
  const wanted = [texts].flat();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${JSON.stringify(wanted)}`)), timeoutMs);
    const check = (now) => {
      const output = session.output.slice(from);
      if (!wanted.some((text) => output.includes(text))) return false;
      clearTimeout(timer);
      resolve(now);
      return true;
    };
    if (!check(performance.now())) session.waiters.push({ check });
  });
}

/** Ctrl-C twice, as a user leaves; killed if it has not exited within 15 s. */
export async function quit(session) {
  const exited = new Promise((resolve) => session.child.once("exit", resolve));
  session.child.stdin.write("\u0003");
  await new Promise((resolve) => setTimeout(resolve, 100));
  session.child.stdin.write("\u0003");
  const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), 15_000));
  if ((await Promise.race([exited, timeout])) === "timeout") session.child.kill("SIGKILL");
}
