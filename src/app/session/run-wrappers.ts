import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { Attachment } from "../mentions.js";
import type { SubAgentUsage } from "../../team/session/child-run.js";

/* What a session puts around a run: the events before it, and the totals after it. */

/** The run's result with what its sub-agents used, when it started any. */
export async function* withSubAgentTotals(
  usage: SubAgentUsage,
  run: AsyncGenerator<AgentEvent, AgentResult>,
): AsyncGenerator<AgentEvent, AgentResult> {
  const before = { runs: usage.runs, total: usage.total };
  const withTotals = (result: AgentResult): AgentResult =>
    usage.runs === before.runs
      ? result
      : {
          ...result,
          subagents: {
            runs: usage.runs - before.runs,
            usage: {
              inputTokens: usage.total.inputTokens - before.total.inputTokens,
              outputTokens: usage.total.outputTokens - before.total.outputTokens,
              cacheReadTokens: usage.total.cacheReadTokens - before.total.cacheReadTokens,
              cacheWriteTokens: usage.total.cacheWriteTokens - before.total.cacheWriteTokens,
            },
          },
        };
  for (;;) {
    const next = await run.next();
    if (next.done) return withTotals(next.value);
    yield next.value.type === "done" ? { type: "done", result: withTotals(next.value.result) } : next.value;
  }
}

export function maskedNotice(findings: readonly string[]): string {
  const kinds = [...new Set(findings)].join(", ");
  return `The prompt held ${findings.length === 1 ? "a secret" : `${findings.length} secrets`} (${kinds}): masked before it was sent or stored. Give the agent a way to read it instead (an environment variable, a file it may read).`;
}

/** The run, after warnings the user should see first (secrets masked in the prompt, a file left out of it, a mention not attached). */
export async function* withNotices(
  notices: ReadonlyArray<{ kind: string; message: string }>,
  run: AsyncGenerator<AgentEvent, AgentResult>,
): AsyncGenerator<AgentEvent, AgentResult> {
  for (const { kind, message } of notices) yield { type: "error", kind, message, fatal: false };
  return yield* run;
}

/** The run, told first what the prompt's @-mentions attached. */
export async function* withAttachments(
  files: Attachment[],
  run: AsyncGenerator<AgentEvent, AgentResult>,
): AsyncGenerator<AgentEvent, AgentResult> {
  yield { type: "attached", files };
  return yield* run;
}

/**
 * The run, calling `recorded` as its messages are stored: at each model
 * call after the first (the previous call's answer and tool results are
 * recorded by then) and once it has ended, however it ended. `recorded`
 * must return at once: the run does not wait for what it starts.
 */
export async function* whileRecorded(
  run: AsyncGenerator<AgentEvent, AgentResult>,
  recorded: () => void,
): AsyncGenerator<AgentEvent, AgentResult> {
  let calls = 0;
  try {
    for (;;) {
      const next = await run.next();
      if (next.done) return next.value;
      if (next.value.type === "turn_start" && calls++ > 0) recorded();
      yield next.value;
    }
  } finally {
    await run.return?.(undefined as never);
    recorded();
  }
}

/** The run, after what went wrong in the background since the last one, each told once. */
export async function* withReports(
  reports: string[],
  run: AsyncGenerator<AgentEvent, AgentResult>,
): AsyncGenerator<AgentEvent, AgentResult> {
  for (const message of reports.splice(0)) yield { type: "error", kind: "memory", message, fatal: false };
  return yield* run;
}

/** The run with allow rules granted while it lasts (`grant` returns their release), from its first step to its end. */
export async function* withRunRules(
  grant: () => () => void,
  run: AsyncGenerator<AgentEvent, AgentResult>,
): AsyncGenerator<AgentEvent, AgentResult> {
  const release = grant();
  try {
    return yield* run;
  } finally {
    release();
  }
}
