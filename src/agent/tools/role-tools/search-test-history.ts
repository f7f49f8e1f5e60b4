import * as z from "zod";
import { isCheckCommand } from "../../../signals/check-command.js";
import type { ContentEntry } from "../../../store/content-types.js";
import type { EntryRepository } from "../../../store/entry-repository.js";
import { estimateTokens } from "../../../tokens/estimate-tokens.js";
import { commandExitCode } from "../run-command.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { describeCounts, formatDuration, storedTestRun, testRunOf, type TestRun } from "./test-run-summary.js";
import { resultHeader } from "./output-budget.js";

/** Where the runs come from, newest first. */
export interface TestHistory {
  /** `test_result` entries. */
  recorded(limit: number): ContentEntry[];
  /** `run_command` results, each with the call that made it: the runs of sessions from before runs were recorded. */
  commandResults(limit: number): Array<{ result: ContentEntry; call: ContentEntry | undefined }>;
}

export interface SearchTestHistoryDeps {
  history: TestHistory;
  /** Tokens the window can still take: the answer never asks for more. */
  availableTokens: () => number;
}

/** The project's entries as a `TestHistory`. */
export function testHistoryOf(entries: Pick<EntryRepository, "docsMatching" | "getByDocs" | "toolResults" | "getByIds">): TestHistory {
  return {
    recorded: (limit) => entries.getByDocs(entries.docsMatching({ contentTypes: ["test_result"] }, limit)).map((stored) => stored.entry),
    commandResults: (limit) => {
      const results = entries.toolResults("run_command", limit).map((stored) => stored.entry);
      const calls = new Map(
        entries
          .getByIds(results.flatMap((result) => (result.parentId ? [result.parentId] : [])))
          .map((stored) => [stored.entry.id, stored.entry]),
      );
      return results.map((result) => ({ result, call: result.parentId ? calls.get(result.parentId) : undefined }));
    },
  };
}

/** How many runs of each source are searched: the newest. */
const SCAN_LIMIT = 500;
const MAX_NAMES_SHOWN = 10;
const DEFAULT_TOKENS = 1500;
const MAX_TOKENS = 6000;

interface FoundRun {
  run: TestRun;
  entry: ContentEntry;
  /** Read back from an older session's `run_command` result rather than recorded. */
  fromOutput: boolean;
}

const runCommandCall = z.object({ name: z.literal("run_command"), input: z.object({ command: z.string() }) });

