// The laboratory every security probe works in: a temporary directory holding its own HOME (with
// SYLK_HOME at HOME/.sylk, where a user's would be), a project, and a folder outside both; the
// real built CLI started as a process group that a bound can kill; a scripted fake Messages API.
// Nothing here reads or writes the caller's own HOME or SYLK_HOME.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { startFakeMessagesServer } from "../fake-messages-server.mjs";

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

/** A text block of a scripted answer. */
export const say = (text) => ({ type: "text", text });
/** A tool call of a scripted answer (its id is given when it is queued). */
export const call = (name, input) => ({ type: "tool_use", name, input });

/**
 * A fake Messages API answering each request with the next queued step (a list of blocks, or a
 * step object of fake-messages-server.mjs: status, headers, hang); "Done." when the queue is empty.
 */
export async function startScriptedModel() {
  const queue = [];
  let ids = 0;
  const server = await startFakeMessagesServer({ plan: () => queue.shift() ?? { blocks: [say("Done.")] } });
  const withIds = (blocks) => blocks.map((block) => (block.type === "tool_use" && !block.id ? { ...block, id: `toolu_probe_${++ids}` } : block));
  return {
    baseUrl: server.baseUrl,
    requests: server.requests,
    /** Forgets steps a previous run left unanswered. */
    reset() {
      queue.length = 0;
    },
    /** Queues steps, answered in order. */
    enqueue(...steps) {
      for (const step of steps) queue.push(Array.isArray(step) ? { blocks: withIds(step) } : step.blocks ? { ...step, blocks: withIds(step.blocks) } : step);
    },
    /** Everything the API received (bodies and headers) as one text, to look for what must not arrive. */
    received() {
      return server.requests.map((request) => JSON.stringify(request.headers) + JSON.stringify(request.body)).join("\n");
    },
    /** The system prompt and messages of the request `index` (from 0) as one text. */
    requestText(index) {
      const request = server.requests[index];
      return request ? JSON.stringify(request.body) : "";
    },
    /** The tool results the model was sent, in order: { id, content, isError }. */
    toolResults() {
      const results = new Map();
      for (const request of server.requests) {
        for (const message of request.body.messages ?? []) {
          if (!Array.isArray(message.content)) continue;
          for (const block of message.content) {
            if (block.type === "tool_result") results.set(block.tool_use_id, { id: block.tool_use_id, content: textOf(block.content), isError: block.is_error === true });
          }
        }
      }
      return [...results.values()];
    },
    close: () => server.close(),
  };
}

function textOf(content) {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((part) => part.text ?? "").join("\n") : "";
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
      for (const args of [["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "--allow-empty", "-m", "initial"]]) {
        const result = lab.git(args);
        if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
      }
    },
    defer: (cleanup) => cleanups.push(cleanup),
    async close() {
      for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch(() => undefined);
      await model?.close();
      killLabProcesses(base);
      rmSync(base, { recursive: true, force: true });
    },
  });
  for (const [relative, content] of Object.entries(files)) lab.write(relative, content);
  return lab;
}

