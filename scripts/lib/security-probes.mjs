// Every security probe (scripts/bench-security.mjs, test/security/attack-probes.test.ts): each an
// attack on the real built CLI with a scripted model, `{ id, group, title, needs, run(context) }`,
// where `run` answers `{ held, detail }` (or `{ skipped }`) by the attack's effect alone.
import { approvalProbes } from "./security-probes/approval-probes.mjs";
import { hangProbes } from "./security-probes/hang-probes.mjs";
import { keptProbes } from "./security-probes/kept-probes.mjs";
import { memoryProbes } from "./security-probes/memory-probes.mjs";
import { processProbes } from "./security-probes/process-probes.mjs";
import { ruleProbes } from "./security-probes/rule-probes.mjs";
import { sandboxProbes } from "./security-probes/sandbox-probes.mjs";
import { secretProbes } from "./security-probes/secret-probes.mjs";
import { sessionProbes } from "./security-probes/session-probes.mjs";
import { storeProbes } from "./security-probes/store-probes.mjs";
import { symlinkProbes } from "./security-probes/symlink-probes.mjs";
import { trustProbes } from "./security-probes/trust-probes.mjs";

export { closeOpenLabs, formatReport, probeEnvironment, runProbe, runProbes, selectProbes } from "./security-probes/runner.mjs";

/** The groups in the order of the defect report: its numbered items, then what passed. */
export const GROUPS = [
  "sandbox",
  "symlinks",
  "approvals",
  "rules",
  "memory",
  "trust",
  "secrets",
  "masking",
  "hangs",
  "store",
  "socket",
  "process",
  "kept",
];

const all = [
  ...sandboxProbes,
  ...symlinkProbes,
  ...approvalProbes,
  ...ruleProbes,
  ...memoryProbes,
  ...trustProbes,
  ...secretProbes,
  ...hangProbes,
  ...sessionProbes,
  ...storeProbes,
  ...processProbes,
  ...keptProbes,
];

export const PROBES = GROUPS.flatMap((group) => all.filter((probe) => probe.group === group));
