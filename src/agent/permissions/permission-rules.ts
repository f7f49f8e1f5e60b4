import picomatch from "picomatch";
import { PERMISSION_RULE_FORM, PERMISSION_RULE_HINT } from "../../config/permission-rule-form.js";
import { parseCommandPattern, patternCovers, patternMayMatch, type CommandPattern } from "./command-patterns.js";
import type { ShellAnalysis } from "./shell-commands.js";
import { fileWrites, type SimpleCommand } from "./simple-command.js";

/** A rule from the configuration: `tool`, or `tool(pattern)` for some of its calls. */
export interface ParsedRule {
  /** As the configuration writes it, for messages. */
  text: string;
  tool: string;
  /** Absent: every call of the tool. */
  pattern?: { paths: (path: string) => boolean; command: CommandPattern; domain?: string };
}

export function parseRule(rule: string): ParsedRule {
  const match = PERMISSION_RULE_FORM.exec(rule.trim());
  if (!match?.[1]) throw new Error(`Permission rule "${rule}" must look like ${PERMISSION_RULE_HINT}.`);
  const text = rule.trim();
  const pattern = match[2];
  if (pattern === undefined || pattern === "" || pattern === "*") return { text, tool: match[1] };
  // `web_fetch(domain:example.com)`: exactly that host, as Claude Code reads it (not its subdomains).
  const domain = /^domain:(.+)$/.exec(pattern.trim())?.[1]?.toLowerCase();
  const glob = picomatch(pattern, { dot: true });
  // A trailing * on a path rule is also a prefix: `src*` covers `src/a/b.ts`.
  const prefix = pattern.endsWith("*") ? pattern.replace(/\*+$/, "") : undefined;
  return {
    text,
    tool: match[1],
    pattern: {
      paths: (path) => glob(path) || (prefix !== undefined && path.startsWith(prefix)),
      command: parseCommandPattern(pattern),
      ...(domain ? { domain } : {}),
    },
  };
}

/**
 * Whether a rule names this tool: by its name, or, for an MCP tool, every
 * tool of its server as `mcp__<server>` or `mcp__<server>__*`. The server
 * is the call's own, not read back from the name, so a rule for server `git`
 * never covers a server named `git_x`.
 */
export function ruleNamesTool(rule: ParsedRule, tool: string, mcpServer: string | undefined): boolean {
  if (rule.tool === tool) return true;
  return mcpServer !== undefined && (rule.tool === `mcp__${mcpServer}` || rule.tool === `mcp__${mcpServer}__*`);
}

/** Whether the rule covers every one of these paths (file tools). */
export function coversPaths(rule: ParsedRule, paths: readonly string[]): boolean {
  if (!rule.pattern) return true;
  const matches = rule.pattern.paths;
  return paths.length > 0 && paths.every((path) => matches(path));
}

/** A deny rule that forbids a call, and the simple command it matched. */
export interface Denial {
  rule: ParsedRule;
  command?: SimpleCommand;
}

/** The deny rule that forbids this command line, if any: a rule that may match any of its simple commands forbids all of it. */
export function commandDenial(rules: readonly ParsedRule[], tool: string, analysis: ShellAnalysis): Denial | undefined {
  const relevant = rules.filter((rule) => rule.tool === tool);
  const whole = relevant.find((rule) => !rule.pattern);
  if (whole) return { rule: whole };
  for (const command of analysis.commands) {
    const rule = relevant.find((candidate) => candidate.pattern && patternMayMatch(candidate.pattern.command, command));
    if (rule) return { rule, command };
  }
  return undefined;
}

/** What the user and the model are told about a denial; `where` the rule came from. */
export function describeDenial(tool: string, denial: Denial, where = "in the configuration"): string {
  const which = denial.command ? `\`${denial.command.text}\` matches` : "It matches";
  return `A deny rule ${where} forbids this ${tool} call. ${which} ${denial.rule.text}.`;
}

export type Coverage = { covered: true } | { covered: false; why?: string };

/**
 * Whether allow rules cover a whole command line: it parsed, and each of
 * its simple commands matches one of them. `fileWritesMatter`: a command
 * that redirects output into a file is not covered (for `run_command`; the
 * network rules ignore it).
 */
export function commandCoverage(rules: readonly ParsedRule[], tool: string, analysis: ShellAnalysis, fileWritesMatter: boolean): Coverage {
  const relevant = rules.filter((rule) => rule.tool === tool);
  if (relevant.some((rule) => !rule.pattern)) return { covered: true };
  if (relevant.length === 0) return { covered: false };
  if (!analysis.parsed) return { covered: false, why: `allow rules cannot judge it: ${analysis.reason}` };
  if (analysis.commands.length === 0) return { covered: false };
  const uncovered = analysis.commands.filter((command) => !commandCovered(relevant, command, fileWritesMatter));
  if (uncovered.length === 0) return { covered: true };
  const named = uncovered.map((command) => {
    const writes = fileWritesMatter && fileWrites(command).length > 0;
    return `\`${command.text}\`${writes ? " (it writes its output to a file)" : ""}`;
  });
  return { covered: false, why: `no allow rule covers ${named.join(", ")}` };
}

function commandCovered(rules: readonly ParsedRule[], command: SimpleCommand, fileWritesMatter: boolean): boolean {
  if (fileWritesMatter && fileWrites(command).length > 0) return false;
  // Only a redirection that reads (`$(< notes.txt)`) runs no program and sets nothing.
  if (command.words.length === 0 && command.assignments.length === 0) return true;
  return rules.some((rule) => rule.pattern !== undefined && patternCovers(rule.pattern.command, command));
}
