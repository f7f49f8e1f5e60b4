import { existsSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import * as z from "zod";
import { readRegularFile } from "../../../files/regular-file.js";
import { estimateTokens } from "../../../tokens/estimate-tokens.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "../tool.js";
import { lineRanges, parseCoverageReport, type CoverageFormat, type FileCoverage } from "./coverage-reports.js";
import { resultHeader } from "./output-budget.js";
import { errorMessage } from "../../../errors.js";

export interface GetCoverageGapsDeps {
  /** Tokens the window can still take: the answer never asks for more. */
  availableTokens: () => number;
}

/** Looked for in this order under the root; the first one found is read. */
const COVERAGE_REPORTS: ReadonlyArray<{ path: string; format: CoverageFormat }> = [
  { path: "coverage/coverage-summary.json", format: "istanbul-summary" },
  { path: "coverage/coverage-final.json", format: "istanbul" },
  { path: "coverage/lcov.info", format: "lcov" },
  { path: "coverage.out", format: "go" },
  { path: "coverage.xml", format: "cobertura" },
];

const FORMAT_NAMES: Record<CoverageFormat, string> = {
  "istanbul-summary": "istanbul json-summary",
  istanbul: "istanbul json",
  lcov: "lcov",
  go: "go cover profile",
  cobertura: "Cobertura XML",
};

const MAX_REPORT_BYTES = 64 * 1024 * 1024;
const MAX_RANGES_SHOWN = 24;
const DEFAULT_TOKENS = 1500;
const MAX_TOKENS = 4000;

interface Gap {
  /** Project-relative where the file is inside the project; otherwise as the report names it. */
  shown: string;
  inProject: boolean;
  file: FileCoverage;
}

export function createGetCoverageGapsTool(deps: GetCoverageGapsDeps): ToolDefinition {
  return defineTool({
    name: "get_coverage_gaps",
    description: toolDescription(import.meta.url, "get-coverage-gaps.txt"),
    schema: z.strictObject({
      path: z.string().trim().min(1).optional().describe("Only files at or under this project path (a file or a directory)."),
      max_tokens: z.number().int().min(100).max(MAX_TOKENS).default(DEFAULT_TOKENS).describe(`Token budget (100–${MAX_TOKENS}).`),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input, context) {
      const budget = Math.max(100, Math.min(input.max_tokens, deps.availableTokens()));
      const root = context.root;
      const realRoot = realpathSync(root);
      const scope = input.path === undefined ? undefined : scopeOf(input.path, root, realRoot) || undefined;
      const notes: string[] = [];
      for (const candidate of COVERAGE_REPORTS) {
        const absolute = join(root, candidate.path);
        if (!existsSync(absolute)) continue;
        const real = realpathSync(absolute);
        if (!inside(real, realRoot)) {
          notes.push(`${candidate.path} leads outside the project (a symbolic link); it was not read.`);
          continue;
        }
        const stats = statSync(real);
        if (!stats.isFile() || stats.size > MAX_REPORT_BYTES) {
          notes.push(
            `${candidate.path} is ${stats.isFile() ? `larger than ${MAX_REPORT_BYTES / 1024 / 1024} MB` : "not a file"}; it was not read.`,
          );
          continue;
        }
        let files: FileCoverage[];
        let sources: string[];
        try {
          ({ files, sources } = parseCoverageReport(
            candidate.format,
            readRegularFile(real, { maxBytes: MAX_REPORT_BYTES }).toString("utf8"),
          ));
        } catch (error) {
          notes.push(`${candidate.path} could not be read as ${FORMAT_NAMES[candidate.format]}: ${errorMessage(error)}`);
          continue;
        }
        const locate = locator(root, realRoot, candidate.format === "go" ? goModule(root) : undefined, sources);
        const gaps = files
          .map((file): Gap => ({ file, ...locate(file.path) }))
          .filter((gap) => !scope || (gap.inProject && within(gap.shown, scope)));
        const rendered = render(gaps, { path: candidate.path, format: candidate.format, mtimeMs: stats.mtimeMs }, root, budget, scope);
        return { output: [...rendered.lines, ...notes].join("\n"), display: rendered.display };
      }
      return {
        output: [resultHeader("coverage report", 0, 0, false), ...notes, ...noReport(root)].join("\n"),
        display: "no coverage report",
      };
    },
  });
}

function render(
  gaps: readonly Gap[],
  report: { path: string; format: CoverageFormat; mtimeMs: number },
  root: string,
  budget: number,
  scope: string | undefined,
): { lines: string[]; display: string } {
  const uncovered = (gap: Gap) => gap.file.totalLines - gap.file.coveredLines;
  const withGaps = gaps.filter((gap) => uncovered(gap) > 0).sort((a, b) => uncovered(b) - uncovered(a) || a.shown.localeCompare(b.shown));
  const blocks: Array<{ text: string; gap: Gap }> = [];
  let tokens = 0;
  for (const gap of withGaps) {
    const text = describeGap(gap);
    const cost = estimateTokens(text) + 1;
    if (tokens + cost > budget) break;
    blocks.push({ text, gap });
    tokens += cost;
  }
  const changes = new Map(
    blocks.map(({ gap }) => [gap, gap.inProject ? changeSince(join(root, gap.shown), report.mtimeMs) : "unknown"] as const),
  );
  const count = (change: string) => [...changes.values()].filter((value) => value === change).length;
  const covered = gaps.reduce((sum, gap) => sum + gap.file.coveredLines, 0);
  const total = gaps.reduce((sum, gap) => sum + gap.file.totalLines, 0);
  const truncated = blocks.length < withGaps.length;
  const written = new Date(report.mtimeMs).toISOString().slice(0, 16).replace("T", " ");
  const staleness = [
    `${count("changed")} of the ${blocks.length} files listed changed since the report${count("changed") ? " (marked; their figures may be stale)" : ""}`,
    ...(count("missing") ? [`${count("missing")} no longer exist`] : []),
    ...(count("unknown") ? [`${count("unknown")} are outside the project and were not checked`] : []),
  ].join(", ");
  const marks: Record<string, string> = { changed: " [changed since the report]", missing: " [no longer exists]" };
  const lines = [
    resultHeader(`${report.path} (${FORMAT_NAMES[report.format]}, written ${written} UTC)`, blocks.length, tokens, truncated),
    gaps.length === 0
      ? `The report lists no file${scope ? ` under ${scope}` : ""}.`
      : `${scope ? `Under ${scope}: ` : ""}${covered} of ${total} lines covered (${percent(covered, total)}) in ${gaps.length} files; ${gaps.length - withGaps.length} fully covered.` +
        (blocks.length ? ` ${staleness}.` : ""),
    ...blocks.map(({ text, gap }) => `${text}${marks[changes.get(gap) ?? ""] ?? ""}`),
    ...(report.format === "istanbul-summary" && blocks.length
      ? ["(coverage-summary.json has counts only; coverage-final.json or lcov.info would give the line numbers.)"]
      : []),
    ...(truncated
      ? [
          `(${withGaps.length - blocks.length} more files with uncovered lines did not fit; ask again with a larger max_tokens, up to ${MAX_TOKENS}, or a narrower path.)`,
        ]
      : []),
  ];
  return { lines, display: `${blocks.length} files with uncovered lines${truncated ? " (truncated)" : ""}` };
}

function describeGap({ shown, file }: Gap): string {
  const missing = file.totalLines - file.coveredLines;
  const head = `- ${shown} · ${missing} of ${file.totalLines} lines uncovered (${percent(file.coveredLines, file.totalLines)} covered)`;
  if (!file.uncoveredLines) return head;
  const ranges = lineRanges(file.uncoveredLines);
  const more = ranges.length > MAX_RANGES_SHOWN ? `, … ${ranges.length - MAX_RANGES_SHOWN} more ranges` : "";
  return `${head} · lines ${ranges.slice(0, MAX_RANGES_SHOWN).join(", ")}${more}`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "n/a" : `${((part / whole) * 100).toFixed(1)} %`;
}

function changeSince(absolute: string, reportMtimeMs: number): "changed" | "missing" | "unchanged" {
  try {
    return statSync(absolute).mtimeMs > reportMtimeMs ? "changed" : "unchanged";
  } catch {
    return "missing";
  }
}

/**
 * Maps a report's file name to a project path: absolute names inside the
 * root, names relative to a Cobertura source or to the root, Go import paths
 * under the module in go.mod. Anything else is shown as the report names it.
 */
function locator(root: string, realRoot: string, goModulePath: string | undefined, sources: readonly string[]) {
  return (name: string): { shown: string; inProject: boolean } => {
    const candidate =
      goModulePath && name.startsWith(`${goModulePath}/`)
        ? join(root, name.slice(goModulePath.length + 1))
        : isAbsolute(name)
          ? name
          : (sources.map((source) => resolve(root, source, name)).find((path) => existsSync(path)) ?? resolve(root, name));
    for (const base of [root, realRoot]) {
      if (inside(candidate, base)) return { shown: relative(base, candidate).split(sep).join("/"), inProject: true };
    }
    return { shown: name, inProject: false };
  };
}

function goModule(root: string): string | undefined {
  try {
    return /^module\s+(\S+)/m.exec(readRegularFile(join(root, "go.mod")).toString("utf8"))?.[1];
  } catch {
    return undefined;
  }
}

/** The `path` argument as a project-relative prefix; outside the project is an error. */
function scopeOf(path: string, root: string, realRoot: string): string {
  const absolute = resolve(root, path);
  for (const base of [root, realRoot]) {
    if (absolute === base) return "";
    if (inside(absolute, base)) return relative(base, absolute).split(sep).join("/");
  }
  throw new ToolError(`${path} is outside the project; give a path inside it.`);
}

function within(shown: string, scope: string): boolean {
  return scope === "" || shown === scope || shown.startsWith(`${scope}/`);
}

function inside(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** No report: which command would make one, for each stack the root shows. */
function noReport(root: string): string[] {
  const looked = `No coverage report found under the project root (looked for ${COVERAGE_REPORTS.map((report) => report.path).join(", ")}).`;
  const commands = coverageCommands(root);
  if (commands.length === 0) {
    return [looked, "No package.json, Python project file, go.mod or Cargo.toml was found, so no command to make one can be suggested."];
  }
  return [looked, "To make one, run:", ...commands.map((command) => `- ${command}`)];
}

function coverageCommands(root: string): string[] {
  const has = (name: string) => existsSync(join(root, name));
  const commands: string[] = [];
  if (has("package.json")) {
    const runner = nodeTestRunner(join(root, "package.json"));
    if (runner === "vitest")
      commands.push("npx vitest run --coverage --coverage.reporter=json-summary   (vitest; needs @vitest/coverage-v8)");
    else if (runner === "jest") commands.push("npx jest --coverage   (jest)");
    else
      commands.push("package.json names neither vitest nor jest: run its tests with a coverage tool that writes one of the reports above");
  }
  if (["pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "requirements.txt"].some(has)) {
    commands.push("pytest --cov --cov-report=xml   (Python; needs pytest-cov)");
  }
  if (has("go.mod")) commands.push("go test -coverprofile=coverage.out ./...   (Go)");
  if (has("Cargo.toml")) commands.push("cargo llvm-cov --lcov --output-path coverage/lcov.info   (Rust; needs cargo-llvm-cov)");
  return commands;
}

const packageJson = z.looseObject({
  dependencies: z.record(z.string(), z.unknown()).optional(),
  devDependencies: z.record(z.string(), z.unknown()).optional(),
  scripts: z.record(z.string(), z.unknown()).optional(),
});

function nodeTestRunner(path: string): "vitest" | "jest" | undefined {
  let parsed: z.infer<typeof packageJson>;
  try {
    parsed = packageJson.parse(JSON.parse(readRegularFile(path).toString("utf8")));
  } catch {
    return undefined;
  }
  const names = new Set([...Object.keys(parsed.dependencies ?? {}), ...Object.keys(parsed.devDependencies ?? {})]);
  const scripts = Object.values(parsed.scripts ?? {})
    .filter((script): script is string => typeof script === "string")
    .join("\n");
  if (names.has("vitest") || /\bvitest\b/.test(scripts)) return "vitest";
  if (names.has("jest") || /\bjest\b/.test(scripts)) return "jest";
  return undefined;
}
