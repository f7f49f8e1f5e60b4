// The laboratory every security probe works in: a temporary directory holding its own HOME (with
// SYLK_HOME at HOME/.sylk, where a user's would be), a project, and a folder outside both; the
// real built CLI started as a process group that a bound can kill; a scripted fake Messages API.
// Nothing here reads or writes the caller's own HOME or SYLK_HOME.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { killLabProcesses, labProcesses } from "./observe.mjs";
import { say, startScriptedModel } from "./scripted-model.mjs";

/** The key the probes' CLI runs send: a secret of the user's that must only ever reach the fake API. */
export const USER_API_KEY = "sk-ant-api03-probe-users-own-key-0123456789";

/**
 * Where laboratories go. The sandbox replaces /tmp with an empty one, so a HOME under /tmp would
 * hide the user's dotfiles from sandboxed commands and make read probes pass for the wrong
 * reason: /var/tmp (also the system's, but kept by the sandbox like a real home) comes first.
 */
export function laboratoryParent(env = process.env) {
  if (env.SYLK_PROBE_TMPDIR) return env.SYLK_PROBE_TMPDIR;
  for (const candidate of ["/var/tmp", tmpdir()]) {
    try {
      const probe = mkdtempSync(join(candidate, "sylk-sec-"));
      rmSync(probe, { recursive: true, force: true });
      return candidate;
    } catch {
      // not writable here
    }
  }
  return tmpdir();
}

/** True when sandboxed commands see this directory as the host does (read-only), not hidden under the sandbox's own /tmp. */
export function visibleInSandbox(path) {
  const real = realpathSync(path);
  return !(real === "/tmp" || real.startsWith(`/tmp${sep}`));
}

/** A marker nobody else would write: upper-case letters and digits, so no secret rule masks it. */
export function marker(label) {
  return `PROBE${label.toUpperCase().replace(/[^A-Z0-9]/g, "")}X${randomBytes(6).toString("hex").toUpperCase()}`;
}

/** The environment of the CLI in a laboratory: none of the caller's Sylk, model or cloud settings. */
function baseEnvironment(lab) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(SYLK_|ANTHROPIC_|OPENAI_|AWS_|GIT_|XDG_|TMUX)/.test(name)) continue;
    env[name] = value;
  }
  return {
    ...env,
    HOME: lab.home,
    SYLK_HOME: lab.sylkHome,
    // Marks every process a laboratory starts, so that its clean-up finds those that outlived the CLI.
    SYLK_PROBE_LAB: lab.base,
    CI: "true",
    NO_COLOR: "1",
    SYLK_LEARNING_ENABLED: "false",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Probe",
    GIT_AUTHOR_EMAIL: "probe@example.invalid",
    GIT_COMMITTER_NAME: "Probe",
    GIT_COMMITTER_EMAIL: "probe@example.invalid",
    ANTHROPIC_API_KEY: USER_API_KEY,
  };
}

/**
 * A laboratory: `base/home` (HOME), `base/home/.sylk` (SYLK_HOME), `base/project` (the cwd of the
 * CLI), `base/outside` (another folder of the user's). `close()` kills what it started and removes it.
 */
