/**
 * What a check command's output says about the run: which kind of check it
 * was (from the command) and, when a vitest, jest, pytest, go test or cargo
 * test summary is recognised, its pass/fail/skip counts and the failing
 * tests' names. Pure: text in, data out; nothing is guessed where the
 * output says nothing.
 */
import * as z from "zod";

const CHECK_KINDS = ["test", "build", "typecheck", "lint"] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

export type TestRunner = "vitest" | "jest" | "pytest" | "go" | "cargo";

export interface TestSummary {
  runner: TestRunner;
  passed?: number;
  failed?: number;
  skipped?: number;
  /** As the runner counts them, when it prints a total. */
  total?: number;
  /** Go: packages that passed and failed (`ok pkg` / `FAIL pkg`). */
  packages?: { passed: number; failed: number };
  /** Failing tests named in the output, in the order printed, without repeats. */
  failingTests: string[];
}

/** At most this many failing names are kept per run (a broken build can fail thousands). */
const MAX_FAILING_NAMES = 50;

const TEST_COMMAND = /\b(?:test|vitest|jest|pytest|unittest|rspec|mocha|ava|tap)\b|\bmvn\s+verify\b|\bgradle\w*\s+check\b/;
const TYPECHECK_COMMAND = /\b(?:typecheck|type-check|tsc\b[^;&|]*--noEmit|mypy|pyright|cargo\s+check)\b|\bnpm\s+(?:run\s+)?check\b/;
const LINT_COMMAND = /\b(?:lint|eslint|biome|ruff|clippy|go\s+vet)\b/;

/**
 * The kind of check a command runs. A command that chains several (`npm run
 * build && npm test`) is filed under the most telling one: tests, then type
 * checks, then linters, then builds.
 */
export function checkKindOf(command: string): CheckKind {
  if (TEST_COMMAND.test(command)) return "test";
  if (TYPECHECK_COMMAND.test(command)) return "typecheck";
  if (LINT_COMMAND.test(command)) return "lint";
  return "build";
}

// Colour and cursor sequences some runners print even into a pipe (FORCE_COLOR).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** The first summary recognised in `output`, or undefined when none is. */
export function parseTestSummary(output: string): TestSummary | undefined {
  const lines = output.replace(ANSI, "").split(/\r?\n/);
  return vitest(lines) ?? jest(lines) ?? pytest(lines) ?? cargo(lines) ?? goTest(lines);
}

/** `Tests  3 failed | 12 passed | 1 skipped (16)`, and ` FAIL  file > suite > name` for each failure. */
function vitest(lines: readonly string[]): TestSummary | undefined {
  const summary = lastMatch(lines, /^\s*Tests\s{2,}(.+?)\s*\((\d+)\)\s*$/);
  if (!summary) return undefined;
  const counts = countsIn(summary[1] ?? "", /(\d+)\s+(failed|passed|skipped|todo)/g);
  return {
    runner: "vitest",
    passed: counts.get("passed") ?? 0,
    failed: counts.get("failed") ?? 0,
    skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
    total: Number(summary[2]),
    failingTests: names(lines, /^\s*FAIL\s+(.+?)\s*$/, (name) => name.includes(" > ")),
  };
}

/** `Tests:       1 failed, 2 skipped, 10 passed, 13 total`, and `● Suite › name` for each failure. */
function jest(lines: readonly string[]): TestSummary | undefined {
  const summary = lastMatch(lines, /^\s*Tests:\s+(.+?)\s*$/);
  if (!summary) return undefined;
  const counts = countsIn(summary[1] ?? "", /(\d+)\s+(failed|passed|skipped|todo|total)/g);
  return {
    runner: "jest",
    passed: counts.get("passed") ?? 0,
    failed: counts.get("failed") ?? 0,
    skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
    ...(counts.has("total") ? { total: counts.get("total") } : {}),
    failingTests: names(lines, /^\s*●\s+(.+?)\s*$/, (name) => !/^Test suite failed to run$/.test(name)),
  };
}

