import { join } from "node:path";

/**
 * The warm-index socket: while an interactive `sylk` runs in a project, it
 * answers searches from the index it already holds in memory, so that a
 * `sylk search` or `sylk ask` started beside it need not load the index
 * again. One request per line, one response per line, JSON; the socket is
 * the user's alone (0600, in the project's 0700 data directory). This
 * module is what clients load: no zod (the server validates requests,
 * `request-schema.ts`).
 */
export const PROTOCOL_VERSION = 1;

/** The socket's file name in the project's data directory. */
const SOCKET_FILE = "warm-index.sock";

/**
 * Unix socket paths are limited (108 bytes on Linux, 104 on macOS,
 * including the final NUL). A data directory too deep for one gets no
 * socket: the commands simply load the index themselves.
 */
export const MAX_SOCKET_PATH = 100;

/** A code search, as `HybridCodeSearcher.search` takes it: the part of a search that needs the warm index. */
export interface CodeSearchParams {
  query: string;
  limit?: number;
  signals?: Array<"fulltext" | "vector">;
  perFile?: number;
}

export interface HelloResult {
  version: number;
  /** The project root the server serves (symlink-resolved). */
  root: string;
  pid: number;
}

/** Where a project's warm index is served: in its data directory. */
export function warmIndexSocketPath(paths: { dataDir: string }): string {
  return join(paths.dataDir, SOCKET_FILE);
}

export type WarmResponse = { id: number; result: unknown } | { id: number; error: string };
