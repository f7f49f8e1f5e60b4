// Runs security probes: what each needs is checked first (a probe that cannot run here is
// `skipped` with the reason, never held), each gets laboratories of its own that are closed
// after it, and a probe that throws is an `error` (it proved nothing either way).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { laboratoryParent, openLab, visibleInSandbox } from "./harness.mjs";

/** What each requirement is, and how to get it. */
const REQUIREMENTS = {
  linux: () => (process.platform === "linux" ? undefined : `runs on Linux only (this is ${process.platform})`),
  bwrap: () => {
    const result = spawnSync(
      "bwrap",
      ["--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true"],
      { timeout: 10_000, encoding: "utf8" },
    );
    if (result.error?.code === "ENOENT") return "needs bubblewrap (apt-get install bubblewrap)";
    if (result.status !== 0)
      return `bubblewrap cannot make a sandbox here (${(result.stderr || result.error?.message || "").trim().split("\n")[0]})`;
    return undefined;
  },
  tmux: () => (spawnSync("tmux", ["-V"]).status === 0 ? undefined : "needs tmux for a real terminal (apt-get install tmux)"),
  git: () => (spawnSync("git", ["--version"]).status === 0 ? undefined : "needs git (apt-get install git)"),
  curl: () => (spawnSync("curl", ["--version"]).status === 0 ? undefined : "needs curl (apt-get install curl)"),
};

/**
 * The environment probes run in: the repository, the built CLI, why each requirement is missing
 * (undefined when present), and where laboratories go. Throws when the CLI is not built.
 */
export function probeEnvironment(repo, env = process.env) {
  const sylkBin = join(repo, "bin/sylk.js");
  if (!existsSync(join(repo, "dist/bundle/main.js"))) throw new Error("The CLI is not built: run `npm run build` first.");
  const missing = Object.fromEntries(Object.entries(REQUIREMENTS).map(([name, check]) => [name, check()]));
  const parent = laboratoryParent(env);
  // The laboratories of the probes under way, so that an interrupted run can still close them.
  return { repo, sylkBin, missing, parent, homeVisibleInSandbox: visibleInSandbox(parent), openLabs: new Set() };
}

/** Closes the laboratories of probes still under way (an interrupted run): their processes, terminals and files. */
export async function closeOpenLabs(environment) {
  const labs = [...environment.openLabs];
  environment.openLabs.clear();
  await Promise.all(labs.map((lab) => lab.close().catch(() => undefined)));
}

/** Why this probe cannot run here, or undefined. */
function skipReason(probe, environment) {
  for (const need of probe.needs ?? []) {
    if (need === "home-outside-tmp") {
      if (!environment.homeVisibleInSandbox) {
        return `its HOME would be under /tmp (${environment.parent}), which the sandbox hides: set SYLK_PROBE_TMPDIR to a directory outside /tmp`;
      }
      continue;
    }
    const reason = environment.missing[need];
    if (reason) return reason;
  }
  return undefined;
}

/** Runs one probe: { id, group, title, status: held | broken | skipped | error, detail, ms }. */
export async function runProbe(probe, environment) {
  const started = performance.now();
  const outcome = (status, detail) => ({
    id: probe.id,
    group: probe.group,
    title: probe.title,
    status,
    detail,
    ms: Math.round(performance.now() - started),
  });
  const reason = skipReason(probe, environment);
  if (reason) return outcome("skipped", reason);
  const labs = [];
  const context = {
    environment,
    /** A fresh laboratory (closed when the probe ends); `files` are written into its project. */
    lab: async (files = {}) => {
      const lab = await openLab({ sylkBin: environment.sylkBin, parent: environment.parent, files });
      labs.push(lab);
      environment.openLabs.add(lab);
      return lab;
    },
  };
  try {
    const result = await probe.run(context);
    if (result.skipped) return outcome("skipped", result.skipped);
    return outcome(result.held ? "held" : "broken", result.detail);
  } catch (error) {
    return outcome("error", `the probe failed to run: ${error instanceof Error ? error.message : String(error)}`.replace(/\s+/g, " "));
  } finally {
    for (const lab of labs.reverse()) {
      environment.openLabs.delete(lab);
      await lab.close().catch(() => undefined);
    }
  }
}

/** Runs probes, `concurrency` at a time, calling `onResult` as each ends; results in the probes' order. */
export async function runProbes(probes, environment, { concurrency = 1, onResult = () => {} } = {}) {
  const results = new Array(probes.length);
  let next = 0;
  const worker = async () => {
    while (next < probes.length) {
      const index = next++;
      results[index] = await runProbe(probes[index], environment);
      onResult(results[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

/** Probes chosen by `--only`: group names and probe ids, comma-separated; all when empty. */
export function selectProbes(probes, only) {
  const wanted = (only ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  if (wanted.length === 0) return probes;
  const unknown = wanted.filter((name) => !probes.some((probe) => probe.id === name || probe.group === name));
  if (unknown.length > 0) {
    const groups = [...new Set(probes.map((probe) => probe.group))];
    throw new Error(`Unknown probe or group: ${unknown.join(", ")}. Groups: ${groups.join(", ")}.`);
  }
  return probes.filter((probe) => wanted.includes(probe.id) || wanted.includes(probe.group));
}

/** The markdown table and the summary line. */
export function formatReport(results) {
  const cell = (text) => String(text).replace(/\|/g, "\\|").replace(/\n/g, " ");
  const rows = results.map((result) => `| ${result.id} | ${result.group} | ${result.status} | ${cell(result.detail)} |`);
  const held = results.filter((result) => result.status === "held").length;
  const counts = ["broken", "skipped", "error"]
    .map((status) => [status, results.filter((result) => result.status === status).length])
    .filter(([, count]) => count > 0);
  const summary = `${held} of ${results.length} probes held${counts.length > 0 ? ` (${counts.map(([status, count]) => `${count} ${status}`).join(", ")})` : ""}.`;
  return ["| probe | group | held/broken | detail |", "| --- | --- | --- | --- |", ...rows, "", summary].join("\n");
}
