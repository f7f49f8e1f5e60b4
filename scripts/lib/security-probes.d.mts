// Types of scripts/lib/security-probes.mjs (plain JS, run by node without a build), for the tests that import it.

export type ProbeStatus = "held" | "broken" | "skipped" | "error";

export interface ProbeResult {
  id: string;
  group: string;
  title: string;
  status: ProbeStatus;
  /** One line: what the attack did, or why the probe was skipped or could not run. */
  detail: string;
  ms: number;
}

export interface ProbeEnvironment {
  repo: string;
  sylkBin: string;
  /** Why each requirement (linux, bwrap, tmux, git, curl) is missing here; undefined when present. */
  missing: Record<string, string | undefined>;
  /** Where laboratories are made. */
  parent: string;
  homeVisibleInSandbox: boolean;
  /** The laboratories of the probes under way. */
  openLabs: Set<unknown>;
}

export interface Probe {
  id: string;
  group: string;
  title: string;
  /** Requirements: linux, bwrap, tmux, git, curl, home-outside-tmp. */
  needs?: readonly string[];
  run(context: unknown): Promise<{ held: boolean; detail: string } | { skipped: string }>;
}

export const GROUPS: readonly string[];
export const PROBES: readonly Probe[];

/** Throws when the CLI is not built. */
export function probeEnvironment(repo: string, env?: NodeJS.ProcessEnv): ProbeEnvironment;
/** Closes the laboratories of probes still under way (an interrupted run). */
export function closeOpenLabs(environment: ProbeEnvironment): Promise<void>;
export function runProbe(probe: Probe, environment: ProbeEnvironment): Promise<ProbeResult>;
export function runProbes(
  probes: readonly Probe[],
  environment: ProbeEnvironment,
  options?: { concurrency?: number; onResult?: (result: ProbeResult) => void },
): Promise<ProbeResult[]>;
export function selectProbes(probes: readonly Probe[], only: string | undefined): Probe[];
export function formatReport(results: readonly ProbeResult[]): string;