export function createSearchTestHistoryTool(deps: SearchTestHistoryDeps): ToolDefinition {
  return defineTool({
    name: "search_test_history",
    description: toolDescription(import.meta.url, "search-test-history.txt"),
    schema: z.strictObject({
      query: z
        .string()
        .trim()
        .min(1)
        .optional()
        .describe("Words that must all appear in the command or a failing test's name (case-insensitive)."),
      status: z.enum(["pass", "fail"]).optional().describe("Only runs that passed, or only runs that failed."),
      limit: z.number().int().min(1).max(50).default(10).describe("Most runs to list, newest first (1–50)."),
      max_tokens: z.number().int().min(100).max(MAX_TOKENS).default(DEFAULT_TOKENS).describe(`Token budget (100–${MAX_TOKENS}).`),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const budget = Math.max(100, Math.min(input.max_tokens, deps.availableTokens()));
      const runs = allRuns(deps.history);
      const terms = input.query?.toLowerCase().split(/\s+/) ?? [];
      const matching = runs.filter(
        ({ run }) =>
          (!input.status || run.status === input.status) &&
          terms.every((term) => [run.command, ...(run.summary?.failingTests ?? [])].some((text) => text.toLowerCase().includes(term))),
      );
      const chosen = matching.slice(0, input.limit);
      const blocks: string[] = [];
      let tokens = 0;
      for (const found of chosen) {
        const block = renderRun(found);
        const cost = estimateTokens(block) + 1;
        if (tokens + cost > budget) break;
        blocks.push(block);
        tokens += cost;
      }
      const truncated = blocks.length < chosen.length;
      const source = chosen.slice(0, blocks.length).some((found) => found.fromOutput)
        ? "test_result entries and older run_command results"
        : "test_result entries";
      const header = resultHeader(source, blocks.length, tokens, truncated);
      const note = truncated
        ? `(${chosen.length - blocks.length} more matching runs did not fit; ask again with a larger max_tokens, up to ${MAX_TOKENS}, or a narrower query.)`
        : matching.length > chosen.length
          ? `(${matching.length - chosen.length} older matching runs not listed; raise limit to see them.)`
          : undefined;
      return {
        output: [header, ...(chosen.length ? blocks : [nothingFound(runs.length, input)]), ...(note ? [note] : [])].join("\n"),
        display: `${blocks.length} test runs${truncated ? " (truncated)" : ""}`,
      };
    },
  });
}

/**
 * Recorded runs, and older sessions' check commands read back from their
 * `run_command` results, newest first. A run both recorded and present as a
 * result (same session, turn and command) is listed once, as recorded.
 */
function allRuns(history: TestHistory): FoundRun[] {
  const recorded = history.recorded(SCAN_LIMIT).flatMap((entry): FoundRun[] => {
    const run = storedTestRun(entry.metadata);
    return run ? [{ run, entry, fromOutput: false }] : [];
  });
  const key = (entry: ContentEntry, command: string) => `${entry.sessionId}\u0000${entry.turnNumber}\u0000${command}`;
  const unclaimed = new Map<string, number>();
  for (const { run, entry } of recorded) unclaimed.set(key(entry, run.command), (unclaimed.get(key(entry, run.command)) ?? 0) + 1);
  const older = history.commandResults(SCAN_LIMIT).flatMap(({ result, call }): FoundRun[] => {
    const parsed = call ? runCommandCall.safeParse(safeJson(call.content)) : undefined;
    const command = parsed?.success ? parsed.data.input.command : undefined;
    if (!command || !isCheckCommand(command)) return [];
    const claims = unclaimed.get(key(result, command)) ?? 0;
    if (claims > 0) {
      unclaimed.set(key(result, command), claims - 1);
      return [];
    }
    const ending = commandExitCode(result.content);
    return ending ? [{ run: testRunOf(command, ending, result.content), entry: result, fromOutput: true }] : [];
  });
  return [...recorded, ...older].sort((a, b) => b.entry.timestamp - a.entry.timestamp);
}

function renderRun({ run, entry, fromOutput }: FoundRun): string {
  const when = new Date(entry.timestamp).toISOString().slice(0, 16).replace("T", " ");
  const facts = [
    run.status,
    run.kind,
    run.ending,
    ...(run.durationMs !== undefined ? [formatDuration(run.durationMs)] : []),
    `${when} UTC`,
    `session ${entry.sessionId.slice(0, 8)} turn ${entry.turnNumber}`,
    `entry ${entry.id}`,
    ...(fromOutput ? ["read from the run_command output"] : []),
  ];
  const names = run.summary?.failingTests ?? [];
  const shown = names.slice(0, MAX_NAMES_SHOWN).join("; ");
  return [
    `- ${facts.join(" · ")}`,
    `  $ ${run.command}`,
    ...(run.summary
      ? [`  ${describeCounts(run.summary)}`]
      : ["  (no test summary recognised in the output: the exit code is all there is)"]),
    ...(names.length ? [`  failing: ${shown}${names.length > MAX_NAMES_SHOWN ? `; … ${names.length - MAX_NAMES_SHOWN} more` : ""}`] : []),
  ].join("\n");
}

function nothingFound(searched: number, input: { query?: string | undefined; status?: "pass" | "fail" | undefined }): string {
  if (searched === 0) {
    return "No test, build, type-check or lint run is recorded in this project. Runs are recorded when run_command runs such a command.";
  }
  const filters = [...(input.status ? [`status ${input.status}`] : []), ...(input.query ? [`query "${input.query}"`] : [])].join(" and ");
  return `No run matches ${filters} among the ${searched} runs searched (the newest ${SCAN_LIMIT} recorded and the newest ${SCAN_LIMIT} run_command results).`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
