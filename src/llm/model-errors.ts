import { ExitCode, FatalError } from "../errors.js";

export type ModelErrorKind =
  | "authentication"
  | "permission"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "connection"
  | "timeout"
  | "bad_request"
  | "context_length"
  | "aborted"
  | "unknown";

/** A failed model call, classified once at the provider edge. */
export class ModelError extends FatalError {
  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    readonly retryable: boolean,
    /** Server's advice (retry-after headers), in milliseconds. */
    readonly retryAfterMs?: number,
    readonly status?: number,
  ) {
    super(
      message,
      kind === "authentication" || kind === "permission"
        ? ExitCode.Authentication
        : kind === "aborted"
          ? ExitCode.Interrupted
          : ExitCode.General,
    );
  }
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number(headers.get("retry-after-ms"));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

export function classifyStatus(status: number): { kind: ModelErrorKind; retryable: boolean } {
  if (status === 401) return { kind: "authentication", retryable: false };
  if (status === 403) return { kind: "permission", retryable: false };
  if (status === 408) return { kind: "timeout", retryable: true };
  if (status === 409) return { kind: "server", retryable: true };
  if (status === 413) return { kind: "context_length", retryable: false };
  if (status === 429) return { kind: "rate_limit", retryable: true };
  if (status === 529) return { kind: "overloaded", retryable: true };
  if (status >= 500) return { kind: "server", retryable: true };
  return { kind: "bad_request", retryable: false };
}

/** The error code (`ECONNREFUSED`, `ENOTFOUND`, …) somewhere in an error's chain of causes. */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/;

/**
 * A request that never reached the model server, named by its URL. A
 * refused connection on this machine (nothing listens: a local server not
 * started) and an unknown host do not get better by waiting, so they are not
 * retried; other failures (a reset, a remote refusal behind a balancer) are.
 */
export function unreachable(error: unknown, url: string, setting: string): ModelError {
  const code = errorCode(error);
  let host = "";
  try {
    host = new URL(url).hostname;
  } catch {
    // an unparsable URL: the message still names it
  }
  if (code === "ECONNREFUSED" && LOOPBACK.test(host)) {
    return new ModelError(
      `Could not reach the model at ${url}: connection refused (nothing listens there). Start the server, or fix ${setting}.`,
      "connection",
      false,
    );
  }
  if (code === "ENOTFOUND") {
    return new ModelError(
      `Could not reach the model at ${url}: the host ${host} is unknown. Check ${setting} and the network.`,
      "connection",
      false,
    );
  }
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  return new ModelError(`Could not reach the model at ${url} (${detail}).`, "connection", true);
}
