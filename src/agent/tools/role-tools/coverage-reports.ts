/**
 * Coverage reports as per-file line counts and uncovered lines: istanbul's
 * `coverage-summary.json` (counts only) and `coverage-final.json`, lcov,
 * Go's cover profile and Cobertura XML. Pure: text in, data out. A report
 * that does not have the expected shape is an error, never an empty result.
 */
import * as z from "zod";

const COVERAGE_FORMATS = ["istanbul-summary", "istanbul", "lcov", "go", "cobertura"] as const;
export type CoverageFormat = (typeof COVERAGE_FORMATS)[number];

export interface FileCoverage {
  /** As the report names it (absolute, relative, or a Go import path). */
  path: string;
  coveredLines: number;
  totalLines: number;
  /** Ascending; absent where the format gives counts only (`coverage-summary.json`). */
  uncoveredLines?: number[];
}

export interface CoverageReport {
  format: CoverageFormat;
  files: FileCoverage[];
  /** Cobertura's `<source>` directories, which its file names are relative to. */
  sources: string[];
}

export function parseCoverageReport(format: CoverageFormat, text: string): CoverageReport {
  switch (format) {
    case "istanbul-summary":
      return { format, files: parseIstanbulSummary(text), sources: [] };
    case "istanbul":
      return { format, files: parseIstanbulFinal(text), sources: [] };
    case "lcov":
      return { format, files: parseLcov(text), sources: [] };
    case "go":
      return { format, files: parseGoProfile(text), sources: [] };
    case "cobertura":
      return { format, ...parseCobertura(text) };
  }
}

const summaryFile = z.object({ lines: z.object({ total: z.number().int().min(0), covered: z.number().int().min(0) }) });

/** `{"total": {...}, "/abs/src/a.ts": {"lines": {"total": 40, "covered": 31, …}, …}, …}` */
export function parseIstanbulSummary(text: string): FileCoverage[] {
  const report = z.record(z.string(), summaryFile).parse(JSON.parse(text));
  return Object.entries(report)
    .filter(([path]) => path !== "total")
    .map(([path, file]) => ({ path, coveredLines: file.lines.covered, totalLines: file.lines.total }));
}

const position = z.object({ line: z.number().int() });
const finalFile = z.object({
  path: z.string().optional(),
  statementMap: z.record(z.string(), z.object({ start: position, end: position })),
  s: z.record(z.string(), z.number()),
});

/**
 * istanbul's full report: a line's count is the largest of the statements
 * that start on it (as istanbul's own lcov and text reporters count lines).
 */
export function parseIstanbulFinal(text: string): FileCoverage[] {
  const report = z.record(z.string(), finalFile).parse(JSON.parse(text));
  return Object.entries(report).map(([key, file]) => {
    const lines = new Map<number, number>();
    for (const [id, statement] of Object.entries(file.statementMap)) {
      const line = statement.start.line;
      lines.set(line, Math.max(lines.get(line) ?? 0, file.s[id] ?? 0));
    }
    return fromLineHits(file.path ?? key, lines);
  });
}

/** `SF:path`, `DA:line,hits[,checksum]` …, `end_of_record`; records for the same file are merged. */
export function parseLcov(text: string): FileCoverage[] {
  const files = new Map<string, Map<number, number>>();
  let current: Map<number, number> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("SF:")) {
      const path = line.slice(3);
      current = files.get(path) ?? new Map();
      files.set(path, current);
    } else if (line === "end_of_record") {
      current = undefined;
    } else if (line.startsWith("DA:") && current) {
      const [number, hits] = line.slice(3).split(",");
      const lineNumber = Number(number);
      if (!Number.isInteger(lineNumber) || !/^\d+$/.test(hits ?? "")) throw new Error(`lcov: malformed line "${line}"`);
      current.set(lineNumber, Math.max(current.get(lineNumber) ?? 0, Number(hits)));
    }
  }
  if (files.size === 0 && text.trim() !== "") throw new Error("lcov: no SF: records");
  return [...files].map(([path, lines]) => fromLineHits(path, lines));
}

