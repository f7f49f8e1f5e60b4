import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../errors.js";

/** Below this much free space an I/O error is taken to be the full disk's doing. */
const NEARLY_FULL_BYTES = 4 << 20;

/**
 * A failure that a full disk under `$SYLK_HOME` explains, in words that say
 * so, or undefined. SQLite reports "database or disk is full" when a write
 * does not fit (the transaction is rolled back, so nothing committed is
 * lost), and "disk I/O error" when it cannot even create the shared-memory
 * file a WAL database needs to be read; neither says which disk.
 */
export function diskFullMessage(
  error: unknown,
  home: string,
  freeBytes: (path: string) => number | undefined = freeBytesAt,
): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  const full =
    code === "SQLITE_FULL" || code === "ENOSPC" || (code.startsWith("SQLITE_IOERR") && (freeBytes(home) ?? Infinity) < NEARLY_FULL_BYTES);
  if (!full) return undefined;
  return (
    `The disk holding ${home} is full (${errorMessage(error)}): free some space and run the command again; ` +
    "what was indexed before is kept."
  );
}

/** Free space for the user at `path`, or its nearest existing parent. */
function freeBytesAt(path: string): number | undefined {
  for (let current = path; ; current = dirname(current)) {
    try {
      const stats = statfsSync(current);
      return stats.bavail * stats.bsize;
    } catch {
      if (dirname(current) === current) return undefined;
    }
  }
}
