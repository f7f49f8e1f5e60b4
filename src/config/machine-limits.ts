import { availableParallelism } from "node:os";
import type { SylkConfig } from "./schema.js";

/**
 * Parsing threads per CPU core at most. Parsing is CPU-bound: threads beyond
 * the cores only wait for them, and each holds its own grammars and heap
 * (`workerThreads: 10000` started 883 threads and took 4.1 GB before any
 * file was parsed). Two per core leaves room for threads waiting on reads.
 */
const WORKER_THREADS_PER_CORE = 2;

/** A setting the machine cannot honour, and the value used instead. */
export interface ClampedSetting {
  key: string;
  requested: number;
  used: number;
  /** Why the used value is the most: said to the user. */
  limit: string;
}

/** The configuration with what this machine cannot use brought down to what it can, and each such change. */
export function clampToMachine(
  config: SylkConfig,
  cores: number = availableParallelism(),
): { config: SylkConfig; clamped: ClampedSetting[] } {
  const most = Math.max(1, cores) * WORKER_THREADS_PER_CORE;
  const requested = config.index.workerThreads;
  if (requested <= most) return { config, clamped: [] };
  const limit = `${WORKER_THREADS_PER_CORE} per CPU core, ${cores} core${cores === 1 ? "" : "s"} here`;
  return {
    config: { ...config, index: { ...config.index, workerThreads: most } },
    clamped: [{ key: "index.workerThreads", requested, used: most, limit }],
  };
}