function launchCli(sylkBin, args, { cwd, env, input, umask }) {
  const started = performance.now();
  // With `umask`, through a shell that sets it and execs node (the pid stays the CLI's).
  const [file, fileArgs] =
    umask === undefined ? [process.execPath, [sylkBin, ...args]] : ["/bin/sh", ["-c", `umask ${umask.toString(8)} && exec "$0" "$@"`, process.execPath, sylkBin, ...args]];
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

/** The pids of the processes this laboratory started (marked by SYLK_PROBE_LAB), with their command lines. */
export function labProcesses(base) {
  const wanted = Buffer.from(`SYLK_PROBE_LAB=${base}\0`);
  let entries = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).indexOf(wanted) === -1) continue;
      found.push({ pid, command: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Kills, by pid, the processes this laboratory started that outlived their parent. */
export function killLabProcesses(base) {
  for (const { pid } of labProcesses(base)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** A number from /proc/<pid>/status (`Threads`, `VmRSS` in kB), or undefined once the process is gone. */
export function processStatus(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Where Sylk keeps a project's data (`$SYLK_HOME/projects/<hash>`), as src/project/project-paths.ts computes it. */
export function projectDataDir(sylkHome, root) {
  return join(sylkHome, "projects", createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 16));
}

/** Every regular file under `directory` whose bytes contain one of `needles`: [{ path, needle }]. */
export function filesContaining(directory, needles) {
  const found = [];
  for (const path of walkFiles(directory)) {
    let bytes;
    try {
      bytes = readFileSync(path);
    } catch {
      continue;
    }
    for (const needle of needles) if (bytes.includes(Buffer.from(needle))) found.push({ path, needle });
  }
  return found;
}

/** Regular files below `directory` (symbolic links are not followed). */
export function* walkFiles(directory) {
  for (const { path, stats } of entriesBelow(directory)) if (stats.isFile()) yield path;
}

/** Directories below `directory` (symbolic links are not followed). */
export function* walkDirectories(directory) {
  for (const { path, stats } of entriesBelow(directory)) if (stats.isDirectory()) yield path;
}

/** Everything below `directory` with its lstat, depth first. */
export function* entriesBelow(directory) {
  let names;
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(directory, name);
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    yield { path, stats };
    if (stats.isDirectory()) yield* entriesBelow(path);
  }
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

/** True while a process with this pid exists (and is not a zombie). */
export function isAlive(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return !/^State:\s+Z/m.test(status);
  } catch {
    return existsSync(`/proc/${pid}`);
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
  const run = await lab.sylk(["ask", "--yes", "--output-format", "stream-json", ...modeArgs, ...args, prompt], { env, timeoutMs, ...(cwd ? { cwd } : {}) });
  return { run, model, results: run.lines.filter((line) => line.type === "tool_result") };
}

/**
 * One tool call in a scripted `sylk ask`, timed from its `tool_use` line to its `tool_result`
 * line; the run is killed when the result has not come within `boundMs` (or the call itself not
 * within `startBoundMs`). Returns { toolMs (undefined when cut), result, run }.
 */
export async function timedToolCall(lab, toolCall, { boundMs, startBoundMs = 120_000, mode, env } = {}) {
  const model = await lab.model();
  model.reset();
  model.enqueue([toolCall], [say("Done.")]);
  const modeArgs = mode ? ["--permission-mode", mode] : [];
  const running = lab.launch(["ask", "--yes", "--output-format", "stream-json", ...modeArgs, "Do the task."], { env });
  const ended = () => running.child.exitCode !== null || running.child.signalCode !== null;
  const used = await waitUntil(() => running.lines.find((line) => line.type === "tool_use") ?? (ended() ? "ended" : undefined), startBoundMs);
  if (!used || used === "ended") {
    const run = await running.finished(0);
    return { toolMs: undefined, stuckBeforeCall: true, run };
  }
  const result = await waitUntil(() => running.lines.find((line) => line.type === "tool_result") ?? (ended() ? "ended" : undefined), boundMs);
  const finished = result && result !== "ended" ? result : undefined;
  const run = await running.finished(finished ? 60_000 : 0);
  return { toolMs: finished ? finished.at - used.at : undefined, result: finished, run };
}

/** A short excerpt for a detail line: one line, at most `max` characters. */
export function excerpt(text, max = 120) {
  const line = String(text ?? "").replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Opens a SQLite file with the project's own driver, read-only unless asked: to look at what Sylk stored. */
export function openDatabase(repo, path, { readonly = true } = {}) {
  const Database = createRequire(join(repo, "package.json"))("better-sqlite3");
  const db = new Database(path, { readonly, fileMustExist: true });
  db.pragma("busy_timeout = 10000");
  return db;
}
