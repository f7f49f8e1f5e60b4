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
    super(message, kind === "authentication" || kind === "permission" ? ExitCode.Authentication : kind === "aborted" ? ExitCode.Interrupted : ExitCode.General);
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
