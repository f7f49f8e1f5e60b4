import * as z from "zod";
import { maskSecrets } from "../security/secrets.js";
import { canBlock, stdoutIsContext, type HookEventName } from "./hook-events.js";
import type { HookProcessResult } from "./run-hook-command.js";

export type PermissionAnswer = "allow" | "ask" | "deny";

/** What one hook said, read from its exit code and its output. */
export interface HookVerdict {
  /** `ok`: go on; `blocked`: the event's action is stopped; `error`: the hook failed, and nothing is stopped. */
  outcome: "ok" | "blocked" | "error";
  /** Why it blocked (for the model, or the user for a prompt), or what went wrong (for the user). */
  message?: string;
  /** PreToolUse: `allow` or `ask` (a `deny` is `blocked`). */
  permissionDecision?: Exclude<PermissionAnswer, "deny">;
  /** Text for the model, after the prompt or the tool's result. */
  additionalContext?: string;
  /** Text for the user. */
  systemMessage?: string;
}

/** The JSON a hook may print on exit 0, as Claude Code reads it; unknown fields are ignored. */
const answerSchema = z.looseObject({
  decision: z.enum(["block", "approve"]).optional(),
  reason: z.string().optional(),
  permissionDecision: z.enum(["allow", "ask", "deny"]).optional(),
  permissionDecisionReason: z.string().optional(),
  additionalContext: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      permissionDecision: z.enum(["allow", "ask", "deny"]).optional(),
      permissionDecisionReason: z.string().optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});

/** Text from a hook goes to the model, the screen and the store: masked first, like a command's output. */
const masked = (text: string) => maskSecrets(text).text.trim();

/**
 * Exit 0 goes on (its JSON may still block, decide or add context), exit 2
 * blocks with stderr as the reason, anything else is an error that stops
 * nothing. An event that cannot block (`SessionStart`, `PreEvict`, …) turns
 * a block into an error the user sees.
 */
export function readHookVerdict(event: HookEventName, result: HookProcessResult, timeoutSeconds: number): HookVerdict {
  switch (result.ending) {
    case "not_started":
      return { outcome: "error", message: `could not start: ${result.error ?? "unknown error"}` };
    case "timeout":
      return { outcome: "error", message: `ended at its timeout of ${timeoutSeconds} s (it and the processes it started were killed)` };
    case "aborted":
      return { outcome: "error", message: "stopped: the run was interrupted" };
    case "exit":
      break;
  }
  if (result.exitCode === 2) return blocking(event, masked(result.stderr) || "(the hook gave no reason on stderr)");
  if (result.exitCode !== 0) {
    const detail = masked(result.stderr) || masked(result.stdout);
    return { outcome: "error", message: `exit ${result.exitCode ?? "by signal"}${detail ? `: ${firstLines(detail)}` : ""}` };
  }
  return exitZeroVerdict(event, result.stdout);
}

function exitZeroVerdict(event: HookEventName, stdout: string): HookVerdict {
  const json = jsonObjectIn(stdout);
  if (!json) {
    const text = masked(stdout);
    return text && stdoutIsContext(event) ? { outcome: "ok", additionalContext: text } : { outcome: "ok" };
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success)
    return { outcome: "error", message: `its JSON answer is not understood: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}` };
  const answer = parsed.data;
  const specific = answer.hookSpecificOutput;
  const context = specific?.additionalContext ?? answer.additionalContext;
  const extras: Pick<HookVerdict, "additionalContext" | "systemMessage"> = {
    ...(context ? { additionalContext: masked(context) } : {}),
    ...(answer.systemMessage ? { systemMessage: masked(answer.systemMessage) } : {}),
  };
  const decision = specific?.permissionDecision ?? answer.permissionDecision ?? (answer.decision === "approve" ? "allow" : undefined);
  const decisionReason = specific?.permissionDecisionReason ?? answer.permissionDecisionReason ?? answer.reason;
  if (answer.decision === "block" || decision === "deny") {
    return { ...blocking(event, masked(decisionReason ?? "") || "(the hook gave no reason)"), ...extras };
  }
  if (decision && event === "PreToolUse")
    return { outcome: "ok", permissionDecision: decision, ...(decisionReason ? { message: masked(decisionReason) } : {}), ...extras };
  return { outcome: "ok", ...extras };
}

function blocking(event: HookEventName, reason: string): HookVerdict {
  if (canBlock(event)) return { outcome: "blocked", message: reason };
  return { outcome: "error", message: `a ${event} hook cannot block anything; it said: ${firstLines(reason)}` };
}

/** The JSON object a hook printed, if its output is one. */
function jsonObjectIn(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The start of a long message, for a one-line report. */
function firstLines(text: string, maxCharacters = 500): string {
  return text.length > maxCharacters ? `${text.slice(0, maxCharacters)} …` : text;
}
