import * as z from "zod";
import type { PatternRepository } from "../../../store/pattern-repository.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { errorSignature, mentionsAny, queryWords, recurring, type Occurrence, type Recurrence } from "./recurrence.js";
import { clampBudget } from "./output-budget.js";
import { firstLine, fitBlocks, shownTime } from "./role-output.js";

export interface CrossSessionPatternsDeps {
  patterns: Pick<PatternRepository, "toolErrors" | "corrections" | "sharedFileChanges" | "testResults" | "sessionCount">;
  availableTokens(): number;
}

const PATTERN_KINDS = ["tool_errors", "user_corrections", "failing_tests", "files"] as const;
type PatternKind = (typeof PATTERN_KINDS)[number];

const schema = z.strictObject({
  query: z.string().min(1).optional().describe("Only patterns whose text (error, prompt, test name, path) mentions one of these words."),
  min_recurrence: z.number().int().min(2).max(10).default(2).describe("In at least this many distinct sessions (2–10)."),
  kinds: z
    .array(z.enum(PATTERN_KINDS))
    .min(1)
    .optional()
    .describe(`Which patterns (default all): ${PATTERN_KINDS.join(", ")}.`),
  max_tokens: z.number().int().min(100).max(4_000).default(1_500).describe("Token budget (100–4000)."),
});

type Input = z.infer<typeof schema>;

interface Section {
  title: string;
  /** One block per recurring pattern. */
  patterns: string[];
  /** Said when there are none. */
  none: string;
}

/**
 * `get_cross_session_patterns`: what recurs across this project's sessions
 * (the same tool error, corrections by the user, the same failing test, the
 * same files changed), counted by distinct sessions. It reports recurrence,
 * not cause.
 */
export function createGetCrossSessionPatternsTool(deps: CrossSessionPatternsDeps): ToolDefinition {
  return defineTool({
    name: "get_cross_session_patterns",
    description: toolDescription(import.meta.url, "get-cross-session-patterns.txt"),
    schema,
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const kinds = new Set<PatternKind>(input.kinds ?? PATTERN_KINDS);
      const words = queryWords(input.query);
      const sections = PATTERN_KINDS.filter((kind) => kinds.has(kind)).map((kind) => SECTIONS[kind](deps.patterns, input, words));
      const found = sections.reduce((sum, section) => sum + section.patterns.length, 0);
      const blocks = sections.flatMap((section) => [
        `## ${section.title}`,
        ...(section.patterns.length > 0 ? section.patterns : [section.none]),
      ]);
      const fitted = fitBlocks(blocks, clampBudget(input.max_tokens, deps.availableTokens()));
      const shown = fitted.kept.filter((block) => block.startsWith("- ")).length;
      const header = [
        "source: cross-session patterns",
        `${shown} results`,
        `tokens: ${fitted.tokens}`,
        `truncated: ${fitted.truncated}`,
        `min_recurrence: ${input.min_recurrence} sessions`,
        `sessions recorded: ${deps.patterns.sessionCount()}`,
        ...(input.query ? [`query: ${input.query}`] : []),
      ].join(" · ");
      return {
        output: [
          header,
          "Each pattern is counted by the distinct sessions it happened in. This says what recurs, not why: check the cause before acting on it.",
          ...fitted.kept,
          ...(fitted.truncated ? ["(More did not fit; raise max_tokens, narrow kinds or give a query.)"] : []),
        ].join("\n"),
        display: `${found} recurring patterns${fitted.truncated ? " (truncated)" : ""}`,
      };
    },
  });
}

type SectionBuilder = (patterns: CrossSessionPatternsDeps["patterns"], input: Input, words: readonly string[]) => Section;