const GO_BLOCK = /^(.+):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)$/;

/**
 * `mode: set`, then `pkg/file.go:12.3,15.2 4 0` per block. A line is covered
 * when any block over it ran, and counted once however many blocks cover it
 * (several packages' runs with `-coverpkg` repeat blocks).
 */
export function parseGoProfile(text: string): FileCoverage[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (!/^mode: (?:set|count|atomic)$/.test(lines[0]?.trim() ?? ""))
    throw new Error('go cover profile: the first line is not "mode: set|count|atomic"');
  const files = new Map<string, Map<number, number>>();
  for (const line of lines.slice(1)) {
    const block = GO_BLOCK.exec(line.trim());
    if (!block) throw new Error(`go cover profile: malformed line "${line}"`);
    const path = block[1] as string;
    const hits = Number(block[4]);
    const file = files.get(path) ?? new Map<number, number>();
    files.set(path, file);
    for (let number = Number(block[2]); number <= Number(block[3]); number += 1) file.set(number, Math.max(file.get(number) ?? 0, hits));
  }
  return [...files].map(([path, hits]) => fromLineHits(path, hits));
}

/**
 * `<class filename="pkg/mod.py"><lines><line number="3" hits="0"/>…`. Classes
 * of one file (Java's inner classes) are merged, and so are the `<method>`
 * lines that repeat a class's own.
 */
export function parseCobertura(text: string): { files: FileCoverage[]; sources: string[] } {
  if (!/<coverage\b/.test(text)) throw new Error("Cobertura: no <coverage> element");
  const sources = [...text.matchAll(/<source>([^<]*)<\/source>/g)].map((match) => decodeXml((match[1] as string).trim()));
  const files = new Map<string, Map<number, number>>();
  for (const match of text.matchAll(/<class\b([^>]*?)(?:\/>|>([\s\S]*?)<\/class>)/g)) {
    const filename = attributes(match[1] as string).get("filename");
    if (filename === undefined) continue;
    const path = decodeXml(filename);
    const file = files.get(path) ?? new Map<number, number>();
    files.set(path, file);
    for (const line of (match[2] ?? "").matchAll(/<line\b([^>]*?)\/?>/g)) {
      const attrs = attributes(line[1] as string);
      const number = Number(attrs.get("number"));
      const hits = Number(attrs.get("hits"));
      if (!Number.isInteger(number) || !Number.isFinite(hits)) throw new Error(`Cobertura: malformed <line${line[1]}>`);
      file.set(number, Math.max(file.get(number) ?? 0, hits));
    }
  }
  return { files: [...files].map(([path, hits]) => fromLineHits(path, hits)), sources };
}

/** `[3, 4, 5, 9, 12, 13]` → `3-5, 9, 12-13`. */
export function lineRanges(lines: readonly number[]): string[] {
  const ranges: string[] = [];
  let start: number | undefined;
  let previous: number | undefined;
  for (const line of [...lines, Number.NaN]) {
    if (start !== undefined && previous !== undefined && line === previous + 1) {
      previous = line;
      continue;
    }
    if (start !== undefined && previous !== undefined) ranges.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = line;
    previous = line;
  }
  return ranges;
}

function fromLineHits(path: string, lines: ReadonlyMap<number, number>): FileCoverage {
  const uncoveredLines = [...lines]
    .filter(([, hits]) => hits === 0)
    .map(([line]) => line)
    .sort((a, b) => a - b);
  return { path, coveredLines: lines.size - uncoveredLines.length, totalLines: lines.size, uncoveredLines };
}

function attributes(text: string): Map<string, string> {
  return new Map([...text.matchAll(/([\w:-]+)\s*=\s*"([^"]*)"/g)].map((match) => [match[1] as string, match[2] as string]));
}

function decodeXml(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name] as string,
  );
}
