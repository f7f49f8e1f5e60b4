import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * A compiled worker entry, `dist/workers/<file>`. This module sits one level
 * below the root in every layout (`dist/src/`, `dist/bundle/`, `src/` when
 * tests run from source), so the entry is beside it under `../workers/`, or
 * under `../dist/workers/` when running from source.
 */
export function workerEntryPath(file: string): string {
  const candidates = [`../workers/${file}`, `../dist/workers/${file}`].map((relative) => fileURLToPath(new URL(relative, import.meta.url)));
  const path = candidates.find((candidate) => existsSync(candidate));
  if (!path) throw new Error(`Worker entry not found at ${candidates[0]}; run \`npm run build\` first.`);
  return path;
}