export async function openLab({ sylkBin, parent, files = {} }) {
  const base = realpathSync(mkdtempSync(join(parent, "sylk-sec-")));
  const lab = {
    base,
    sylkBin,
    home: join(base, "home"),
    sylkHome: join(base, "home", ".sylk"),
    root: join(base, "project"),
    outside: join(base, "outside"),
  };
  for (const directory of [lab.home, lab.root, lab.outside]) mkdirSync(directory, { recursive: true });
  const cleanups = [];
  let model;
  const environment = () => ({ ...baseEnvironment(lab), ...(model ? { ANTHROPIC_BASE_URL: model.baseUrl } : {}) });

  Object.assign(lab, {
    /** A path inside the project. */
    path: (relative) => join(lab.root, relative),
    write(relative, content, root = lab.root) {
      const path = join(root, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
    /** The fake Messages API of this laboratory (started on first use; ANTHROPIC_BASE_URL points at it). */
    async model() {
      model ??= await startScriptedModel();
      return model;
    },
    /** Another fake Messages API (an attacker's): not pointed at by the environment. */
    async otherModel() {
      const other = await startScriptedModel();
      cleanups.push(() => other.close());
      return other;
    },
    env: (extra = {}) => ({ ...environment(), ...extra }),
    /** Starts the built CLI: { child, lines (stream-json lines with `at`, ms since start), stdout(), stderr(), exited }. */
    launch: (args, options = {}) => launchCli(sylkBin, args, { cwd: lab.root, ...options, env: { ...environment(), ...options.env } }),
    /** Runs the built CLI to its end, killed at `timeoutMs`: { code, signal, timedOut, ms, stdout, stderr, lines }. */
    async sylk(args, options = {}) {
      const run = lab.launch(args, options);
      return run.finished(options.timeoutMs ?? 90_000);
    },
    git: (args, cwd = lab.root) => spawnSync("git", args, { cwd, env: environment(), encoding: "utf8", timeout: 30_000 }),
    /** A git repository with one commit in the project. */
    initGit() {
      for (const args of [
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-q", "--allow-empty", "-m", "initial"],
      ]) {
        const result = lab.git(args);
        if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
      }
    },
    defer: (cleanup) => cleanups.push(cleanup),
    async close() {
      for (const cleanup of cleanups.reverse())
        await Promise.resolve()
          .then(cleanup)
          .catch(() => undefined);
      await model?.close();
      killLabProcesses(base);
      // A killed process may still be writing for a moment: the removal is retried.
      await waitUntil(() => labProcesses(base).length === 0, 5_000);
      rmSync(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  });
  for (const [relative, content] of Object.entries(files)) lab.write(relative, content);
  return lab;
}

function launchCli(sylkBin, args, { cwd, env, input, umask }) {
  const started = performance.now();
  // With `umask`, through a shell that sets it and execs node (the pid stays the CLI's).
  const [file, fileArgs] =
    umask === undefined
      ? [process.execPath, [sylkBin, ...args]]
      : ["/bin/sh", ["-c", `umask ${umask.toString(8)} && exec "$0" "$@"`, process.execPath, sylkBin, ...args]];
  // Its own process group: a bound kills the CLI and everything it started that stayed in the group.
  const child = spawn(file, fileArgs, { cwd, env, detached: true, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin.end(input);
  const lines = [];
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    pending += chunk;
    const complete = pending.split("\n");
    pending = complete.pop() ?? "";
    for (const text of complete) {
      try {
        lines.push({ ...JSON.parse(text), at: performance.now() - started });
      } catch {
        // a line of text output
      }
    }
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, ms: performance.now() - started })));
  const killGroup = (signal = "SIGKILL") => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return {
    child,
    lines,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    killGroup,
    /** Waits for the end, killing the group at `timeoutMs`. */
    async finished(timeoutMs) {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, timeoutMs);
      const end = await exited;
      clearTimeout(timer);
      return { ...end, timedOut, stdout, stderr, lines };
    },
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns something truthy or `timeoutMs` passes (then undefined). */
export async function waitUntil(check, timeoutMs, everyMs = 100) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}

/**
 * One scripted `sylk ask` in the laboratory's project: the model makes each call of `calls` in an
 * answer of its own, then says "Done.". Returns the run and what the model was sent back.
 */
export async function askScripted(lab, calls, { mode, args = [], env, timeoutMs = 90_000, prompt = "Do the task.", cwd } = {}) {
  const model = await lab.model();
  model.reset();
  model.enqueue(...calls.map((step) => (Array.isArray(step) || !step.type ? step : [step])), [say("Done.")]);
  const modeArgs = mode ? ["--permission-mode", mode] : [];
  const run = await lab.sylk(["ask", "--yes", "--output-format", "stream-json", ...modeArgs, ...args, prompt], {
    env,
    timeoutMs,
    ...(cwd ? { cwd } : {}),
  });
  return { run, model, results: run.lines.filter((line) => line.type === "tool_result") };
}

/**
 * One tool call in a scripted `sylk ask`, timed from its `tool_use` line to its `tool_result`
 * line; the run is killed when the result has not come within `boundMs` (or the call itself not
 * within `startBoundMs`). Returns { toolMs, run } and, when there was no result, `problem`: what
 * happened instead.
 */
export async function timedToolCall(lab, toolCall, { boundMs, startBoundMs = 120_000, mode, env } = {}) {
  const model = await lab.model();
  model.reset();
  model.enqueue([toolCall], [say("Done.")]);
  const modeArgs = mode ? ["--permission-mode", mode] : [];
  const running = lab.launch(["ask", "--yes", "--output-format", "stream-json", ...modeArgs, "Do the task."], { env });
  const ended = () => running.child.exitCode !== null || running.child.signalCode !== null;
  const firstLine = (type) => running.lines.find((line) => line.type === type) ?? (ended() ? "ended" : undefined);
  const used = await waitUntil(() => firstLine("tool_use"), startBoundMs);
  if (!used || used === "ended") {
    const run = await running.finished(0);
    return { run, problem: `the run never reached the ${toolCall.name} call (exit ${run.code ?? run.signal}): ${excerpt(run.stderr, 80)}` };
  }
  const result = await waitUntil(() => firstLine("tool_result"), boundMs);
  if (result && result !== "ended") return { toolMs: result.at - used.at, run: await running.finished(60_000) };
  const run = await running.finished(0);
  const problem =
    result === "ended"
      ? `the run ended during ${toolCall.name} without its result (exit ${run.code ?? run.signal})`
      : `${toolCall.name} had not answered after ${boundMs / 1000} s (killed)`;
  return { run, problem };
}

/** A short excerpt for a detail line: one line, at most `max` characters. */
export function excerpt(text, max = 120) {
  const line = String(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
