// The model's `grep` beside `rg -n` with the same pattern and path, alternately, on a large tree:
// idle in an interactive session (the tree's index fresh, the session's background indexing and
// project watcher running, as `sylk` runs them), idle in a one-shot run as `sylk ask` runs it (its
// watch started after the start-up check; a build without one has none), idle with no watcher (what
// a call meets before a watch holds), and while a first index of the tree runs, under a new
// SYLK_HOME, started by the grep process's own background indexing as the interactive session starts
// it (a `sylk index --for-session` process, which a build with `ForegroundWork` pauses while its grep
// runs; a build without `backgroundIndexingOf` gets that process spawned as the session spawned it).
// Used by scripts/bench-everyday.mjs; `grepPatterns` and `measureGrep` by scripts/bench-grep.mjs too.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Patterns a model sends: literal identifiers taken from the tree (seeded), a regex, a
 * case-insensitive word, and a literal restricted to the package with the most files.
 */
export function grepPatterns(tree, files, seed = 11) {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const identifiers = new Set();
  const sources = files.filter((file) => /\.(rs|ts|js)$/.test(file.path));
  while (identifiers.size < 3 && sources.length > 0) {
    const file = sources[Math.floor(random() * sources.length)];
    const words = readFileSync(join(tree, file.path), "utf8").match(/\b[A-Za-z][A-Za-z0-9_]{9,30}\b/g) ?? [];
    const word = words[Math.floor(random() * words.length)];
    if (word && /[A-Z_]/.test(word.slice(1))) identifiers.add(word);
  }
  const packages = new Map();
  for (const file of files) {
    const parts = file.path.split("/");
    if (parts.length > 2) packages.set(`${parts[0]}/${parts[1]}`, (packages.get(`${parts[0]}/${parts[1]}`) ?? 0) + 1);
  }
  const [largest] = [...packages].sort((a, b) => b[1] - a[1])[0] ?? ["."];
  const [first] = identifiers;
  return [
    ...[...identifiers].map((pattern) => ({ name: `literal \`${pattern}\``, input: { pattern } })),
    { name: "regex `fn \\w+_kind\\(`", input: { pattern: "fn \\w+_kind\\(" } },
    { name: "ignore_case `deprecated`", input: { pattern: "deprecated", ignore_case: true } },
    { name: `literal \`${first}\` in ${largest}`, input: { pattern: first, path: largest } },
  ];
}

/**
 * The grep tool as a session makes it (the built `dist/`), over the services of `tree` under
 * `env.SYLK_HOME`; `watch`: "session", with the interactive session's background indexing and
 * watcher, measured once the pass after the watch held is done; "ask", with the watch `sylk ask`
 * starts after its start-up check (none in a build without it), measured once it vouches for the
 * tree (`watchedAfterMs`: how long after its start that was); none without.
 */
export async function sessionGrep(repo, tree, env, { watch } = {}) {
  const { openProject } = await import(join(repo, "dist/src/app/project-services.js"));
  const { BackgroundIndexing } = await import(join(repo, "dist/src/app/background-indexing.js"));
  const { createBuiltinTools } = await import(join(repo, "dist/src/agent/tools/builtin-tools.js"));
  const { ToolRegistry } = await import(join(repo, "dist/src/agent/tools/tool-registry.js"));
  const { PermissionPolicy } = await import(join(repo, "dist/src/agent/permissions/permission-policy.js"));
  const services = openProject({ root: tree, env });
  services.grepThread.warmUp();
  const started = performance.now();
  const indexing =
    watch === "session"
      ? await startWatching(BackgroundIndexing, services)
      : watch === "ask"
        ? await askWatching(repo, services)
        : watch === "first-index"
          ? await firstIndexing(repo, services, env)
          : undefined;
  const watchedAfterMs = indexing && services.watchedChanges.vouching ? performance.now() - started : undefined;
  const tools = createBuiltinTools({
    codeSearcher: services.codeSearcher,
    grepThread: services.grepThread,
    grepIndex: services.grepIndex,
    ripgrep: services.ripgrep,
    indexConfig: services.loadedConfig.config.index,
    ...(services.foregroundWork ? { foreground: services.foregroundWork } : {}),
  });
  const registry = new ToolRegistry(
    tools.filter((tool) => tool.name === "grep"),
    new PermissionPolicy("bypass"),
  );
  const grep = async (input) => {
    const result = await registry.run(
      { id: "bench", name: "grep", input },
      { root: tree, signal: new AbortController().signal, extraDirectories: [] },
    );
    if (result.isError) throw new Error(`grep failed: ${result.output}`);
    return result;
  };
  return {
    grep,
    watchedAfterMs,
    /** For "first-index": whether that index still runs. */
    indexing: () => indexing?.running?.() ?? false,
    close: async () => {
      await indexing?.close();
      await services.close();
    },
  };
}

/** The session's background indexing: its start-up pass, then the watcher, then the pass once the watch holds. */
async function startWatching(BackgroundIndexing, services) {
  const indexing = new BackgroundIndexing({
    root: services.paths.root,
    config: services.loadedConfig.config.index,
    indexer: services.indexer,
    lock: services.indexLock,
    backfill: services.backfill,
    changes: services.watchedChanges,
  });
  indexing.start();
  for (;;) {
    try {
      await indexing.whenWatching();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the start-up pass is still running
    }
  }
  await indexing.catchUp(); // queued after the pass that follows the watch
  return indexing;
}