const SECTIONS: Record<PatternKind, SectionBuilder> = {
  tool_errors(patterns, input, words) {
    const errors = patterns.toolErrors();
    const occurrences = errors.flatMap((error): Array<Occurrence<{ text: string; sessionId: string; turn: number }>> => {
      const signature = errorSignature(error.text);
      if (!mentionsAny(`${error.tool} ${error.text}`, words)) return [];
      return [
        {
          key: `${error.tool}\u0000${signature}`,
          sessionId: error.sessionId,
          at: error.timestamp,
          sample: { text: firstLine(error.text, 200), sessionId: error.sessionId, turn: error.turn },
        },
      ];
    });
    return {
      title: "Tool errors with the same message (numbers and paths masked)",
      patterns: recurring(occurrences, input.min_recurrence).map((group) => {
        const [tool, signature] = group.key.split("\u0000") as [string, string];
        const sample = group.samples[0];
        return `- ${counts(group)} · ${tool}: ${signature}${sample ? `\n  e.g. "${sample.text}" (session ${sample.sessionId}, turn ${sample.turn})` : ""}`;
      }),
      none:
        errors.length === 0
          ? "No failed tool calls are recorded."
          : `None of the ${errors.length} failed tool calls recorded recurs in ${input.min_recurrence} or more sessions${words.length ? " and matches the query" : ""}.`,
    };
  },

  user_corrections(patterns, input, words) {
    const corrections = patterns.corrections();
    const matching = corrections.filter((correction) => correction.prompt !== null && mentionsAny(correction.prompt, words));
    // With a query, its corrections are one topic; without, the same words (numbers and paths masked) are.
    const occurrences = matching.map((correction) => ({
      key: words.length > 0 ? `corrections mentioning ${words.join(" or ")}` : errorSignature(correction.prompt ?? "").toLowerCase(),
      sessionId: correction.sessionId,
      at: correction.createdAt,
      sample: { prompt: firstLine(correction.prompt ?? "", 200), sessionId: correction.sessionId, turn: correction.turn },
    }));
    const sessions = new Set(corrections.map((correction) => correction.sessionId)).size;
    return {
      title: "User corrections (prompts the quality tracker counted as correcting the answer before)",
      patterns: recurring(occurrences, input.min_recurrence).map(
        (group) =>
          `- ${counts(group)} · ${group.key}\n${group.samples
            .slice(0, 5)
            .map((sample) => `  "${sample.prompt}" (session ${sample.sessionId}, turn ${sample.turn})`)
            .join("\n")}`,
      ),
      none:
        corrections.length === 0
          ? "No user corrections are recorded."
          : `${corrections.length} corrections in ${sessions} sessions; none recurs in ${input.min_recurrence} or more sessions${words.length ? " with the query's words" : " in the same words (give a query to group them by topic)"}.`,
    };
  },

  failing_tests(patterns, input, words) {
    const results = patterns.testResults();
    const occurrences = results.flatMap((result) =>
      failingTestNames(result.content)
        .filter((name) => mentionsAny(name, words))
        .map((name) => ({ key: name, sessionId: result.sessionId, at: result.timestamp, sample: name })),
    );
    return {
      title: "Failing tests",
      patterns: recurring(occurrences, input.min_recurrence).map((group) => `- ${counts(group)} · ${group.key}`),
      none:
        results.length === 0
          ? "No test_result entries are recorded, so failing tests cannot be counted."
          : occurrences.length === 0
            ? `${results.length} test_result entries are recorded; none names a failing test${words.length ? " matching the query" : ""}.`
            : `No failing test recurs in ${input.min_recurrence} or more sessions.`,
    };
  },

  files(patterns, input, words) {
    const shared = patterns.sharedFileChanges(input.min_recurrence).filter((file) => mentionsAny(file.path, words));
    return {
      title: "Files changed in several sessions",
      patterns: shared.map((file) => `- ${file.sessions.length} sessions · last ${shownTime(file.lastChanged)} · ${file.path}`),
      none: `No changed file${words.length ? " matching the query" : ""} is recorded in ${input.min_recurrence} or more sessions.`,
    };
  },
};

function counts(group: Recurrence<unknown>): string {
  return `${group.sessions.length} sessions · ${group.occurrences} times · last ${shownTime(group.lastAt)}`;
}

/** Failing test names in a `test_result` entry holding a tester's state (`failing_tests`, or `test_results` with status fail). */
export function failingTestNames(content: string): string[] {
  let state: unknown;
  try {
    state = JSON.parse(content);
  } catch {
    return [];
  }
  if (typeof state !== "object" || state === null) return [];
  const record = state as Record<string, unknown>;
  const names = (list: unknown, keep: (item: Record<string, unknown>) => boolean): string[] =>
    Array.isArray(list)
      ? list.flatMap((item: unknown) => {
          if (typeof item !== "object" || item === null) return [];
          const test = item as Record<string, unknown>;
          return typeof test.test_name === "string" && test.test_name.length > 0 && keep(test) ? [test.test_name] : [];
        })
      : [];
  return [
    ...new Set([...names(record.failing_tests, () => true), ...names(record.test_results, (test) => /^fail/i.test(String(test.status)))]),
  ];
}
