import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeSandbox, keptReadable, type SandboxStatus } from "../agent/sandbox/command-sandbox.js";
import { sandboxFor } from "../agent/sandbox/open-command-sandbox.js";
import type { LoadedConfig } from "../config/load-config.js";
import { configWarnings } from "../format/config-warnings.js";
import { formatCount } from "../format/numbers.js";
import { sylkPackageRoot } from "../package-root.js";
import { describeDamage } from "../store/snapshot-damage.js";
import type { IndexHealth } from "./index-health.js";
import { checkModel } from "./model-check.js";

export type CheckStatus = "ok" | "warning" | "failed";

/** One check: how it stands, what was found, and what to do when it is not ok. */
export interface DoctorCheck {
  name: "node" | "sandbox" | "index" | "model" | "config";
  status: CheckStatus;
  detail: string;
  fix?: string;
}

export interface DoctorReport {
  checks: DoctorCheck[];
  /** No check failed (warnings pass). */
  passed: boolean;
}

/** The index as the doctor judges it: what the project's files say, or what a session doing the indexing sees. */
export type DoctorIndexState =
  | IndexHealth
  | { state: "off" }
  | { state: "busy"; doing: string }
  | { state: "failed"; message: string }
  | { state: "unknown"; reason: string };

export interface DoctorInputs {
  root: string;
  env: NodeJS.ProcessEnv;
  /** `process.versions.node` unless a test says otherwise. */
  nodeVersion?: string;
  /** The configuration as loaded, or why it could not be. */
  config: LoadedConfig | Error;
  /** The user's and the project's `.sylkrc` (`configFilePaths`): each is named when it exists. */
  configFiles: { user: string; project: string };
  index: DoctorIndexState;
  /** A session's own sandbox; otherwise judged as `sylk status` judges it. */
  sandbox?: SandboxStatus;
  /** How long the model gets to answer. */
  modelTimeoutMs?: number;
}

/**
 * `sylk doctor` and `/doctor`: whether this machine and project can run Sylk
 * well, each finding with its fix. The same checks for both; the caller says
 * how the index stands (a fresh check from the CLI, the live state in a
 * session).
 */
export async function runDoctor(inputs: DoctorInputs): Promise<DoctorReport> {
  const loaded = inputs.config instanceof Error ? undefined : inputs.config;
  const notChecked = (name: DoctorCheck["name"]): DoctorCheck => ({
    name,
    status: "failed",
    detail: "not checked: the configuration did not load",
    fix: "fix the configuration first (see config)",
  });
  const checks: DoctorCheck[] = [
    checkNode(inputs.nodeVersion ?? process.versions.node),
    loaded ? checkSandbox(inputs.sandbox ?? sandboxFor(loaded.config, inputs.env, inputs.root).status) : notChecked("sandbox"),
    checkIndex(inputs.index),
    loaded ? await checkModel(loaded.config.model, inputs.env, inputs.modelTimeoutMs) : notChecked("model"),
    checkConfig(inputs.config, inputs.configFiles),
  ];
  return { checks, passed: checks.every((check) => check.status !== "failed") };
}

/** Node 22 (from the minimum `engines.node` names) and 24 onwards are supported; an odd release is not a long-term one. */
export function checkNode(version: string, minimum = minimumNode()): DoctorCheck {
  const parts = version.replace(/^v/, "").split(".").map(Number);
  const running = `Node ${parts.join(".")}`;
  const fix = "install Node 22 or 24 (https://nodejs.org/en/download, or `nvm install 24`) and run Sylk with it";
  const differing = minimum.findIndex((part, index) => parts[index] !== part);
  if (differing !== -1 && (parts[differing] ?? 0) < (minimum[differing] ?? 0)) {
    return { name: "node", status: "failed", detail: `${running} is older than Sylk needs (${minimum.join(".")} or later)`, fix };
  }
  if ((parts[0] ?? 0) % 2 === 1)
    return { name: "node", status: "warning", detail: `${running} is not a long-term release: Sylk supports 22 and 24`, fix };
  return { name: "node", status: "ok", detail: `${running} (Sylk supports ${minimum.join(".")} or later: 22, or 24 and on)` };
}

function minimumNode(): number[] {
  const manifest = JSON.parse(readFileSync(join(sylkPackageRoot(), "package.json"), "utf8")) as { engines?: { node?: string } };
  const bound = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(manifest.engines?.node ?? "");
  return bound ? bound.slice(1).map(Number) : [22, 0, 0];
}