/** What `sylk ask` starts once its start-up check is done, waited for until it vouches for the tree (at most 60 s); undefined in a build without it. */
async function askWatching(repo, services) {
  const module = join(repo, "dist/src/app/one-shot-watch.js");
  if (!existsSync(module)) return undefined;
  const { watchWhileRunning } = await import(module);
  const watching = watchWhileRunning(services);
  const deadline = performance.now() + 60_000;
  while (!services.watchedChanges.vouching && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return watching;
}

/**
 * A first index of the tree started as the interactive session starts it: the session's background
 * indexing hands the pass to a `sylk index --for-session` process. In a build without
 * `backgroundIndexingOf` that process is spawned as the session spawned it. `running()` is true
 * until it ends.
 */
async function firstIndexing(repo, services, env) {
  const background = join(repo, "dist/src/app/background-indexing.js");
  const { backgroundIndexingOf } = await import(background);
  if (backgroundIndexingOf) {
    const { indexProcessHandOff } = await import(join(repo, "dist/src/app/index-process.js"));
    const indexing = backgroundIndexingOf(services, indexProcessHandOff(services, env));
    indexing.start();
    const running = () => !["fresh", "failed", "off"].includes(indexing.snapshot().state);
    return { running, close: () => indexing.close() };
  }
  // As the interactive session started a first index: its stdin held open (closing it stops the run).
  const child = spawn(process.execPath, [join(repo, "bin/sylk.js"), "index", "--for-session", services.paths.root], {
    env,
    stdio: ["pipe", "ignore", "ignore"],
  });
  let running = true;
  child.on("exit", () => (running = false));
  return {
    running: () => running,
    close: async () => {
      child.kill();
      await new Promise((resolve) => (running ? child.once("exit", resolve) : resolve()));
    },
  };
}

/** One round: rg, then the tool, for each pattern; wall times in milliseconds. */
export async function measureGrep(grep, tree, patterns, samples) {
  for (const [index, { input }] of patterns.entries()) {
    const args = ["-n", ...(input.ignore_case ? ["-i"] : []), "-e", input.pattern, input.path ?? "."];
    let started = performance.now();
    spawnSync("rg", args, { cwd: tree, stdio: "ignore" });
    samples[index].rg.push(performance.now() - started);
    started = performance.now();
    await grep(input);
    samples[index].sylk.push(performance.now() - started);
  }
}

const p = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const f1 = (value) => value.toFixed(1);

function rows(label, patterns, samples) {
  return patterns.map(({ name }, index) => {
    const { sylk, rg } = samples[index];
    return `| ${name}, ${label} | ${f1(p(sylk, 0.5))} / ${f1(p(sylk, 0.95))} ms | rg -n: ${f1(p(rg, 0.5))} / ${f1(p(rg, 0.95))} ms | ${f1(p(sylk, 0.5) / p(rg, 0.5))}× | ≤ 1.0× |`;
  });
}

/**
 * Table rows: each pattern idle (the index of `env.SYLK_HOME` fresh), then while `sylk index`
 * builds a first index of the tree under a new SYLK_HOME that the measured process also uses.
 */
export async function grepRows({ repo, tree, env, files, rounds, seed }) {
  const patterns = grepPatterns(tree, files, seed);
  const fresh = () => patterns.map(() => ({ sylk: [], rg: [] }));
  const idle = fresh();
  const asking = fresh();
  const unwatched = fresh();
  let askWatchedAfterMs;
  for (const [samples, watch] of [
    [idle, "session"],
    [asking, "ask"],
    [unwatched, undefined],
  ]) {
    const session = await sessionGrep(repo, tree, env, { watch });
    if (watch === "ask") askWatchedAfterMs = session.watchedAfterMs;
    await measureGrep(session.grep, tree, patterns, fresh()); // warm-up round, not counted
    for (let round = 0; round < rounds; round++) await measureGrep(session.grep, tree, patterns, samples);
    await session.close();
  }

  const home = mkdtempSync(join(tmpdir(), "sylk-bench-grep-indexing-"));
  const indexingEnv = { ...env, SYLK_HOME: home };
  const indexing = fresh();
  const during = await sessionGrep(repo, tree, indexingEnv, { watch: "first-index" });
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // past the scan, into indexing
    for (let round = 0; round < rounds && during.indexing(); round++) await measureGrep(during.grep, tree, patterns, indexing);
  } finally {
    await during.close();
    rmSync(home, { recursive: true, force: true });
  }
  const measured = indexing[0].sylk.length;
  return [
    ...rows("idle, watched (`sylk`)", patterns, idle),
    ...rows(
      askWatchedAfterMs === undefined
        ? "idle, `sylk ask` (no watch in this build)"
        : `idle, \`sylk ask\` (its watch vouched ${Math.round(askWatchedAfterMs)} ms after it started)`,
      patterns,
      asking,
    ),
    ...rows("idle, no watcher (before a watch holds)", patterns, unwatched),
    ...(measured > 0 ? rows(`first index running (${measured} rounds)`, patterns, indexing) : []),
  ];
}