/** `=== 2 failed, 10 passed, 1 skipped in 0.52s ===` (or `-q`'s bare line), and `FAILED path::name - reason`. */
function pytest(lines: readonly string[]): TestSummary | undefined {
  const summary = lastMatch(
    lines,
    /^\s*=*\s*((?:\d+ (?:failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s(?: \([^)]*\))?\s*=*\s*$/,
  );
  if (!summary) return undefined;
  const counts = countsIn(summary[1] ?? "", /(\d+) (failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?)/g);
  const count = (...words: string[]) => words.reduce((total, word) => total + (counts.get(word) ?? 0), 0);
  return {
    runner: "pytest",
    passed: count("passed", "xpassed"),
    failed: count("failed", "error", "errors"),
    skipped: count("skipped", "xfailed"),
    failingTests: names(lines, /^(?:FAILED|ERROR) (\S+)/),
  };
}

/** One `test result: FAILED. 3 passed; 1 failed; 0 ignored; …` per test binary, summed; `test name ... FAILED`. */
function cargo(lines: readonly string[]): TestSummary | undefined {
  const results = lines.flatMap((line) => {
    const match = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(line.trim());
    return match ? [[Number(match[1]), Number(match[2]), Number(match[3])] as const] : [];
  });
  if (results.length === 0) return undefined;
  const sum = (index: 0 | 1 | 2) => results.reduce((total, result) => total + result[index], 0);
  return {
    runner: "cargo",
    passed: sum(0),
    failed: sum(1),
    skipped: sum(2),
    failingTests: names(lines, /^test (\S+) \.\.\. FAILED\s*$/),
  };
}

/**
 * `--- FAIL: TestX (0.00s)` per failing test (and subtest), `--- PASS`/`--- SKIP`
 * with `-v`, and `ok  pkg 0.01s` / `FAIL pkg 0.02s` per package. Without `-v`
 * passing tests are not listed, so no pass count is claimed.
 */
function goTest(lines: readonly string[]): TestSummary | undefined {
  const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
  const packages = {
    passed: count(/^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/),
    failed: count(/^FAIL\s+\S+\s+(?:[\d.]+s|\[(?:build|setup) failed\])/),
  };
  const failed = count(/^\s*--- FAIL: /);
  const passed = count(/^\s*--- PASS: /);
  if (packages.passed + packages.failed + failed + passed === 0) return undefined;
  const verbose = lines.some((line) => /^\s*=== RUN\s/.test(line));
  return {
    runner: "go",
    ...(verbose || passed > 0 ? { passed } : {}),
    failed,
    skipped: count(/^\s*--- SKIP: /),
    packages,
    failingTests: names(lines, /^\s*--- FAIL: (\S+)/),
  };
}

function lastMatch(lines: readonly string[], pattern: RegExp): RegExpExecArray | undefined {
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const match = pattern.exec(lines[index] ?? "");
    if (match) return match;
  }
  return undefined;
}

function countsIn(text: string, pattern: RegExp): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of text.matchAll(pattern)) counts.set(match[2] as string, (counts.get(match[2] as string) ?? 0) + Number(match[1]));
  return counts;
}

function names(lines: readonly string[], pattern: RegExp, keep: (name: string) => boolean = () => true): string[] {
  const found = new Set<string>();
  for (const line of lines) {
    const name = pattern.exec(line)?.[1]?.trim();
    if (name && keep(name)) found.add(name);
    if (found.size >= MAX_FAILING_NAMES) break;
  }
  return [...found];
}

/** One check command's run, as a `test_result` entry's metadata holds it. */
export interface TestRun {
  kind: CheckKind;
  command: string;
  /** Null when the command was killed, timed out or aborted. */
  exitCode: number | null;
  /** `exit 1`, `timed out`, `killed by signal SIGTERM`, `aborted`. */
  ending: string;
  /** Unknown for runs read back from older sessions' `run_command` results. */
  durationMs?: number;
  status: "pass" | "fail";
  summary?: TestSummary;
}

/** A run from its command, how it ended and what it printed. */
export function testRunOf(
  command: string,
  ending: { exitCode: number | null; ending: string },
  output: string,
  durationMs?: number,
): TestRun {
  const summary = parseTestSummary(output);
  const failed = ending.exitCode !== 0 || (summary?.failed ?? 0) > 0;
  return {
    kind: checkKindOf(command),
    command,
    exitCode: ending.exitCode,
    ending: ending.ending,
    ...(durationMs !== undefined ? { durationMs } : {}),
    status: failed ? "fail" : "pass",
    ...(summary ? { summary } : {}),
  };
}

/** `3 failed, 12 passed, 1 skipped (16)`; for go, with the packages. */
export function describeCounts(summary: TestSummary): string {
  const parts = [
    ...(summary.failed !== undefined ? [`${summary.failed} failed`] : []),
    ...(summary.passed !== undefined ? [`${summary.passed} passed`] : []),
    ...(summary.skipped ? [`${summary.skipped} skipped`] : []),
  ];
  const total = summary.total !== undefined ? ` (${summary.total})` : "";
  const packages = summary.packages ? `; packages: ${summary.packages.failed} failed, ${summary.packages.passed} ok` : "";
  return `${summary.runner}: ${parts.join(", ")}${total}${packages}`;
}

/** The entry's text: what full-text search finds it by (command, outcome, failing names). */
export function renderTestRun(run: TestRun): string {
  const duration = run.durationMs !== undefined ? ` · ${formatDuration(run.durationMs)}` : "";
  return [
    `${run.kind} run ${run.status === "pass" ? "passed" : "failed"}: ${run.command}`,
    `${run.ending}${duration}`,
    ...(run.summary ? [describeCounts(run.summary)] : []),
    ...(run.summary?.failingTests.length ? ["failing tests:", ...run.summary.failingTests.map((name) => `- ${name}`)] : []),
  ].join("\n");
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

const storedRun = z.object({
  kind: z.enum(CHECK_KINDS),
  command: z.string(),
  exitCode: z.number().int().nullable(),
  ending: z.string(),
  durationMs: z.number().optional(),
  status: z.enum(["pass", "fail"]),
  summary: z
    .object({
      runner: z.enum(["vitest", "jest", "pytest", "go", "cargo"]),
      passed: z.number().optional(),
      failed: z.number().optional(),
      skipped: z.number().optional(),
      total: z.number().optional(),
      packages: z.object({ passed: z.number(), failed: z.number() }).optional(),
      failingTests: z.array(z.string()),
    })
    .optional(),
});

/** A `test_result` entry's metadata read back (undefined when it is not a recorded run). */
export function storedTestRun(metadata: unknown): TestRun | undefined {
  const parsed = storedRun.safeParse((metadata as { testRun?: unknown } | null)?.testRun);
  return parsed.success ? (parsed.data as TestRun) : undefined;
}