/** Whether `run_command` is fenced in here, as `sylk status` says it. */
export function checkSandbox(status: SandboxStatus): DoctorCheck {
  const detail = describeSandbox(status);
  switch (status.state) {
    case "on": {
      const readable = keptReadable(status);
      if (readable.length === 0) return { name: "sandbox", status: "ok", detail };
      return {
        name: "sandbox",
        status: "warning",
        detail: `${detail}; ${readable.join(" ")}`,
        fix: "move the project out of the credential directory to have it hidden",
      };
    }
    case "off":
      return {
        name: "sandbox",
        status: "warning",
        detail,
        fix: "set sandbox.enabled to true (and drop --no-sandbox) to fence commands in",
      };
    case "unavailable":
      return {
        name: "sandbox",
        status: "failed",
        detail,
        fix: "install bubblewrap (`apt install bubblewrap`, `dnf install bubblewrap`) and allow unprivileged user namespaces, or set sandbox.enabled to false to run commands unsandboxed on purpose",
      };
  }
}

export function checkIndex(index: DoctorIndexState): DoctorCheck {
  const fix = "run `sylk index`";
  switch (index.state) {
    case "fresh":
      return { name: "index", status: "ok", detail: "fresh: every file is indexed as it is now" };
    case "missing":
      return { name: "index", status: "warning", detail: "missing: this project has no index yet, so search finds nothing", fix };
    case "stale": {
      const stale = index.stale;
      const counts = stale
        ? `: ${formatCount(stale.added)} added, ${formatCount(stale.changed)} changed, ${formatCount(stale.deleted)} removed`
        : "";
      return { name: "index", status: "warning", detail: `stale${counts} since the last index`, fix };
    }
    case "damaged": {
      const parts = (index.damaged ?? []).map((damage) => `the ${damage.index} full-text snapshot (${describeDamage(damage)})`).join("; ");
      return {
        name: "index",
        status: "failed",
        detail: `damaged: ${parts}; searches answer from vectors alone`,
        fix: `${fix} (it rebuilds the snapshot from the stored terms)`,
      };
    }
    case "off":
      return {
        name: "index",
        status: "warning",
        detail: "off: indexing was declined for this project",
        fix: `${fix} to allow it (the answer is remembered)`,
      };
    case "busy":
      return { name: "index", status: "ok", detail: `${index.doing} (in the background; searches use what is committed)` };
    case "failed":
      return { name: "index", status: "failed", detail: `indexing failed: ${index.message}`, fix };
    case "unknown":
      return { name: "index", status: "failed", detail: `not checked: ${index.reason}`, fix: "fix the configuration first (see config)" };
  }
}

export function checkConfig(config: LoadedConfig | Error, files: { user: string; project: string }): DoctorCheck {
  if (config instanceof Error)
    return {
      name: "config",
      status: "failed",
      detail: config.message,
      fix: "correct the file and key named (the files are JSON with comments; see .sylkrc.example)",
    };
  const read = [files.user, ...(files.project === files.user ? [] : [files.project])].filter((path) => existsSync(path));
  const loaded = read.length > 0 ? `read ${read.join(" and ")}` : "no .sylkrc: the defaults";
  const warnings = configWarnings(config);
  if (warnings.length === 0) return { name: "config", status: "ok", detail: loaded };
  const fix = config.ignoredProjectSettings
    ? "run `sylk trust .` if you trust the project's settings"
    : "set what this machine can use in the file named, to silence this";
  return { name: "config", status: "warning", detail: [loaded, ...warnings].join("; "), fix };
}

const STATUS_WORDS: Record<CheckStatus, string> = { ok: "ok", warning: "warning", failed: "FAILED" };

/** The report as `sylk doctor` and `/doctor` print it: one line a check, its fix below it, and the verdict. */
export function doctorText(report: DoctorReport): string {
  const lines = report.checks.flatMap((check) => [
    `${STATUS_WORDS[check.status].padEnd(8)}${check.name.padEnd(9)}${check.detail}`,
    ...(check.fix && check.status !== "ok" ? [`${" ".repeat(17)}fix: ${check.fix}`] : []),
  ]);
  const failed = report.checks.filter((check) => check.status === "failed").length;
  const warned = report.checks.filter((check) => check.status === "warning").length;
  const verdict =
    failed > 0
      ? `${failed} check${failed === 1 ? "" : "s"} failed${warned > 0 ? `, ${warned} with warnings` : ""}.`
      : warned > 0
        ? `All checks passed, ${warned} with warnings.`
        : "All checks passed.";
  return [...lines, "", verdict].join("\n");
}
